package mpi

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gompi/gompi/internal/launch"
)

// Timelines (gompirun -trace): each traced rank records the MPI calls it
// makes as the user wrote them (Allreduce, not the sends inside it), the
// computation between them, and within a call the time it spends waiting
// (the waiting activity A_WT), on the rank's clock: virtual seconds in a
// virtual run, host seconds since the job began in a real one. A process
// publishes its ranks' events at the end (launch.TraceKey) and gompirun
// writes them in the Chrome trace event format.

// TraceEvent is one span of a rank's timeline, or one end of a message.
// Start and End are seconds on the rank's clock; Kind is "call" (an MPI
// call, Name its MPI name), "compute" (between calls), "wait" (inside a
// call), or "send" and "recv" for a point-to-point message of the program
// (not a collective's own), at Start: when it was sent, and when it
// reached the receiver (its target arrival time in a virtual run), ID
// naming the message on both sides. A and B are the call's arguments as
// the deadlock reports give them (peer and tag, or root), for the calls
// that have them.
type TraceEvent struct {
	Rank  int     `json:"r"`
	Kind  string  `json:"k"`
	Name  string  `json:"n,omitempty"`
	Start float64 `json:"s"`
	End   float64 `json:"e"`
	// HasArgs: A and B are the call's arguments.
	HasArgs bool   `json:"h,omitempty"`
	A       int32  `json:"a,omitempty"`
	B       int32  `json:"b,omitempty"`
	ID      uint64 `json:"i,omitempty"`
	// Algo and Bytes: a collective's algorithm and the bytes it handles
	// on this rank (its buffer), where the call chose one.
	Algo  string `json:"g,omitempty"`
	Bytes int    `json:"y,omitempty"`
}

// messageID names a message for the trace's arrows: its sender and the
// sender's request id (which every frame of the message carries).
func messageID(src int32, sendID uint64) uint64 { return uint64(src)<<40 | sendID&(1<<40-1) }

// traceMessage records one end of a program's point-to-point message
// (user contexts are even; a collective's is its communicator's + 1).
func (r *rank) traceMessage(kind traceKind, ctx uint32, src, dst int32, sendID uint64, arrival float64) {
	if ctx%2 != 0 || !r.trace.traced(int(src)) || !r.trace.traced(int(dst)) {
		return
	}
	t := max(r.traceNow(), arrival)
	r.trace.add(traceSpan{kind: kind, start: t, end: t, id: messageID(src, sendID)})
}

// TraceRecord is what a process publishes: its ranks' events, and how many
// each dropped past its share of the cap (in the binary form that
// DecodeTraceRecord reads: trace_wire.go).
type TraceRecord struct {
	Events  []TraceEvent `json:"events"`
	Dropped int64        `json:"dropped"`
}

// traceSpan is a TraceEvent as a rank keeps it until the job ends: its
// names as small numbers and no pointers, so that millions of them cost
// half the memory and nothing to the garbage collector's marking.
type traceSpan struct {
	start, end float64
	id         uint64 // a message's (send, recv)
	bytes      int64  // a collective's, with algo
	a, b       int32  // the call's arguments, with hasArgs
	kind       traceKind
	op         callOp // a call's
	algo       algo   // a collective's, or algoAuto
	hasArgs    bool
}

// traceKind is a TraceEvent's Kind.
type traceKind uint8

const (
	kindCall traceKind = iota
	kindCompute
	kindWait
	kindSend
	kindRecv
)

var traceKindNames = [...]string{kindCall: "call", kindCompute: "compute", kindWait: "wait", kindSend: "send", kindRecv: "recv"}

// event is s as rank's TraceEvent.
func (s *traceSpan) event(rank int) TraceEvent {
	e := TraceEvent{Rank: rank, Kind: traceKindNames[s.kind], Start: s.start, End: s.end, ID: s.id,
		HasArgs: s.hasArgs, A: s.a, B: s.b}
	if s.kind == kindCall {
		e.Name = callNames[s.op]
	}
	if s.algo != algoAuto {
		e.Algo, e.Bytes = s.algo.String(), int(s.bytes)
	}
	return e
}

// tracer is one rank's recorder (rank.trace; nil when the rank is not
// traced, so an untraced call pays one nil check).
type tracer struct {
	max int // events this rank may keep
	// mu guards events for a reader other than the rank: the partial
	// record of a job that fails while the rank runs (traceRecord).
	mu      sync.Mutex
	events  []traceSpan
	waits   []traceSpan // of the call in progress: kept with it, or dropped with it
	dropped int64
	depth   int // user-level calls in progress (an exported call may use another)
	call    userCall
	algo    algo // the collective algorithm the call in progress chose, and its bytes
	bytes   int
	start   float64        // the outermost call's start
	last    float64        // where the last call ended: computation runs from here
	real    time.Time      // the job's start, for host times (the same in every process)
	traced  func(int) bool // which ranks are traced: a message is drawn when both ends are
}

// now is the rank's clock for the trace.
func (r *rank) traceNow() float64 {
	if t, ok := r.clock.Now(); ok {
		return t
	}
	return time.Since(r.trace.real).Seconds()
}

func (t *tracer) add(e traceSpan) {
	if len(t.events) >= t.max {
		t.dropped++
		return
	}
	t.mu.Lock()
	t.events = append(t.events, e)
	t.mu.Unlock()
}

// traceEnter is the start of a user-level call (Comm.enter).
func (r *rank) traceEnter(u userCall) {
	t := r.trace
	if t.depth++; t.depth > 1 {
		return
	}
	now := r.traceNow()
	if now > t.last {
		t.add(traceSpan{kind: kindCompute, start: t.last, end: now})
	}
	t.call, t.start, t.algo, t.bytes = u, now, algoAuto, 0
}

// traceAlgo notes the algorithm a collective chose, and its bytes.
func (c *Comm) traceAlgo(a algo, bytes int) {
	if c == nil || c.r == nil || c.r.trace == nil || c.r.trace.depth == 0 {
		return
	}
	c.r.trace.algo, c.r.trace.bytes = a, bytes
}

// leave ends the user-level call c's rank is in (deferred after enter).
func (c *Comm) leave() {
	if c == nil || c.r == nil || c.r.trace == nil && c.r.rec == nil || c.r.nbc.cur != nil {
		return
	}
	c.r.traceLeave()
}

// traceCall brackets a nonblocking call on c for the trace: it reports
// whether the caller must defer c.leave().
func (c *Comm) traceCall(op callOp, a, b int) bool {
	if c == nil || c.r == nil || c.r.trace == nil && c.r.rec == nil {
		return false
	}
	if c.r.rec != nil {
		c.r.rec.enter(op, c, int32(a), int32(b))
	}
	if c.r.trace != nil {
		c.r.traceEnter(userCall{op: op, a: int32(a), b: int32(b)})
	}
	return true
}

// traceTest is traceCall for the Test family, which has no communicator.
func (r *rank) traceTest(op callOp) bool {
	if r == nil || r.trace == nil && r.rec == nil {
		return false
	}
	if r.rec != nil {
		r.rec.enter(op, nil, 0, 0)
	}
	if r.trace != nil {
		r.traceEnter(userCall{op: op})
	}
	return true
}

// traceEnterWait and traceLeave bracket the Wait calls, which record
// themselves in the rank (wait.go) rather than through Comm.enter.
func (r *rank) traceEnterWait() bool {
	if r.trace == nil && r.rec == nil {
		return false
	}
	if r.rec != nil {
		r.rec.enter(r.call.op, nil, 0, 0)
	}
	if r.trace != nil {
		r.traceEnter(r.call)
	}
	return true
}

// traceLeave ends the call for every reader of the stream: the record
// (record.go) and the timeline.
func (r *rank) traceLeave() {
	if r.rec != nil {
		r.rec.leave()
	}
	t := r.trace
	if t == nil || t.depth == 0 {
		return
	}
	if t.depth--; t.depth > 0 {
		return
	}
	now := r.traceNow()
	e := traceSpan{kind: kindCall, op: t.call.op, start: t.start, end: now, algo: algoAuto}
	e.a, e.b, e.hasArgs = t.call.args()
	if t.algo != algoAuto {
		e.algo, e.bytes = t.algo, int64(t.bytes)
	}
	if len(t.events)+1+len(t.waits) > t.max {
		t.dropped += int64(1 + len(t.waits))
	} else {
		t.mu.Lock()
		t.events = append(t.events, e)
		t.events = append(t.events, t.waits...)
		t.mu.Unlock()
	}
	t.waits = t.waits[:0]
	t.last = now
}

// args are the call's arguments worth showing, if any.
func (u userCall) args() (a, b int32, ok bool) {
	switch u.op {
	case callSend, callSsend, callRecv, callProbe, callSendrecv, callIsend, callIssend, callIrecv, callIprobe,
		callBcast, callReduce, callGather, callGatherv, callScatter, callScatterv:
		return u.a, u.b, true
	}
	return 0, 0, false
}

// traceWait records a waiting activity of the call in progress that lasted
// from start to the rank's clock now.
func (r *rank) traceWait(start float64) {
	if r.trace.depth == 0 {
		return // a poll's, outside any traced call
	}
	t := r.trace
	if now := r.traceNow(); now > start {
		if len(t.events)+len(t.waits) >= t.max {
			t.dropped++ // the call will not fit either
			return
		}
		t.waits = append(t.waits, traceSpan{kind: kindWait, start: start, end: now})
	}
}

// traceEnd closes the rank's timeline when its function returns: the
// computation since its last call.
func (r *rank) traceEnd() {
	t := r.trace
	if now := r.traceNow(); now > t.last {
		t.add(traceSpan{kind: kindCompute, start: t.last, end: now})
	}
}

// traceFromEnv reads launch.EnvTrace, "MAX:EPOCH:RANKS": the events each
// traced rank may keep, the job's start in Unix nanoseconds (host times
// count from it in every process), and which ranks record.
func traceFromEnv(spec string, size int) (Option, error) {
	f := strings.SplitN(spec, ":", 3)
	if len(f) != 3 {
		return nil, fmt.Errorf("%s=%q: want MAX:EPOCH:RANKS", launch.EnvTrace, spec)
	}
	max, err1 := strconv.Atoi(f[0])
	epoch, err2 := strconv.ParseInt(f[1], 10, 64)
	if err1 != nil || err2 != nil || max < 1 {
		return nil, fmt.Errorf("%s=%q: want MAX:EPOCH:RANKS", launch.EnvTrace, spec)
	}
	set, err := launch.ParseRankSet(f[2], size)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", launch.EnvTrace, err)
	}
	return func(c *config) { c.traced, c.traceMax, c.traceEpoch = set.Has, max, time.Unix(0, epoch) }, nil
}

// traced reports whether any rank of the process records a timeline.
func (w *world) traced() bool {
	for _, r := range w.ranks {
		if r.trace != nil {
			return true
		}
	}
	return false
}

// traceRecord gathers the events of the process's traced ranks, in the
// wire form (trace_wire.go). A rank that still runs (a partial record)
// only appends: the spans up to its length when read stay as they are.
func (w *world) traceRecord() ([]byte, error) {
	type ranked struct {
		rank  int
		spans []traceSpan
	}
	var all []ranked
	var dropped int64
	count := 0
	for _, r := range w.ranks {
		if t := r.trace; t != nil {
			t.mu.Lock()
			all = append(all, ranked{r.id, t.events[:len(t.events):len(t.events)]})
			t.mu.Unlock()
			count += len(all[len(all)-1].spans)
			if r.finished.Load() {
				dropped += t.dropped // the rank's own count: read once it is done
			}
		}
	}
	events := func(yield func(TraceEvent) bool) {
		for _, x := range all {
			for i := range x.spans {
				if !yield(x.spans[i].event(x.rank)) {
					return
				}
			}
		}
	}
	return encodeTraceRecord(dropped, count, events), nil
}
