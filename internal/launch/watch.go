package launch

import (
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/vmihailenco/msgpack/v5"
)

// The watch connection: a second connection from each process of a job to
// the exchange, on which the process's agent sends Samples and gompirun
// pushes Orders (quiesce.go).

// TickEvery is how often the Detector ticks (Detector.Tick).
const TickEvery = 200 * time.Millisecond

// watchWriteTimeout bounds a write to an agent, which always reads: a
// process that stops reading is gone or stuck, and its watch is closed.
const watchWriteTimeout = 2 * time.Second

// watchHub drives the Detector for the server: a goroutine per connection
// feeds it, under mu, and performs its actions.
type watchHub struct {
	s      *Server
	mu     sync.Mutex
	d      *Detector
	conns  []*watchConn
	ticker *time.Ticker // started with the first watch connection
	stop   chan struct{}
	closed bool

	joined    []bool     // processes that opened their watch connection
	states    []string   // answers to the Describe under way, by process
	described []bool     // which processes answered it
	describe  chan<- int // the Describe under way, told of each answer; nil when none
}

type watchConn struct {
	c   net.Conn
	enc *msgpack.Encoder
}

func newWatchHub(s *Server, procs int) *watchHub {
	return &watchHub{s: s, d: NewDetector(procs), conns: make([]*watchConn, procs), stop: make(chan struct{}),
		joined: make([]bool, procs), states: make([]string, procs), described: make([]bool, procs)}
}

// StallsResolved is how many stalls gompirun told a process to resolve,
// and how many of those speculatively (Detector.Tick).
func (s *Server) StallsResolved() (all, speculative int64) {
	s.watch.mu.Lock()
	defer s.watch.mu.Unlock()
	return s.watch.d.Resolved()
}

// serveWatch runs process p's watch connection until it closes.
func (h *watchHub) serveWatch(p int, c net.Conn, dec *msgpack.Decoder, enc *msgpack.Encoder) {
	h.mu.Lock()
	if h.closed || h.conns[p] != nil {
		h.mu.Unlock()
		return
	}
	h.conns[p] = &watchConn{c: c, enc: enc}
	h.joined[p] = true
	if a := h.d.InFlight(); a.Probe != 0 {
		// The wave went out before this process joined: it must answer
		// too (a wave waiting for it cost the job AbandonTicks, a second).
		h.send(p, Order{Probe: a.Probe, Arm: a.Arm, Settled: a.Settled})
	}
	if h.ticker == nil {
		h.ticker = time.NewTicker(TickEvery)
		go h.tick(h.ticker.C)
	}
	h.mu.Unlock()
	for {
		var smp Sample
		if err := dec.Decode(&smp); err != nil {
			break
		}
		h.mu.Lock()
		if smp.Described {
			h.answered(p, smp.States)
		} else {
			h.do(h.d.Report(p, smp))
		}
		h.mu.Unlock()
	}
	h.mu.Lock()
	h.conns[p] = nil
	h.do(h.d.Gone(p))
	h.mu.Unlock()
}

func (h *watchHub) tick(c <-chan time.Time) {
	for {
		select {
		case <-h.stop:
			return
		case <-c:
		}
		h.mu.Lock()
		h.do(h.d.Tick())
		h.mu.Unlock()
	}
}

// do performs a Detector action. The caller holds h.mu.
func (h *watchHub) do(a Action) {
	if h.closed {
		return
	}
	switch {
	case a.Probe != 0:
		for p := range h.conns {
			h.send(p, Order{Probe: a.Probe, Arm: a.Arm, Settled: a.Settled})
		}
	case a.Resolve:
		h.send(a.Proc, Order{Resolve: true, Rank: a.Rank, Speculative: a.Speculative, Until: a.Until, Settled: a.Settled})
	case a.Deadlock:
		select {
		case h.s.Failures <- Failure{Proc: a.Proc, Rank: a.Rank, Code: 1, Msg: DeadlockReport(a.Blocked)}:
		default:
		}
	}
}

// send writes an order to process p; a connection that cannot take it is
// closed (its reader then reports the process gone).
func (h *watchHub) send(p int, o Order) {
	wc := h.conns[p]
	if wc == nil {
		return
	}
	wc.c.SetWriteDeadline(time.Now().Add(watchWriteTimeout))
	if wc.enc.Encode(&o) != nil {
		wc.c.Close()
	}
}

// DeadlockReport is how a deadlock is reported: a line saying so, then a
// line per blocked rank naming the call it waits in (blocked, a line each).
func DeadlockReport(blocked string) string {
	return "deadlock: every unfinished rank is blocked and nothing is in flight:\n" + Indent(blocked)
}

// Indent indents every line of s, for the per-rank lines of a report.
func Indent(s string) string {
	return "  " + strings.ReplaceAll(s, "\n", "\n  ")
}

// Describe asks every process what each of its ranks is doing and returns
// the answers, a line per rank, in process order, waiting at most wait
// for them; a process that has left, never connected or does not answer
// in time gets a line saying so. A job that timed out is reported so.
func (s *Server) Describe(wait time.Duration) []string {
	h := s.watch
	answers := make(chan int, h.d.n)
	h.mu.Lock()
	if h.closed || h.describe != nil {
		h.mu.Unlock()
		return nil
	}
	h.describe = answers
	asked := 0
	for p := range h.conns {
		h.states[p], h.described[p] = "", false
		if h.conns[p] != nil {
			h.send(p, Order{Describe: true})
			asked++
		}
	}
	h.mu.Unlock()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for got := 0; got < asked; got++ {
		select {
		case <-answers:
		case <-timer.C:
			got = asked
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.describe = nil
	var lines []string
	for p := range h.conns {
		switch {
		case h.described[p]:
			lines = append(lines, strings.Split(h.states[p], "\n")...)
		case !h.joined[p]:
			lines = append(lines, fmt.Sprintf("process %d never connected to gompirun", p))
		case h.conns[p] == nil:
			lines = append(lines, fmt.Sprintf("process %d: every rank finished", p))
		default:
			lines = append(lines, fmt.Sprintf("process %d did not answer within %v", p, wait))
		}
	}
	return lines
}

// answered takes process p's answer to the Describe under way. The caller
// holds h.mu.
func (h *watchHub) answered(p int, states string) {
	if h.describe == nil || h.described[p] {
		return
	}
	h.states[p], h.described[p] = states, true
	h.describe <- p // buffered for every process
}

func (h *watchHub) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return
	}
	h.closed = true
	close(h.stop)
	if h.ticker != nil {
		h.ticker.Stop()
	}
	for _, wc := range h.conns {
		if wc != nil {
			wc.c.Close()
		}
	}
}

// Watch is a process's watch connection.
type Watch struct {
	conn net.Conn
	mu   sync.Mutex // serialises Send
	enc  *msgpack.Encoder
	dec  *msgpack.Decoder
}

// DialWatch opens the watch connection of process e.Proc.
func DialWatch(e *Env) (*Watch, error) {
	network, addr := exchangeAddr(e.Exchange)
	conn, err := net.DialTimeout(network, addr, 5*time.Second)
	if err != nil {
		return nil, fmt.Errorf("launch: watch: %w", err)
	}
	w := &Watch{conn: conn, enc: msgpack.NewEncoder(conn), dec: msgpack.NewDecoder(conn)}
	conn.SetDeadline(time.Now().Add(5 * time.Second))
	var r reply
	err = w.enc.Encode(&request{Op: "watch", Token: e.Token, Proc: e.Proc})
	if err == nil {
		err = w.dec.Decode(&r)
	}
	if err == nil && r.Err != "" {
		err = fmt.Errorf("%s", r.Err)
	}
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("launch: watch refused: %w", err)
	}
	conn.SetDeadline(time.Time{})
	return w, nil
}

// Send reports a sample.
func (w *Watch) Send(s Sample) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.conn.SetWriteDeadline(time.Now().Add(watchWriteTimeout))
	return w.enc.Encode(&s)
}

// Next waits for gompirun's next order; it fails once the connection is
// closed.
func (w *Watch) Next() (Order, error) {
	var o Order
	err := w.dec.Decode(&o)
	return o, err
}

// Close closes the connection; a blocked Next returns.
func (w *Watch) Close() error { return w.conn.Close() }

// Finish ends the process's reports: it closes the sending side only, so
// that gompirun reads every report sent before it sees the end and then
// closes the connection, which ends a blocked Next. Closing both sides at
// once could lose the last report: a socket closed with orders still
// unread in it is reset, and the reset can discard what gompirun had not
// read yet.
func (w *Watch) Finish() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if cw, ok := w.conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return w.conn.Close()
}
