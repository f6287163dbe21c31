package launch

import (
	"bufio"
	"cmp"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"github.com/gompi/gompi/internal/accept"
	"github.com/vmihailenco/msgpack/v5"
)

// request is what a process sends to the exchange; reply is the answer.
// One request is outstanding per connection at a time.
type request struct {
	Op    string `msgpack:"op"` // hello, probe, watch, put, putraw, barrier, fail
	Token string `msgpack:"token,omitempty"`
	Proc  int    `msgpack:"proc,omitempty"`
	Key   string `msgpack:"key,omitempty"`
	Val   string `msgpack:"val,omitempty"`
	// Size is a putraw's value's length: its bytes follow the request
	// on the connection, outside msgpack (Put).
	Size int64  `msgpack:"size,omitempty"`
	Rank int    `msgpack:"rank,omitempty"`
	Code int    `msgpack:"code,omitempty"`
	Msg  string `msgpack:"msg,omitempty"`
}

type reply struct {
	Err string            `msgpack:"err,omitempty"`
	KV  map[string]string `msgpack:"kv,omitempty"`
}

// Barrier names the processes meet at.
const (
	BarrierInit     = "init"     // every process has published its addresses
	BarrierTCP      = "tcp"      // processes that listened late (one-host jobs) have published theirs
	BarrierFinalize = "finalize" // every rank of the job has returned
)

// Failure is a process's own report that one of its ranks failed (returned
// an error, panicked or called Abort); it exits with Code right after.
type Failure struct {
	Proc, Rank, Code int
	Msg              string
}

// Server is the exchange gompirun serves for one job.
type Server struct {
	ln    net.Listener
	tcp   []net.Listener // also serving over TCP (jobs spanning hosts) at these
	token string
	procs int

	// Failures receives each process's failure report (buffered; later
	// reports are dropped when nobody reads).
	Failures     chan Failure
	rejected     atomic.Int64
	acceptErrors atomic.Int64 // failed accepts, retried (internal/accept)

	mu        sync.Mutex
	kv        map[string]string
	waiting   map[string][]chan map[string]string
	connected []bool
	finalized []bool
	closed    bool

	// Removed once every process has joined (and opened its watch
	// connection, when watches is set): see RemoveWhenJoined.
	removePaths []string
	watches     bool
	joined      int // processes that said hello (and watched, with watches)
	watched     []bool
	removed     bool // removePaths are gone

	watch *watchHub // virtual runs: the processes' watch connections (watch.go)
}

// Serve listens on a unix socket at path for a job of procs processes
// authenticated by token.
func Serve(path, token string, procs int) (*Server, error) {
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("launch: exchange: %w", err)
	}
	s := &Server{
		ln: ln, token: token, procs: procs,
		Failures:  make(chan Failure, procs),
		kv:        map[string]string{},
		waiting:   map[string][]chan map[string]string{},
		connected: make([]bool, procs),
		finalized: make([]bool, procs),
		watched:   make([]bool, procs),
	}
	s.watch = newWatchHub(s, procs)
	go s.accept(ln)
	return s, nil
}

// ListenTCP serves the exchange over TCP too, for processes on other
// hosts, at each of ips on one port, and returns the port and the IPs it
// listens at. It listens only there, never on every interface: the job
// is told to reach gompirun at these. An IP that cannot be bound (an
// address that went away) is left out; none bound is an error.
func (s *Server) ListenTCP(ips []string) (int, []string, error) {
	var lastErr error
	for try := 0; try < 8; try++ {
		lns, bound, err := listenAll(ips)
		if err == nil {
			s.mu.Lock()
			s.tcp = append(s.tcp, lns...)
			s.mu.Unlock()
			for _, ln := range lns {
				go s.accept(ln)
			}
			return lns[0].Addr().(*net.TCPAddr).Port, bound, nil
		}
		lastErr = err
		if !errors.Is(err, syscall.EADDRINUSE) {
			break
		}
		// The port picked at the first IP is taken at another: pick again.
	}
	return 0, nil, fmt.Errorf("launch: exchange: %w", lastErr)
}

// listenAll listens at every IP it can of ips on one port, the one the
// kernel picks for the first it binds. A port taken at a later IP fails
// the whole (EADDRINUSE), so the caller can pick another.
func listenAll(ips []string) ([]net.Listener, []string, error) {
	var lns []net.Listener
	var bound []string
	port := "0"
	var firstErr error
	for _, ip := range ips {
		ln, err := net.Listen("tcp", net.JoinHostPort(ip, port))
		if err != nil {
			if errors.Is(err, syscall.EADDRINUSE) && len(lns) > 0 {
				for _, l := range lns {
					l.Close()
				}
				return nil, nil, err
			}
			firstErr = cmp.Or(firstErr, err)
			continue
		}
		if len(lns) == 0 {
			port = strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
		}
		lns = append(lns, ln)
		bound = append(bound, ip)
	}
	if len(lns) == 0 {
		if firstErr == nil {
			firstErr = errors.New("no address to listen at")
		}
		return nil, nil, firstErr
	}
	return lns, bound, nil
}

// RemoveWhenJoined removes paths (the socket, then the private directory
// holding it), in order, as soon as every process has connected, and, with
// watches (virtual runs of several processes), opened its watch
// connection: nobody dials the exchange after that, and the listening
// socket works on without its name, so that nothing of the job is left in
// the file system should gompirun be killed (SIGKILL) before it can clean
// up. They are removed before the last process gets its answer, so a
// process that has passed the init barrier knows they are gone. Call it
// before any process starts.
func (s *Server) RemoveWhenJoined(watches bool, paths ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.watches = watches
	s.removePaths = paths
}

// joinedLocked counts process p's hello (or watch) and removes the paths
// when it completes the job. The caller holds s.mu.
func (s *Server) joinedLocked(p int, watch bool) {
	switch {
	case watch && s.watched[p], !watch && s.connected[p]:
		return
	case watch:
		s.watched[p] = true
	default:
		s.connected[p] = true
	}
	if watch && !s.watches {
		return
	}
	s.joined++
	want := s.procs
	if s.watches {
		want *= 2
	}
	if s.joined == want && !s.removed {
		s.removed = true
		for _, path := range s.removePaths {
			os.Remove(path)
		}
	}
}

// Addr is the socket path processes dial.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Rejected counts connections closed for a missing or wrong token.
func (s *Server) Rejected() int64 { return s.rejected.Load() }

// State reports whether process p joined the job (connected to the
// exchange) and whether it reached the finalize barrier.
func (s *Server) State(p int) (joined, finalized bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.connected[p], s.finalized[p]
}

// Close stops accepting; processes still connected see their connection
// closed.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closed = true
	tcp := s.tcp
	s.mu.Unlock()
	for _, ln := range tcp {
		ln.Close()
	}
	s.watch.close()
	return s.ln.Close()
}

// helloTimeout bounds how long a connection may take to send its hello;
// maxPendingHellos bounds how many may be at it at once (internal/accept).
const (
	helloTimeout     = 5 * time.Second
	maxPendingHellos = 64
)

// Values of rawPutMin bytes or more travel as putraw (Client.Put), of at
// most maxRawPut: at about 60 bytes a rank's record, some 70 million ranks
// in a process.
const (
	rawPutMin = 64 << 10
	maxRawPut = 4 << 30
)

func (s *Server) accept(ln net.Listener) {
	accept.Loop(ln, maxPendingHellos, func(error) { s.acceptErrors.Add(1) }, func(c net.Conn, helloDone func()) {
		s.serve(c, helloDone)
	})
}

// helloLimit is the most a hello may take on the wire: the request's
// fields around a token of the job's (fixed) length. Until the token is
// checked, nothing more is read from a connection, whatever lengths its
// bytes announce: a hello claiming a gigabyte token used to be buffered
// whole.
func (s *Server) helloLimit() int64 { return int64(len(s.token)) + 64 }

// readHello decodes a connection's first request from r, reading at most
// limit bytes. It returns the decoder for the rest of the connection and
// the limit's reader, whose N the caller lifts once the peer is
// authenticated.
func readHello(r io.Reader, limit int64) (request, *msgpack.Decoder, *io.LimitedReader, error) {
	lr := &io.LimitedReader{R: r, N: limit}
	dec := msgpack.NewDecoder(lr)
	var hello request
	err := dec.Decode(&hello)
	return hello, dec, lr, err
}

func (s *Server) serve(c net.Conn, helloDone func()) {
	defer c.Close()
	enc := msgpack.NewEncoder(c)
	c.SetReadDeadline(time.Now().Add(helloTimeout))
	hello, dec, lr, err := readHello(c, s.helloLimit())
	helloDone()
	authentic := err == nil && subtle.ConstantTimeCompare([]byte(hello.Token), []byte(s.token)) == 1
	if authentic && hello.Op == "probe" {
		enc.Encode(&reply{}) // a proxy checking that this address reaches gompirun
		return
	}
	if !authentic || hello.Op != "hello" && hello.Op != "watch" || hello.Proc < 0 || hello.Proc >= s.procs {
		s.rejected.Add(1)
		return
	}
	lr.N = math.MaxInt64 // a process of the job: its records may be large
	c.SetReadDeadline(time.Time{})
	p := hello.Proc
	if hello.Op == "watch" {
		s.mu.Lock()
		s.joinedLocked(p, true)
		s.mu.Unlock()
		if enc.Encode(&reply{}) == nil {
			s.watch.serveWatch(p, c, dec)
		}
		return
	}
	s.mu.Lock()
	s.joinedLocked(p, false)
	s.mu.Unlock()
	if enc.Encode(&reply{}) != nil {
		return
	}
	for {
		var q request
		if err := dec.Decode(&q); err != nil {
			return
		}
		var r reply
		switch q.Op {
		case "put":
			s.mu.Lock()
			s.kv[q.Key] = q.Val
			s.mu.Unlock()
		case "putraw":
			if q.Size < 0 || q.Size > maxRawPut {
				enc.Encode(&reply{Err: fmt.Sprintf("a value of %d bytes (at most %d)", q.Size, maxRawPut)})
				return // the value's bytes would follow: the stream is lost
			}
			// Read into a buffer of the value's size, kept as the value:
			// msgpack would read a large string in growing pieces and
			// copy it once more (a million ranks' records are 60 MB).
			b := make([]byte, q.Size)
			if _, err := io.ReadFull(dec.Buffered(), b); err != nil {
				return
			}
			s.mu.Lock()
			s.kv[q.Key] = unsafe.String(unsafe.SliceData(b), len(b))
			s.mu.Unlock()
		case "barrier":
			r.KV = s.barrier(p, q.Key)
		case "fail":
			select {
			case s.Failures <- Failure{Proc: p, Rank: q.Rank, Code: q.Code, Msg: q.Msg}:
			default:
			}
		default:
			r.Err = fmt.Sprintf("unknown operation %q", q.Op)
		}
		if enc.Encode(&r) != nil {
			return
		}
	}
}

// barrier blocks until every process has called it with the same name and
// returns the key-value store as it stood then.
func (s *Server) barrier(p int, name string) map[string]string {
	ch := make(chan map[string]string, 1)
	s.mu.Lock()
	if name == BarrierFinalize {
		s.finalized[p] = true
	}
	w := append(s.waiting[name], ch)
	s.waiting[name] = w
	if len(w) == s.procs {
		snap := make(map[string]string, len(s.kv))
		for k, v := range s.kv {
			if !launcherOnly(k) {
				snap[k] = v
			}
		}
		for _, c := range w {
			c <- snap
		}
		delete(s.waiting, name)
	}
	s.mu.Unlock()
	return <-ch
}

// launcherOnly reports whether key holds a record that only gompirun reads
// (Server.Get): a process's virtual-time results or trace. Barriers do not
// hand them to every process: a trace can be gigabytes, and each process
// would receive every other's.
func launcherOnly(key string) bool {
	return strings.HasPrefix(key, virtualKeyPrefix) || strings.HasPrefix(key, traceKeyPrefix)
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (cw *countingWriter) Write(b []byte) (int, error) {
	n, err := cw.w.Write(b)
	cw.n += int64(n)
	return n, err
}

// Client is a process's connection to the exchange.
type Client struct {
	mu   sync.Mutex
	conn net.Conn
	enc  *msgpack.Encoder
	dec  *msgpack.Decoder
}

// exchangeAddr splits an exchange address into network and address:
// "tcp:HOST:PORT", "unix:PATH", or a plain unix socket path.
func exchangeAddr(a string) (network, addr string) {
	if rest, ok := strings.CutPrefix(a, "tcp:"); ok {
		return "tcp", rest
	}
	return "unix", strings.TrimPrefix(a, "unix:")
}

// Dial connects to the exchange of e's job and authenticates.
func Dial(e *Env) (*Client, error) {
	network, addr := exchangeAddr(e.Exchange)
	conn, err := net.DialTimeout(network, addr, 5*time.Second)
	if err != nil {
		return nil, fmt.Errorf("launch: cannot reach gompirun's exchange: %w", err)
	}
	c := &Client{conn: conn, enc: msgpack.NewEncoder(conn), dec: msgpack.NewDecoder(conn)}
	if _, err := c.call(&request{Op: "hello", Token: e.Token, Proc: e.Proc}); err != nil {
		conn.Close()
		return nil, fmt.Errorf("launch: exchange refused this process: %w", err)
	}
	return c, nil
}

func (c *Client) call(q *request) (map[string]string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.enc.Encode(q); err != nil {
		return nil, err
	}
	var r reply
	if err := c.dec.Decode(&r); err != nil {
		return nil, err
	}
	if r.Err != "" {
		return nil, errors.New(r.Err)
	}
	return r.KV, nil
}

// Put publishes key = val to every process of the job (visible after the
// next barrier). A value of rawPutMin bytes or more travels after its
// request rather than in it (putraw), so that the exchange reads it into
// a buffer of its size at once: a virtual process's records.
func (c *Client) Put(key, val string) error {
	if len(val) < rawPutMin {
		_, err := c.call(&request{Op: "put", Key: key, Val: val})
		return err
	}
	return c.PutFrom(key, int64(len(val)), func(w io.Writer) error {
		_, err := io.WriteString(w, val)
		return err
	})
}

// PutFrom publishes key = the size bytes write writes, as Put does a large
// value, without holding them: a virtual process writes its ranks' records
// as it encodes them. write must write exactly size bytes; otherwise the
// connection is out of step with the exchange, and PutFrom closes it and
// reports an error.
func (c *Client) PutFrom(key string, size int64, write func(w io.Writer) error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.enc.Encode(&request{Op: "putraw", Key: key, Size: size}); err != nil {
		return err
	}
	bw := bufio.NewWriterSize(c.conn, 64<<10)
	cw := &countingWriter{w: bw}
	err := write(cw)
	if err == nil && cw.n != size {
		err = fmt.Errorf("launch: value of %q: %d bytes written, %d announced", key, cw.n, size)
	}
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		c.conn.Close() // the exchange waits for bytes that will not come
		return err
	}
	var r reply
	if err := c.dec.Decode(&r); err != nil {
		return err
	}
	if r.Err != "" {
		return errors.New(r.Err)
	}
	return nil
}

// Barrier waits for every process and returns everything published before.
func (c *Client) Barrier(name string) (map[string]string, error) {
	kv, err := c.call(&request{Op: "barrier", Key: name})
	if err != nil {
		return nil, fmt.Errorf("launch: barrier %q: %w", name, err)
	}
	return kv, nil
}

// Fail reports that rank failed with msg and that the process is about to
// exit with code. Errors are ignored: the exit itself tells gompirun.
func (c *Client) Fail(rank, code int, msg string) {
	c.conn.SetDeadline(time.Now().Add(time.Second))
	c.call(&request{Op: "fail", Rank: rank, Code: code, Msg: msg})
}

// Close closes the connection.
func (c *Client) Close() error { return c.conn.Close() }

// LocalIP is this end's IP address of a TCP connection to the exchange, or
// "" over a unix socket. Peers on other hosts can reach this process at it:
// the route to gompirun passes through it.
func (c *Client) LocalIP() string {
	if a, ok := c.conn.LocalAddr().(*net.TCPAddr); ok {
		return a.IP.String()
	}
	return ""
}

// Probe reports whether the exchange of the job with token answers at addr
// ("HOST:PORT" over TCP), within timeout.
func Probe(addr, token string, timeout time.Duration) error {
	conn, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return err
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(timeout))
	if err := msgpack.NewEncoder(conn).Encode(&request{Op: "probe", Token: token}); err != nil {
		return err
	}
	var r reply
	if err := msgpack.NewDecoder(conn).Decode(&r); err != nil {
		return fmt.Errorf("no answer from a gompirun of this job: %w", err)
	}
	return nil
}
