package mpi

import (
	"errors"
	"fmt"
	"iter"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gompi/gompi/transport"
	"github.com/gompi/gompi/vtime"
)

// Virtual is a virtual-time run (the analogue of gompirun -virtual P): the
// target machine with the job placed on it, the CPU scale, and the clocks
// of the ranks this process hosts. Make one per world with NewVirtual, pass
// it with WithVirtual, and read Results (or Report) after the world has
// finished. Each process of a launched job reports its hosted ranks; the
// launcher merges the records of all processes with Summarize.
type Virtual struct {
	target   *vtime.Target
	cpuScale float64
	cpu      *vtime.ThreadCPU // nil when cpuScale is 0
	// newMeter makes rank id's computation meter (nil when cpuScale is
	// 0); tests replace it with a scripted one.
	newMeter func(id int) vtime.Meter
	// hostConcurrency is k_h: how many of the job's ranks the host
	// computes at once on the cores of this process's machine (see
	// SetHostConcurrency).
	hostConcurrency int

	mu  sync.Mutex
	err error // a rank outside the placed job
	// clocks holds rank id's clock at clocks[id] (nil for ranks other
	// processes host): a map keyed by rank cost more than the slice's 8
	// bytes a rank, and Results would have to sort what it iterates.
	clocks []*virtualClock
	first  time.Time // first E_Start in this process
	last   time.Time // last E_End
	// recordDir is where the ranks write their records (Record); "" when
	// not recording.
	recordDir string
	// rankConcurrency, when set (a replay), is each rank's k_h instead of
	// hostConcurrency: the recording's.
	rankConcurrency func(id int) int
}

// NewVirtual places a job of ranks ranks on machine m. cpuScale multiplies
// measured computation (the target CPU is cpuScale times slower than the
// host's); 0 ignores it, so that only messages and Elapse calls count and
// the prediction is exactly repeatable.
func NewVirtual(m *vtime.Machine, ranks int, cpuScale float64) (*Virtual, error) {
	if m == nil {
		return nil, fmt.Errorf("mpi: NewVirtual: nil machine")
	}
	if !(cpuScale >= 0) || math.IsInf(cpuScale, 1) {
		return nil, fmt.Errorf("mpi: cpu scale %g: want a number >= 0", cpuScale)
	}
	t, err := m.Place(ranks)
	if err != nil {
		return nil, err
	}
	v := &Virtual{target: t, cpuScale: cpuScale}
	if cpuScale > 0 {
		if v.cpu, err = vtime.NewThreadCPU(0); err != nil {
			return nil, fmt.Errorf("mpi: measuring computation: %v (cpu scale 0 needs no measurement)", err)
		}
		v.newMeter = func(int) vtime.Meter { return v.cpu.Meter() }
		// In one process every rank is measured on this machine's cores,
		// at most computeWidth at once.
		v.hostConcurrency = min(runtime.NumCPU(), v.computeWidth(), ranks)
	}
	return v, nil
}

// computeWidth is how many ranks this process computes at once: no more
// than hold a compute slot (vtime.ThreadCPU) nor than run Go code at once
// (GOMAXPROCS, which gompirun may have lowered since the slots were made).
func (v *Virtual) computeWidth() int {
	if v.cpu == nil {
		return 0
	}
	return min(v.cpu.Slots(), runtime.GOMAXPROCS(0))
}

// SetHostConcurrency sets k_h, how many of the job's ranks the host
// computes at once on the cores that measure this process's ranks. Measured
// computation is then scaled by the machine's contention factor S(k_t) /
// S(k_h) (vtime.Target.ContentionFactor, docs/model.md "Computation under
// contention"). NewVirtual assumes one process:
// min(NumCPU, GOMAXPROCS, ranks). Call it before the world runs; k < 1
// counts as 1. On a nil Virtual it does nothing.
func (v *Virtual) SetHostConcurrency(k int) {
	if v == nil {
		return
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	v.hostConcurrency = max(k, 1)
	for _, c := range v.clocks {
		if c != nil {
			c.m.SetHostConcurrency(v.hostConcurrency)
		}
	}
}

// WithVirtual runs the world in virtual time: every rank gets a virtual
// clock on v's target. The world's size must be the size v was made for.
// Whether a message goes eagerly or by rendezvous is part of what is
// predicted, so every message uses the target machine's eager limit for its
// route (vtime.Target.EagerLimit: the machine file's eager_limit within a
// node, net_eager_limit across the network), not gompi's: not
// WithEagerLimit, GOMPI_EAGER_LIMIT, nor a limit that depends on how the
// host spreads the ranks over processes. A nil v leaves the world in real
// mode, as WithClocks(nil) does.
func WithVirtual(v *Virtual) Option {
	if v == nil {
		return func(*config) {}
	}
	clocks := withClocks(func(id int) eventClock { return v.clock(id) })
	return func(c *config) {
		clocks(c)
		c.targetEager = v.target.EagerLimit
		v.mu.Lock()
		c.recordDir = v.recordDir
		v.mu.Unlock()
	}
}

func (v *Virtual) clock(id int) eventClock {
	if id < 0 || id >= v.target.Ranks() {
		v.mu.Lock()
		if v.err == nil {
			v.err = fmt.Errorf("mpi: virtual run placed for %d ranks hosts rank %d", v.target.Ranks(), id)
		}
		v.mu.Unlock()
		return nil // real mode for this rank; Run reports the error
	}
	var meter vtime.Meter
	if v.newMeter != nil {
		meter = v.newMeter(id)
	}
	v.mu.Lock()
	var tap *burstTap
	if v.recordDir != "" && meter != nil {
		tap = &burstTap{Meter: meter}
		meter = tap
	}
	c := &virtualClock{v: v, m: vtime.NewRank(v.target, id, meter, v.cpuScale)}
	if v.rankConcurrency != nil {
		c.m.SetHostConcurrency(v.rankConcurrency(id))
	} else {
		c.m.SetHostConcurrency(v.hostConcurrency)
	}
	if v.clocks == nil {
		v.clocks = make([]*virtualClock, v.target.Ranks())
	}
	v.clocks[id] = c
	v.mu.Unlock()
	return c
}

// Run runs fn on an in-process world of the job's size in virtual time
// (Run with WithVirtual).
func (v *Virtual) Run(fn func(c *Comm) error, opts ...Option) error {
	if v == nil {
		return errNilVirtual
	}
	err := Run(v.target.Ranks(), fn, append(opts, WithVirtual(v))...)
	if err == nil {
		err = v.Err()
	}
	return err
}

// Err reports a world that did not fit the placed job (a rank id outside
// it); such ranks ran without virtual time. A nil Virtual is an error
// itself.
func (v *Virtual) Err() error {
	if v == nil {
		return errNilVirtual
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.err
}

var errNilVirtual = errors.New("mpi: nil Virtual (make one with NewVirtual)")

// Target is the machine with the job placed on it (nil for a nil Virtual).
func (v *Virtual) Target() *vtime.Target {
	if v == nil {
		return nil
	}
	return v.target
}

// Results returns the records of the ranks this process hosts, by rank.
// Call it after the world has finished (Run has returned). A nil Virtual
// has none.
func (v *Virtual) Results() []RankRecord {
	if v == nil {
		return nil
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	return slices.AppendSeq(make([]RankRecord, 0, v.hosted()), v.records())
}

// withRecords calls fn with the number of ranks this process hosts and
// their records, Results without the slice, under the lock that Results
// takes.
func (v *Virtual) withRecords(fn func(n int, rs iter.Seq[RankRecord]) error) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	return fn(v.hosted(), v.records())
}

// hosted counts the ranks this process hosts; v.mu held.
func (v *Virtual) hosted() int {
	n := 0
	for _, c := range v.clocks {
		if c != nil {
			n++
		}
	}
	return n
}

// records yields the records of the ranks this process hosts, by rank;
// v.mu held while it runs.
func (v *Virtual) records() iter.Seq[RankRecord] {
	return func(yield func(RankRecord) bool) {
		for _, c := range v.clocks {
			if c != nil && !yield(c.record()) {
				return
			}
		}
	}
}

// Wall is the host time from this process's first rank start to its last
// rank end (0 for a nil Virtual).
func (v *Virtual) Wall() time.Duration {
	if v == nil {
		return 0
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.first.IsZero() || v.last.Before(v.first) {
		return 0
	}
	return v.last.Sub(v.first)
}

// Report summarises this process's ranks (the whole job for Run); the
// zero Report for a nil Virtual.
func (v *Virtual) Report() Report {
	if v == nil {
		return Report{}
	}
	return Summarize(v.target.Machine().Name, v.cpuScale, v.Results(), v.Wall().Seconds())
}

// record is the rank's record; the rank must be done (or never started).
func (c *virtualClock) record() RankRecord {
	res := RankRecord{RankResult: c.m.Result()}
	if r := c.r; r != nil {
		s := r.sensitive()
		res.EngineCounts = EngineCounts{
			Sent: r.stats.sent, SentBytes: r.stats.sentBytes,
			Recvd: r.stats.recvd, RecvBytes: r.stats.recvdBytes,
			Temporal: s.temporal, TemporalExact: s.temporalExact,
			Stalls: s.stalls, SpeculativeStalls: s.speculative,
			Gated: int64(r.stats.gated),
		}
	}
	return res
}

// virtualClock adapts a vtime.Rank to the engine's event points: it only
// converts transport headers into the model's terms.
//
// A virtual run holds one per rank: 32 bytes (TestVirtualClockSize).
type virtualClock struct {
	v *Virtual
	m *vtime.Rank
	r *rank
	// sentPub is r.stats.sent for other goroutines (progress samples),
	// updated as the rank leaves the engine.
	sentPub atomic.Int64
}

// attach is called by newWorld so the report can read the rank's
// counters, once the world's hosted ranks are known. A process's only
// rank keeps its thread between bursts (pin).
func (c *virtualClock) attach(r *rank) {
	c.r = r
	r.w.pollCost = max(c.v.target.Machine().Overhead.A, minPollCost)
	if len(r.w.ranks) == 1 {
		c.pin(r.inbox)
	}
}

// pin has the rank's meter keep its goroutine on one thread between
// bursts (vtime.Pinner), so that a short burst costs one system call
// instead of two, and lets go of it whenever the rank yields or sleeps in a wait
// (ib.SetOnYield): only where the process hosts no other rank, which would
// wait for the compute slot the meter keeps.
func (c *virtualClock) pin(ib *transport.Inbox) {
	m := c.m.Meter()
	if t, ok := m.(*burstTap); ok {
		m = t.Meter
	}
	if p, ok := m.(vtime.Pinner); ok {
		ib.SetOnYield(p.Pin())
	}
}

// abandon is called as the rank's goroutine exits: one that dies
// mid-burst gives back what its meter holds, and so does a pinned one
// after its last burst.
func (c *virtualClock) abandon() { c.m.Abandon() }

func (c *virtualClock) SimStart() {
	c.v.mu.Lock()
	if c.v.first.IsZero() {
		c.v.first = time.Now()
	}
	c.v.mu.Unlock()
	c.m.SimStart()
}

func (c *virtualClock) SimEnd() {
	c.m.SimEnd()
	c.v.mu.Lock()
	c.v.last = time.Now()
	c.v.mu.Unlock()
}

func (c *virtualClock) Begin(activity) { c.m.Begin() }

func (c *virtualClock) End(a activity, size int) float64 {
	if a == actDR {
		return c.m.EndRecv(int64(size))
	}
	c.m.EndSend(int64(size))
	return 0
}

// modelSize is a message's size in the model: REQ and ACK are zero-byte.
func modelSize(h *transport.Header) int64 {
	if h.Kind == transport.Data {
		return h.Size
	}
	return 0
}

func (c *virtualClock) Stamp(h *transport.Header) {
	h.Arrival = c.m.Stamp(modelSize(h), int(h.Dst))
}

func (c *virtualClock) WaitStart(done bool)                { c.m.WaitStart(done) }
func (c *virtualClock) Early(m *transport.Header) bool     { return c.m.Early(m.Arrival) }
func (c *virtualClock) DueNow(m *transport.Header) bool    { return c.m.DueNow(m.Arrival) }
func (c *virtualClock) DueInWait(m *transport.Header) bool { return c.m.DueInWait(m.Arrival) }
func (c *virtualClock) Found(m *transport.Header)          { c.m.Found(m.Arrival) }
func (c *virtualClock) WaitEnd()                           { c.m.WaitEnd() }
func (c *virtualClock) ForgetBefore(t float64)             { c.m.ForgetBefore(t) }
func (c *virtualClock) Forgot() float64                    { return c.m.Forgot() }
func (c *virtualClock) Ready(copied float64)               { c.m.Ready(copied) }
func (c *virtualClock) EnterEngine()                       { c.m.EnterEngine() }
func (c *virtualClock) LeaveEngine()                       { c.m.LeaveEngine(); c.noteSent() }
func (c *virtualClock) Now() (float64, bool)               { return c.m.Now(), true }
func (c *virtualClock) Bound() (float64, bool)             { return c.m.Bound() }
func (c *virtualClock) Elapse(d float64)                   { c.m.Elapse(d) }
func (c *virtualClock) Overhead(d float64)                 { c.m.Overhead(d) }

var modelKind = [...]vtime.MsgKind{transport.Data: vtime.Data, transport.Req: vtime.Req, transport.Ack: vtime.Ack}

func (c *virtualClock) Deal(m *transport.Header, related bool, reply *transport.Header, dataSize int, started float64) (done float64) {
	if int(m.Kind) >= len(modelKind) || modelKind[m.Kind] == 0 {
		return 0
	}
	t, done := c.m.Deal(vtime.Message{Kind: modelKind[m.Kind], Arrival: m.Arrival, Size: int64(dataSize), Peer: int(m.Src), Started: started}, related)
	if reply != nil {
		reply.Arrival = t
	}
	return done
}
