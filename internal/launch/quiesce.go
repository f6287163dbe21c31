package launch

import (
	"math"
	"strings"
)

// Job-wide quiescence detection: the stalls of virtual-time runs
// (mpi/virtual_stall.go, docs/model.md "Stalls") and the deadlocks of every
// run over several processes (docs/mpi.md "Deadlocks").
//
// A stall of Algorithm 2 is resolved when every unfinished rank of the job
// is parked in a blocking wait and nothing is in flight between processes.
// No process sees that alone. Each process's agent samples its ranks and
// counts what crosses processes (frames sent and dispatched, shared-memory
// completions, resolve orders consumed); gompirun's Detector decides with
// two waves (Mattern's four counters): a wave of samples all taken before
// gompirun sends a probe, and the answers to that probe, all taken after.
// When every process is quiet in both, with the same counters and the same
// activity signature (its ranks' nap counts: a rank that woke in between
// has another), no process did anything between the two samples, so at
// the moment the probe went out every rank was parked; and since the
// counters of that moment balance (every send counted before it can be
// received), nothing was in flight either. Then the rank holding the
// earliest early message (by its virtual arrival time; ties: lowest rank)
// is told to deal with it, exactly as one process does.
//
// The order also carries two bounds for that rank and for every process.
// Until is the earliest pending event of every other rank: until the rank
// sends a message, nothing can reach any rank before it, so the rank may
// act on its own events earlier than Until (a poll, a choice among
// candidates) without another wave: the conservative protocol's lookahead
// (mpi/virtual_waitany.go). Settled, sent with every probe, is the time
// of the last exact resolution: every message still to come arrives no
// earlier, so ranks forget the waits before it (mpi.rank.forgetSettled).

// Sample is a process's state as its agent saw it.
type Sample struct {
	Wave     uint64  `msgpack:"w,omitempty"` // the probe it answers; 0: sent unasked
	Quiet    bool    `msgpack:"q,omitempty"` // every unfinished rank parked or computing (below), nothing queued
	Sent     int64   `msgpack:"s,omitempty"` // items sent to other processes
	Recvd    int64   `msgpack:"r,omitempty"` // items from other processes consumed, resolve orders included
	Activity uint64  `msgpack:"a,omitempty"` // sum of the ranks' nap counts: changes when any rank wakes
	Parked   int     `msgpack:"p,omitempty"` // unfinished ranks (all parked when Quiet)
	Cand     bool    `msgpack:"c,omitempty"` // a parked rank holds an early message others wait for
	T        float64 `msgpack:"t,omitempty"` // its virtual arrival time, the earliest here
	Rank     int     `msgpack:"k,omitempty"` // the rank holding it (the lowest on ties); without one, the lowest parked rank
	Next     float64 `msgpack:"n,omitempty"` // the earliest candidate of the process's other ranks; 0: none
	// Computing counts the ranks computing between MPI calls with nothing
	// queued (virtual runs): not parked, but all they do next happens at
	// Bound or later, the least of their clocks (mpi.rank.computingBound),
	// which grows as they compute. A candidate earlier than every Bound of
	// the job can be resolved without waiting for them.
	Computing int     `msgpack:"m,omitempty"`
	Bound     float64 `msgpack:"l,omitempty"`
	Blocked   string  `msgpack:"b,omitempty"` // when Quiet without candidate: what its ranks wait in, a line each

	// An answer to Order.Describe, which the Detector never sees.
	Described bool   `msgpack:"o,omitempty"`
	States    string `msgpack:"d,omitempty"` // what each of its ranks does, a line each

	// An answer to Order.Progress (virtual runs), which the Detector
	// never sees: the process's ranks, how many finished, the least and
	// the greatest virtual time its unfinished ranks reached, and the
	// messages its ranks sent.
	Progressed bool    `msgpack:"P,omitempty"`
	Ranks      int     `msgpack:"R,omitempty"`
	Finished   int     `msgpack:"F,omitempty"`
	Behind     float64 `msgpack:"B,omitempty"`
	Ahead      float64 `msgpack:"A,omitempty"`
	Messages   int64   `msgpack:"M,omitempty"`
	// An answer to Order.Partial: the process published its partial
	// records (VirtualKey, TraceKey).
	Published bool `msgpack:"U,omitempty"`
}

// same reports whether two samples describe the same state. A computing
// rank's bound grows between samples of the same state.
func same(a, b Sample) bool {
	a.Wave, b.Wave = 0, 0
	a.Bound, b.Bound = 0, 0
	return a == b
}

// Order is what gompirun tells a process's agent.
type Order struct {
	Probe       uint64 `msgpack:"w,omitempty"` // answer with a Sample for this wave
	Arm         bool   `msgpack:"a,omitempty"` // a decision is under way: report changes for a while
	Resolve     bool   `msgpack:"x,omitempty"` // Rank deals with its earliest early message
	Rank        int    `msgpack:"k,omitempty"`
	Speculative bool   `msgpack:"g,omitempty"` // the fallback, not a detected stall
	Describe    bool   `msgpack:"d,omitempty"` // answer with what each rank does (Sample.States)
	Progress    bool   `msgpack:"p,omitempty"` // answer with the ranks' progress (Sample.Progressed)
	Partial     bool   `msgpack:"q,omitempty"` // the job is failing: publish the records so far (Sample.Published)
	// Until, with Resolve: the earliest pending event of every other rank
	// (+Inf: none); 0 for a speculative order.
	Until float64 `msgpack:"u,omitempty"`
	// Settled, with Probe and Resolve: the time of the last exact
	// resolution, a lower bound on every arrival still to come; 0: none yet.
	Settled float64 `msgpack:"e,omitempty"`
}

// Action is what the Detector asks its driver to do.
type Action struct {
	Probe       uint64 // send Order{Probe, Arm} to every process still connected
	Arm         bool
	Resolve     bool // send Order{Resolve, Rank, Speculative, Until, Settled} to process Proc
	Speculative bool
	Proc        int
	Rank        int
	Until       float64 // Order.Until
	Settled     float64 // Order.Settled, with Probe and Resolve
	Deadlock    bool    // the job is deadlocked: every unfinished rank waits, nothing can wake one (Proc, Rank: the first)
	Blocked     string  // for Deadlock: the ranks and what they wait in, a line each
}

// The driver calls Tick every TickEvery of host time (watch.go). Ticks
// refresh what gompirun knows (a probe wave when none is in flight, so a
// lost report delays a decision by a tick at most), abandon a wave a
// process does not answer, and bound the fallback.
const (
	// DeadlockStrikes is how many consecutive waves, a tick apart at least,
	// must find the same state, the job parked with nothing in flight and
	// no early message, before the Detector reports a deadlock.
	DeadlockStrikes = 3
	// After more than StuckTicks ticks with every process parked, its
	// samples unchanged, and counters that do not balance (a miscount:
	// nothing stays in flight that long), the holder of the earliest early
	// message is told to resolve anyway, speculatively.
	StuckTicks = 3
	// AbandonTicks is how many ticks a wave may wait for its answers.
	AbandonTicks = 5
)

// Detector decides, from the samples of n processes, when the job is
// stalled and which rank resolves the stall. It is a pure state machine:
// its driver feeds it samples in arrival order and performs its actions.
type Detector struct {
	n       int
	latest  []Sample
	have    []bool
	gone    []bool
	wave    uint64 // wave in flight, 0 when none
	armed   bool   // the wave in flight's Arm
	waves   uint64 // last wave number used
	base    []Sample
	resp    []Sample
	got     []bool
	issued  int64   // resolve orders given: they count as sent, their consumption as received
	guessed int64   // of which speculative
	settled float64 // the candidate time of the last exact resolve order

	strikes   int // consecutive deadlock verdicts, all on the samples strikeAt
	strikeAt  []Sample
	stuck     int // consecutive ticks all quiet and unbalanced, on the samples stuckAt
	stuckAt   []Sample
	waveTicks int // ticks the wave in flight has waited
}

// NewDetector returns a detector for a job of n processes.
func NewDetector(n int) *Detector {
	return &Detector{n: n, latest: make([]Sample, n), have: make([]bool, n), gone: make([]bool, n),
		base: make([]Sample, n), resp: make([]Sample, n), got: make([]bool, n),
		strikeAt: make([]Sample, n), stuckAt: make([]Sample, n)}
}

// InFlight is the probe of the wave in flight (Action.Probe 0: none). A
// process whose connection opens while a wave is out was not sent its
// probe: the driver sends it, or the wave would wait for an answer until
// abandoned (AbandonTicks).
func (d *Detector) InFlight() Action {
	if d.wave == 0 {
		return Action{}
	}
	return Action{Probe: d.wave, Arm: d.armed, Settled: d.settled}
}

// Resolved is the number of resolve orders given, and of those the
// speculative ones.
func (d *Detector) Resolved() (all, speculative int64) { return d.issued, d.guessed }

// Report takes process p's sample.
func (d *Detector) Report(p int, s Sample) Action {
	if p < 0 || p >= d.n || d.gone[p] {
		return Action{}
	}
	d.latest[p], d.have[p] = s, true
	if d.wave == 0 {
		if a := d.evaluate(); a.Probe != 0 || !s.Quiet || !s.Cand {
			return a
		}
		// A process parked holding a stall candidate, and what is known of
		// the others may be stale: agents report unasked only when they
		// hold a candidate or were probed since their last report. Ask
		// everyone (which also makes each report its next change).
		return d.startWave(true)
	}
	if s.Wave != d.wave || d.got[p] {
		return Action{} // unasked, or for an older wave: kept as the latest
	}
	d.resp[p], d.got[p] = s, true
	for q := range d.got {
		if !d.got[q] {
			return Action{}
		}
	}
	return d.conclude()
}

// Gone says process p closed its connection; its last sample stands for it
// from now on (a process leaves once its ranks have finished, after a last
// sample).
func (d *Detector) Gone(p int) Action {
	if p < 0 || p >= d.n || d.gone[p] {
		return Action{}
	}
	d.gone[p] = true
	if d.wave != 0 && !d.got[p] {
		d.resp[p], d.got[p] = d.latest[p], true
		for q := range d.got {
			if !d.got[q] {
				return Action{}
			}
		}
		return d.conclude()
	}
	if d.wave == 0 {
		return d.evaluate()
	}
	return Action{}
}

// Tick is called every TickEvery.
func (d *Detector) Tick() Action {
	if d.wave != 0 {
		if d.waveTicks++; d.waveTicks < AbandonTicks {
			return Action{}
		}
		d.wave = 0 // a process did not answer: start over
	}
	if d.allQuiet(d.latest) && !d.balanced(d.latest) {
		if d.stuck > 0 && sameAll(d.stuckAt, d.latest) {
			d.stuck++
		} else {
			d.stuck = 1
			copy(d.stuckAt, d.latest)
		}
		if d.stuck > StuckTicks {
			d.stuck = 0
			if best := earliest(d.latest); best >= 0 {
				d.issued++
				d.guessed++
				return Action{Resolve: true, Speculative: true, Proc: best, Rank: d.latest[best].Rank}
			}
		}
	} else {
		d.stuck = 0
	}
	return d.startWave(false)
}

// again follows a wave that decided nothing. A process that reported
// unasked while the wave was out may have been holding a candidate: its
// report then started no wave, so one starts now. Otherwise the reports to
// come (agents report changes while armed) or the next tick start one.
func (d *Detector) again() Action {
	if a := d.evaluate(); a.Probe != 0 {
		return a
	}
	for p := range d.latest {
		if s := d.latest[p]; s.Quiet && s.Cand && !same(s, d.resp[p]) {
			return d.startWave(true)
		}
	}
	return Action{}
}

// evaluate starts a wave when the latest samples say every process is quiet
// with nothing in flight, and the wave could decide something. Those
// samples were all taken before the probe.
func (d *Detector) evaluate() Action {
	if !d.allQuiet(d.latest) || !d.balanced(d.latest) || !decisive(d.latest) {
		return Action{}
	}
	return d.startWave(true)
}

// decisive reports whether a wave that found the job as ss says could end
// in an order (conclude): a candidate earlier than every computing rank's
// bound, or every unfinished rank parked. Without that the wave would
// conclude nothing, and in a virtual run whose ranks take turns computing
// and waiting (quiet, both) every report would start another: armed waves
// one after the other, each asking every process for its changes, and
// each taking a processor from a rank (docs/model.md, "Virtual as fast as
// real"). The next tick's wave, or a report with a candidate, looks again.
func decisive(ss []Sample) bool {
	bound, computing := computingBound(ss)
	if best := earliest(ss); best >= 0 {
		return ss[best].T < bound
	}
	return !computing
}

// startWave probes every process. arm says a decision is under way (not
// the periodic refresh of Tick): agents then report changes for a while.
func (d *Detector) startWave(arm bool) Action {
	left := false
	for p := range d.gone {
		left = left || !d.gone[p]
	}
	if !left {
		return Action{} // every process has left: nothing to ask
	}
	copy(d.base, d.latest)
	d.waves++
	d.wave = d.waves
	d.armed = arm
	d.waveTicks = 0
	for p := range d.got {
		d.got[p] = d.gone[p]
		if d.gone[p] {
			d.resp[p] = d.latest[p]
		}
	}
	return Action{Probe: d.wave, Arm: arm, Settled: d.settled}
}

func (d *Detector) allQuiet(ss []Sample) bool {
	for p := range ss {
		if !d.have[p] || !ss[p].Quiet {
			return false
		}
	}
	return true
}

func sameAll(a, b []Sample) bool {
	for i := range a {
		if !same(a[i], b[i]) {
			return false
		}
	}
	return true
}

// computingBound is the least Bound of the processes with computing
// ranks (+Inf without any), and whether there are any.
func computingBound(ss []Sample) (bound float64, computing bool) {
	bound = math.Inf(1)
	for _, s := range ss {
		if s.Computing > 0 {
			bound, computing = min(bound, s.Bound), true
		}
	}
	return bound, computing
}

// earliest is the process holding the earliest candidate (ties: lowest
// rank), or -1.
func earliest(ss []Sample) int {
	best := -1
	for p, s := range ss {
		if s.Cand && (best < 0 || s.T < ss[best].T || s.T == ss[best].T && s.Rank < ss[best].Rank) {
			best = p
		}
	}
	return best
}

// until is the earliest candidate of every rank but the one process best
// names (Order.Until): the others' in their samples, and those of best's
// other ranks in its Next.
func until(ss []Sample, best int) float64 {
	t := math.Inf(1)
	for p, s := range ss {
		if p != best && s.Cand {
			t = min(t, s.T)
		}
	}
	if n := ss[best].Next; n > 0 {
		t = min(t, n)
	}
	return t
}

// balanced reports whether everything sent has been consumed.
func (d *Detector) balanced(ss []Sample) bool {
	sent, recvd := d.issued, int64(0)
	for _, s := range ss {
		sent += s.Sent
		recvd += s.Recvd
	}
	return sent == recvd
}

// conclude judges a completed wave.
func (d *Detector) conclude() Action {
	d.wave = 0
	for p := range d.resp {
		if !d.resp[p].Quiet || !same(d.resp[p], d.base[p]) {
			d.strikes = 0
			return d.again() // something happened: try again with what is known now
		}
	}
	if !d.balanced(d.resp) {
		d.strikes = 0
		return d.again() // in flight then; reports that came meanwhile may say it arrived
	}
	d.stuck = 0
	bound, computing := computingBound(d.resp)
	if best := earliest(d.resp); best >= 0 && d.resp[best].T >= bound {
		d.strikes = 0
		return Action{} // a computing rank may come first: the next tick looks again
	}
	if best := earliest(d.resp); best >= 0 {
		d.strikes = 0
		d.issued++
		d.settled = max(d.settled, d.resp[best].T)
		return Action{Resolve: true, Proc: best, Rank: d.resp[best].Rank, Until: min(until(d.resp, best), bound), Settled: d.settled}
	}
	parked := 0
	for _, s := range d.resp {
		parked += s.Parked
	}
	if parked == 0 || computing {
		d.strikes = 0
		return Action{} // every rank has finished, or some compute
	}
	if d.strikes > 0 && sameAll(d.strikeAt, d.resp) {
		d.strikes++
	} else {
		d.strikes = 1
		copy(d.strikeAt, d.resp)
	}
	if d.strikes < DeadlockStrikes {
		return Action{} // the next tick's wave looks again
	}
	a := Action{Deadlock: true, Proc: -1}
	var blocked []string
	for p, s := range d.resp {
		if s.Parked > 0 && a.Proc < 0 {
			a.Proc, a.Rank = p, s.Rank
		}
		if s.Blocked != "" {
			blocked = append(blocked, s.Blocked)
		}
	}
	a.Blocked = strings.Join(blocked, "\n")
	return a
}
