// Package tcp is the transport between processes on different hosts (and,
// when forced with GOMPI_TRANSPORT=tcp, on one host). Each process listens
// on one socket; the first frame from process A to process B opens a
// connection between them, which then carries A's frames to B and, once B
// has it, B's frames to A. One connection per pair, as MPICH keeps, lets an
// answer carry the TCP acknowledgement of the message it answers: with a
// connection per direction every message also cost a bare ACK segment
// (measured: 0.6 us a round trip on loopback). Should A and B dial each
// other at the same moment, each sends on the connection it opened and
// reads both. Either way all of A's frames to B travel on one connection,
// so the order of frames between any two ranks is the order of its byte
// stream.
//
// A connection starts with a handshake carrying the job's token: nothing
// outside the job can inject or read messages. Then it carries frames: the
// encoded header (transport.EncodeHeader) followed by the payload. A
// goroutine per connection delivers its frames to the destination
// rank's inbox (reader.go). A connection that breaks or carries a malformed
// frame is reported through Config.OnError, which fails the job: never a
// hang.
package tcp

import (
	"crypto/subtle"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gompi/gompi/internal/accept"
	"github.com/gompi/gompi/transport"
)

// magic opens every handshake: protocol name and version.
const magic = "GOMPI\x01"

// handshakeTimeout bounds how long an incoming connection may take to
// authenticate, and how long a dial may take.
const handshakeTimeout = 5 * time.Second

// maxPendingHandshakes bounds the incoming connections authenticating at
// once: a flood of connections that never finish their handshake holds at
// most this many descriptors, each for at most handshakeTimeout, while
// the job's own peers wait in the listen backlog.
const maxPendingHandshakes = 64

// Config describes this process's end of the transport.
type Config struct {
	Token   string             // the job's secret; peers must present it
	Proc    int                // this process's index in the job
	Base    int                // world rank of Inboxes[0]
	Inboxes []*transport.Inbox // the ranks this process hosts
	Listen  string             // address to bind; default "127.0.0.1:0"
	// OnError is told when an incoming connection breaks mid-frame or
	// carries a malformed frame: the job cannot go on correctly.
	OnError func(error)
}

// Peer is another process of the job: where it listens and which world
// ranks it hosts.
type Peer struct {
	Addr string
	Base int
	N    int
}

// Transport reaches the ranks of other processes.
type Transport struct {
	cfg   Config
	ln    net.Listener
	peers []Peer // indexed by process, set by SetPeers
	ready chan struct{}
	out   []outConn

	mu      sync.Mutex
	in      map[net.Conn]bool
	closing atomic.Bool

	rejected     atomic.Int64
	malformed    atomic.Int64
	acceptErrors atomic.Int64

	byFd  map[int32]*inConn // connections by socket, for Poll; under mu
	watch atomic.Int32      // epoll instance watching every connection, for Pending (pending.go); -1 if none
}

// outConn is where frames to one process go. Its connection, once set,
// never changes, and is closed only under mu (closeOut): the writer writes
// to the descriptor directly, which must not be closed, or reused, under
// it.
type outConn struct {
	mu  sync.Mutex
	c   net.Conn
	err error        // sticky: once a connection broke, sends fail fast
	w   *frameWriter // made on first use: 4 KiB per peer actually written to
}

// closeOut closes c, which connects to process p, and fails further sends
// to p if c is their connection.
func (t *Transport) closeOut(c net.Conn, p int) {
	o := &t.out[p]
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.c == c && o.err == nil {
		o.err = net.ErrClosed
	}
	c.Close()
}

// Listen opens the listening socket. Call SetPeers once every process's
// address is known; until then incoming connections wait.
func Listen(cfg Config) (*Transport, error) {
	if cfg.Listen == "" {
		cfg.Listen = "127.0.0.1:0"
	}
	if cfg.Token == "" {
		return nil, errors.New("tcp: a job token is required")
	}
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return nil, fmt.Errorf("tcp: listen: %w", err)
	}
	t := &Transport{cfg: cfg, ln: ln, ready: make(chan struct{}), in: map[net.Conn]bool{}, byFd: map[int32]*inConn{}}
	t.watch.Store(newWatch())
	go t.accept()
	return t, nil
}

// Addr is the address peers dial.
func (t *Transport) Addr() string { return t.ln.Addr().String() }

// Rejected counts incoming connections closed for failing the handshake.
func (t *Transport) Rejected() int64 { return t.rejected.Load() }

// Malformed counts authenticated connections closed for a bad frame.
func (t *Transport) Malformed() int64 { return t.malformed.Load() }

// SetPeers installs the job's processes, indexed by process, in rank order.
func (t *Transport) SetPeers(peers []Peer) {
	t.peers = peers
	t.out = make([]outConn, len(peers))
	close(t.ready)
}

// procOf returns the process hosting world rank r.
func (t *Transport) procOf(r int) int {
	i := sort.Search(len(t.peers), func(i int) bool { return t.peers[i].Base+t.peers[i].N > r })
	if i == len(t.peers) || r < t.peers[i].Base {
		return -1
	}
	return i
}

// Send implements transport.Transport. It writes the frame before it
// returns, so a borrowed payload is released at once; on success the frame
// goes back to the pool, on error it is left to the caller.
func (t *Transport) Send(f *transport.Frame) error {
	p := t.procOf(int(f.Dst))
	if p < 0 || p == t.cfg.Proc {
		return &transport.UnreachableError{Dst: int(f.Dst)}
	}
	o := &t.out[p]
	o.mu.Lock()
	if o.c == nil && o.err == nil {
		var c net.Conn
		if c, o.err = t.dial(p); o.err == nil {
			o.c = c
			if !t.track(c) {
				o.err = net.ErrClosed
			} else {
				go t.receive(c, p)
			}
		}
	}
	err := o.err
	if err == nil {
		if o.w == nil {
			o.w = newFrameWriter(o.c)
		}
		if err = o.w.writeFrame(o.c, f); err != nil {
			o.err = err
		}
	}
	o.mu.Unlock()
	if err != nil {
		// The frame stays the caller's: the engine releases it on error.
		return fmt.Errorf("tcp: to rank %d (process %d at %s): %w", f.Dst, p, t.peers[p].Addr, err)
	}
	f.Free()
	return nil
}

// CopiesOnSend implements transport.SendCopier: Send writes a frame for
// another process's rank to its connection (the kernel copies it into
// the socket's buffer, or Send waits until it has) and keeps nothing.
func (t *Transport) CopiesOnSend(dst int) bool {
	p := t.procOf(dst)
	return p >= 0 && p != t.cfg.Proc
}

func (t *Transport) dial(p int) (net.Conn, error) {
	if t.closing.Load() {
		return nil, net.ErrClosed
	}
	c, err := net.DialTimeout("tcp", t.peers[p].Addr, handshakeTimeout)
	if err != nil {
		return nil, err
	}
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetNoDelay(true)
	}
	hello := make([]byte, 0, len(magic)+2+len(t.cfg.Token)+4)
	hello = append(hello, magic...)
	hello = binary.LittleEndian.AppendUint16(hello, uint16(len(t.cfg.Token)))
	hello = append(hello, t.cfg.Token...)
	hello = binary.LittleEndian.AppendUint32(hello, uint32(t.cfg.Proc))
	c.SetDeadline(time.Now().Add(handshakeTimeout))
	var ok [1]byte
	if _, err = c.Write(hello); err == nil {
		_, err = io.ReadFull(c, ok[:])
	}
	if err == nil && ok[0] != 1 {
		err = errors.New("handshake refused")
	}
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("handshake: %w", err)
	}
	c.SetDeadline(time.Time{})
	return c, nil
}

// accept serves incoming connections until the listener closes, riding
// out failed accepts (internal/accept).
func (t *Transport) accept() {
	accept.Loop(t.ln, maxPendingHandshakes, t.onAcceptError, func(c net.Conn, handshaken func()) {
		if t.track(c) {
			t.serve(c, handshaken)
		}
		handshaken()
	})
}

// onAcceptError counts failed accepts (tests flood the listener into
// EMFILE and wait for one).
func (t *Transport) onAcceptError(error) { t.acceptErrors.Add(1) }

// track records c so that Close closes it, or closes it at once and
// reports false when the transport is already closing.
func (t *Transport) track(c net.Conn) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closing.Load() {
		c.Close()
		return false
	}
	t.in[c] = true
	return true
}

// handshake authenticates an incoming connection and returns the peer's
// process index.
func (t *Transport) handshake(c net.Conn) (int, error) {
	c.SetDeadline(time.Now().Add(handshakeTimeout))
	defer c.SetDeadline(time.Time{})
	var head [len(magic) + 2]byte
	if _, err := io.ReadFull(c, head[:]); err != nil {
		return 0, err
	}
	if string(head[:len(magic)]) != magic {
		return 0, errors.New("not a gompi connection")
	}
	// The token's length is known: read no more than that before the
	// peer has proved it belongs to the job.
	if int(binary.LittleEndian.Uint16(head[len(magic):])) != len(t.cfg.Token) {
		return 0, errors.New("wrong job token")
	}
	tok := make([]byte, len(t.cfg.Token))
	var proc [4]byte
	if _, err := io.ReadFull(c, tok); err != nil {
		return 0, err
	}
	if _, err := io.ReadFull(c, proc[:]); err != nil {
		return 0, err
	}
	if subtle.ConstantTimeCompare(tok, []byte(t.cfg.Token)) != 1 {
		return 0, errors.New("wrong job token")
	}
	p := int(binary.LittleEndian.Uint32(proc[:]))
	select {
	case <-t.ready:
	case <-time.After(handshakeTimeout):
		return 0, errors.New("peers unknown")
	}
	if p < 0 || p >= len(t.peers) || p == t.cfg.Proc {
		return 0, fmt.Errorf("bad process index %d", p)
	}
	_, err := c.Write([]byte{1})
	return p, err
}

// serve authenticates an incoming connection, adopts it for sending to its
// process unless a connection to that process exists already, and delivers
// its frames until it ends.
func (t *Transport) serve(c net.Conn, handshaken func()) {
	p, err := t.handshake(c)
	handshaken()
	if err != nil {
		t.rejected.Add(1)
		t.untrack(c)
		return
	}
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetNoDelay(true)
	}
	// Adopt c for sending unless this process has its own connection to
	// p. A Send holding the lock is dialing p or writing to it, and leaves
	// o.c or o.err set either way, so there is nothing to adopt; waiting
	// for it would deadlock when its write waits for p to read, while p's
	// sender waits the same way for this goroutine to start reading c.
	o := &t.out[p]
	if o.mu.TryLock() {
		if o.c == nil && o.err == nil {
			o.c = c
		}
		o.mu.Unlock()
	}
	t.receive(c, p)
}

// receive delivers the frames arriving on c from process p until the
// connection ends, then closes it.
func (t *Transport) receive(c net.Conn, p int) {
	defer func() {
		t.closeOut(c, p)
		t.untrack(c)
	}()
	ic, err := newInConn(t, c, p)
	if err != nil {
		t.rejected.Add(1)
		return
	}
	ic.loop()
}

func (t *Transport) untrack(c net.Conn) {
	t.mu.Lock()
	delete(t.in, c)
	t.mu.Unlock()
	c.Close()
}

// Close stops listening and closes every connection.
func (t *Transport) Close() error {
	t.closing.Store(true)
	err := t.ln.Close()
	t.stopDraining()
	// A writer waiting on a full socket holds its connection's lock: end
	// its wait first, or closing would wait for a peer that may never read.
	t.mu.Lock()
	for c := range t.in {
		c.SetWriteDeadline(time.Now())
	}
	t.mu.Unlock()
	// Sending connections first, each under its lock (see outConn).
	for i := range t.out {
		o := &t.out[i]
		o.mu.Lock()
		if o.c != nil {
			o.c.Close()
		}
		o.err = net.ErrClosed
		o.mu.Unlock()
	}
	t.mu.Lock()
	for c := range t.in {
		c.Close()
	}
	t.mu.Unlock()
	t.closeWatch()
	return err
}
