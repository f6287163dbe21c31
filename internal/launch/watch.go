package launch

import (
	"bufio"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
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

	asking   sync.Mutex // one question at a time (ask)
	joined   []bool     // processes that opened their watch connection
	answers  []Sample   // answers to the question under way (ask), by process
	answered []bool     // which processes answered it
	question chan<- int // the question under way, told of each answer; nil when none
}

type watchConn struct {
	c   net.Conn
	out *bufio.Writer // enc's buffer: an order goes out in one write
	enc *msgpack.Encoder
}

func newWatchHub(s *Server, procs int) *watchHub {
	return &watchHub{s: s, d: NewDetector(procs), conns: make([]*watchConn, procs), stop: make(chan struct{}),
		joined: make([]bool, procs), answers: make([]Sample, procs), answered: make([]bool, procs)}
}

// StallsResolved is how many stalls gompirun told a process to resolve,
// and how many of those speculatively (Detector.Tick).
func (s *Server) StallsResolved() (all, speculative int64) {
	s.watch.mu.Lock()
	defer s.watch.mu.Unlock()
	return s.watch.d.Resolved()
}

// serveWatch runs process p's watch connection until it closes.
func (h *watchHub) serveWatch(p int, c net.Conn, dec *msgpack.Decoder) {
	h.mu.Lock()
	if h.closed || h.conns[p] != nil {
		h.mu.Unlock()
		return
	}
	out := bufio.NewWriter(c)
	h.conns[p] = &watchConn{c: c, out: out, enc: msgpack.NewEncoder(out)}
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
		if smp.Described || smp.Progressed || smp.Published {
			h.answer(p, smp)
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
	if wc.enc.Encode(&o) != nil || wc.out.Flush() != nil {
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

// ask sends o to every connected process and waits at most wait for their
// answers; answered[p] says whether process p answered, with answers[p].
// A question waits for the one under way (a progress line's, say) to be
// answered. It returns nil when the server is closed.
func (s *Server) ask(o Order, wait time.Duration) (answers []Sample, answered []bool, joined []bool, gone []bool) {
	h := s.watch
	h.asking.Lock()
	defer h.asking.Unlock()
	notes := make(chan int, h.d.n)
	h.mu.Lock()
	if h.closed || h.question != nil {
		h.mu.Unlock()
		return nil, nil, nil, nil
	}
	h.question = notes
	asked := 0
	for p := range h.conns {
		h.answers[p], h.answered[p] = Sample{}, false
		if h.conns[p] != nil {
			h.send(p, o)
			asked++
		}
	}
	h.mu.Unlock()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for got := 0; got < asked; got++ {
		select {
		case <-notes:
		case <-timer.C:
			got = asked
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.question = nil
	gone = make([]bool, len(h.conns))
	for p := range h.conns {
		gone[p] = h.conns[p] == nil
	}
	return append([]Sample(nil), h.answers...), append([]bool(nil), h.answered...), append([]bool(nil), h.joined...), gone
}

// Describe asks every process what each of its ranks is doing and returns
// the answers, a line per rank, in process order, waiting at most wait
// for them; a process that has left, never connected or does not answer
// in time gets a line saying so. A job that timed out is reported so.
func (s *Server) Describe(wait time.Duration) []string {
	answers, answered, joined, gone := s.ask(Order{Describe: true}, wait)
	var lines []string
	for p := range answers {
		switch {
		case answered[p]:
			lines = append(lines, strings.Split(answers[p].States, "\n")...)
		case !joined[p]:
			lines = append(lines, fmt.Sprintf("process %d never connected to gompirun", p))
		case gone[p]:
			lines = append(lines, fmt.Sprintf("process %d: every rank finished", p))
		default:
			lines = append(lines, fmt.Sprintf("process %d did not answer within %v", p, wait))
		}
	}
	return lines
}

// Progress is how far a virtual run has got: its processes' answers to
// Order.Progress summed.
type Progress struct {
	Unfinished    int     // ranks of the processes that answered not yet finished
	Behind, Ahead float64 // the least and greatest virtual time an unfinished rank reached
	Messages      int64   // sent by the ranks of the processes that answered
	Missing       int     // processes still running that did not answer in time
}

// Progress asks every process how far its ranks have got, waiting at most
// wait. A process that has left has no unfinished rank; its messages are
// not counted.
func (s *Server) Progress(wait time.Duration) (Progress, bool) {
	answers, answered, _, gone := s.ask(Order{Progress: true}, wait)
	if answers == nil {
		return Progress{}, false // closed
	}
	var pr Progress
	first := true
	for p, a := range answers {
		if gone[p] {
			continue // finished (or never started)
		}
		if !answered[p] {
			pr.Missing++
			continue
		}
		pr.Unfinished += a.Ranks - a.Finished
		pr.Messages += a.Messages
		if a.Finished < a.Ranks {
			if first || a.Behind < pr.Behind {
				pr.Behind = a.Behind
			}
			first = false
			pr.Ahead = max(pr.Ahead, a.Ahead)
		}
	}
	return pr, true
}

// Partial asks every process still running to publish its records so
// far (the job is failing), waiting at most wait, and returns how many
// did.
func (s *Server) Partial(wait time.Duration) int {
	_, answered, _, _ := s.ask(Order{Partial: true}, wait)
	n := 0
	for _, a := range answered {
		if a {
			n++
		}
	}
	return n
}

// answer takes process p's answer to the question under way. The caller
// holds h.mu.
func (h *watchHub) answer(p int, smp Sample) {
	if h.question == nil || h.answered[p] {
		return
	}
	h.answers[p], h.answered[p] = smp, true
	h.question <- p // buffered for every process
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
	out  *bufio.Writer
	enc  *msgpack.Encoder
	dec  *msgpack.Decoder
	// epoll is the instance Pending asks, or -1; asked is when Pending
	// last asked it, since born (watch_pending.go).
	epoll atomic.Int32
	asked atomic.Int64
	born  time.Time
}

// DialWatch opens the watch connection of process e.Proc.
func DialWatch(e *Env) (*Watch, error) {
	network, addr := exchangeAddr(e.Exchange)
	conn, err := net.DialTimeout(network, addr, 5*time.Second)
	if err != nil {
		return nil, fmt.Errorf("launch: watch: %w", err)
	}
	// Encoded into a buffer and written at once: the encoder writes field
	// by field, a system call each straight onto the connection.
	out := bufio.NewWriter(conn)
	w := &Watch{conn: conn, born: time.Now(), out: out, enc: msgpack.NewEncoder(out), dec: msgpack.NewDecoder(conn)}
	conn.SetDeadline(time.Now().Add(5 * time.Second))
	var r reply
	err = w.enc.Encode(&request{Op: "watch", Token: e.Token, Proc: e.Proc})
	if err == nil {
		err = out.Flush()
	}
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
	w.watchPending()
	return w, nil
}

// Send reports a sample.
func (w *Watch) Send(s Sample) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.conn.SetWriteDeadline(time.Now().Add(watchWriteTimeout))
	if err := w.enc.Encode(&s); err != nil {
		return err
	}
	return w.out.Flush()
}

// Next waits for gompirun's next order; it fails once the connection is
// closed.
func (w *Watch) Next() (Order, error) {
	var o Order
	err := w.dec.Decode(&o)
	if err != nil {
		w.unwatchPending()
	}
	return o, err
}

// Close closes the connection; a blocked Next returns.
func (w *Watch) Close() error {
	w.unwatchPending()
	return w.conn.Close()
}

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
