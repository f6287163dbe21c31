package launch

import "strings"

// Job-wide quiescence detection for virtual-time runs (mpi/virtual_stall.go,
// docs/model.md "Stalls").
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

// Sample is a process's state as its agent saw it.
type Sample struct {
	Wave     uint64  `msgpack:"w,omitempty"` // the probe it answers; 0: sent unasked
	Quiet    bool    `msgpack:"q,omitempty"` // every unfinished rank parked, nothing queued
	Sent     int64   `msgpack:"s,omitempty"` // items sent to other processes
	Recvd    int64   `msgpack:"r,omitempty"` // items from other processes consumed, resolve orders included
	Activity uint64  `msgpack:"a,omitempty"` // sum of the ranks' nap counts: changes when any rank wakes
	Parked   int     `msgpack:"p,omitempty"` // unfinished ranks (all parked when Quiet)
	Cand     bool    `msgpack:"c,omitempty"` // a parked rank holds an early message others wait for
	T        float64 `msgpack:"t,omitempty"` // its virtual arrival time, the earliest here
	Rank     int     `msgpack:"k,omitempty"` // the rank holding it (the lowest on ties); without one, the lowest parked rank
	Blocked  string  `msgpack:"b,omitempty"` // when Quiet without candidate: what its ranks wait in
}

// same reports whether two samples describe the same state.
func same(a, b Sample) bool {
	a.Wave, b.Wave = 0, 0
	return a == b
}

// Order is what gompirun tells a process's agent.
type Order struct {
	Probe   uint64 `msgpack:"w,omitempty"` // answer with a Sample for this wave
	Resolve bool   `msgpack:"x,omitempty"` // Rank deals with its earliest early message
	Rank    int    `msgpack:"k,omitempty"`
}

// Action is what the Detector asks its driver to do.
type Action struct {
	Probe    uint64 // send Order{Probe} to every process still connected
	Resolve  bool   // send Order{Resolve, Rank} to process Proc
	Proc     int
	Rank     int
	Recheck  bool   // call Recheck after a pause (a deadlock is being confirmed)
	Deadlock bool   // the job is deadlocked: every unfinished rank waits, nothing can wake one (Proc, Rank: the first)
	Blocked  string // for Deadlock: the ranks and what they wait in
}

// DeadlockStrikes is how many consecutive waves, Recheck apart, must find
// the job parked with nothing in flight and no early message before the
// Detector reports a deadlock.
const DeadlockStrikes = 3

// Detector decides, from the samples of n processes, when the job is
// stalled and which rank resolves the stall. It is a pure state machine:
// its driver feeds it samples in arrival order and performs its actions.
type Detector struct {
	n       int
	latest  []Sample
	have    []bool
	gone    []bool
	wave    uint64 // wave in flight, 0 when none
	waves   uint64 // last wave number used
	base    []Sample
	resp    []Sample
	got     []bool
	issued  int64 // resolve orders given: they count as sent, their consumption as received
	strikes int
}

// NewDetector returns a detector for a job of n processes.
func NewDetector(n int) *Detector {
	return &Detector{n: n, latest: make([]Sample, n), have: make([]bool, n), gone: make([]bool, n),
		base: make([]Sample, n), resp: make([]Sample, n), got: make([]bool, n)}
}

// Resolved is the number of resolve orders given.
func (d *Detector) Resolved() int64 { return d.issued }

// Report takes process p's sample.
func (d *Detector) Report(p int, s Sample) Action {
	if p < 0 || p >= d.n || d.gone[p] {
		return Action{}
	}
	d.latest[p], d.have[p] = s, true
	if d.wave == 0 {
		return d.evaluate()
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

// Recheck starts another wave after a deadlock strike.
func (d *Detector) Recheck() Action {
	if d.wave != 0 {
		return Action{}
	}
	return d.evaluate()
}

// evaluate starts a wave when the latest samples say every process is quiet
// with nothing in flight. Those samples were all taken before the probe.
func (d *Detector) evaluate() Action {
	for p := range d.latest {
		if !d.have[p] || !d.latest[p].Quiet {
			return Action{}
		}
	}
	if !d.balanced(d.latest) {
		return Action{}
	}
	copy(d.base, d.latest)
	d.waves++
	d.wave = d.waves
	for p := range d.got {
		d.got[p] = d.gone[p]
		if d.gone[p] {
			d.resp[p] = d.latest[p]
		}
	}
	return Action{Probe: d.wave}
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
			return d.evaluate() // something happened: try again with what is known now
		}
	}
	if !d.balanced(d.resp) {
		d.strikes = 0
		return Action{}
	}
	best, parked := -1, 0
	for p, s := range d.resp {
		parked += s.Parked
		if s.Cand && (best < 0 || s.T < d.resp[best].T || s.T == d.resp[best].T && s.Rank < d.resp[best].Rank) {
			best = p
		}
	}
	if best >= 0 {
		d.strikes = 0
		d.issued++
		return Action{Resolve: true, Proc: best, Rank: d.resp[best].Rank}
	}
	if parked == 0 {
		d.strikes = 0
		return Action{} // every rank has finished
	}
	d.strikes++
	if d.strikes < DeadlockStrikes {
		return Action{Recheck: true}
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
	a.Blocked = strings.Join(blocked, ", ")
	return a
}
