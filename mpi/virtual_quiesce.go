package mpi

import (
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gompi/gompi/internal/launch"
	"github.com/gompi/gompi/transport"
)

// Job-wide stall detection for virtual runs spread over processes
// (virtual_stall.go; the decision is internal/launch/quiesce.go), and
// deadlock detection for every job gompirun runs over several processes.
//
// Real runs use the same agent and the same decision, for deadlocks only:
// no rank holds an early message, so a process that is quiet with nothing
// in flight for three waves is deadlocked (launch.DeadlockStrikes). A rank
// counts as parked only once it sleeps, after its spin (transport.Inbox),
// and its parks do not poke the agent, so a job that communicates pays an
// atomic count per frame between processes and an answer to gompirun's
// probe every launch.TickEvery; nothing per wait. Every process gompirun
// starts has an agent, so that a job that times out can say what each rank
// was doing (describe).
//
// Each process of a virtual job runs an agent: it samples its ranks when
// gompirun probes, and when one of them parks or finishes while a stall is
// in question (poke), and reports whether all are parked, the counters of
// what crossed processes, and its candidate (the earliest early message a
// parked rank holds). gompirun tells the process holding the job's
// earliest candidate to resolve the stall.
//
// What can wake a parked rank from another process, and where it is counted:
//   - frames (REQ, ACK, DATA over TCP or shared memory, whatever their
//     chunks): sent when a hosted rank hands one to a route to another
//     process (countingRoute, before the transport sees it), received when
//     the rank's waiting phase takes it from its inbox (rank.arrived). A
//     frame in a socket, a ring or an inbox is in flight.
//   - shared-memory completions, which release a sender's buffer lent to a
//     single-copy rendezvous: counted by transport/shm (Completions).
//   - resolve orders from gompirun: counted there as sent, here as received
//     once the rank has been woken.
//   - the gate's frames across processes (coll_bulk_procs.go): counted by
//     the gate when sent and when queued for its leader; while the leader
//     waits with one queued its process is busy (procGate.busy).
// Every send is counted before it can be received, every receipt after
// what it woke is visible (the rank no longer asleep, or in another nap).
// Nothing else crosses processes: TCP releases a borrowed payload when it
// has written it, on the sender's goroutine, and shared memory in virtual
// runs does so when the payload is in the ring, written into the receive
// buffer, or copied for lending (shm.Config.LendCopies); the completion of
// a lent copy then only recycles the copy, and is counted all the same.

// countingRoute counts the frames hosted ranks send to other processes.
type countingRoute struct {
	tr    transport.Transport
	small transport.SmallSender // tr's, or nil
	w     *world
}

func newCountingRoute(w *world, tr transport.Transport) *countingRoute {
	small, _ := tr.(transport.SmallSender)
	return &countingRoute{tr: tr, small: small, w: w}
}

func (c *countingRoute) Send(f *transport.Frame) error {
	if i := int(f.Src) - c.w.base; i >= 0 && i < len(c.w.ranks) {
		c.w.ranks[i].xout.Add(1)
	}
	return c.tr.Send(f)
}

func (c *countingRoute) Close() error { return c.tr.Close() }

// CopiesOnSend implements transport.SendCopier: as the route it counts for.
func (c *countingRoute) CopiesOnSend(dst int) bool {
	sc, ok := c.tr.(transport.SendCopier)
	return ok && sc.CopiesOnSend(dst)
}

// SendSmall implements transport.SmallSender: as the route it counts
// for, counting what it sends.
func (c *countingRoute) SendSmall(h *transport.Header, p []byte) (bool, error) {
	if c.small == nil {
		return false, nil
	}
	// Counted before it may arrive, as Send counts: a count of frames
	// received above the count sent would read as nothing in flight.
	var r *rank
	if i := int(h.Src) - c.w.base; i >= 0 && i < len(c.w.ranks) {
		r = c.w.ranks[i]
		r.xout.Add(1)
	}
	sent, err := c.small.SendSmall(h, p)
	if !sent && r != nil {
		r.xout.Add(-1) // a frame in flight that is not, for a moment: no harm
	}
	return sent, err
}

// SmallMax implements transport.SmallSender: the route's, 0 when it has
// no SmallSender.
func (c *countingRoute) SmallMax() int {
	if c.small == nil {
		return 0
	}
	return c.small.SmallMax()
}

// countRoutes wraps every route of t other than local.
func countRoutes(w *world, t *transport.Table, local transport.Transport) {
	wrapped := map[transport.Transport]transport.Transport{}
	for i, tr := range t.Routes {
		if tr == nil || tr == local {
			continue
		}
		c := wrapped[tr]
		if c == nil {
			c = newCountingRoute(w, tr)
			wrapped[tr] = c
		}
		t.Routes[i] = c
	}
}

// arrived counts a frame the rank takes from its inbox, or straight from
// a transport (takeDirect), that came from another process (worlds with
// an agent only).
func (r *rank) arrived(h *transport.Header) {
	if uint(int(h.Src)-r.w.base) >= uint(len(r.w.ranks)) {
		r.xin.Add(1)
	}
}

// quiesceAgent is a process's side of the job-wide stall detection.
type quiesceAgent struct {
	w           *world
	watch       *launch.Watch
	completions func() (owed, handled int64) // shared memory's; nil without
	poked       chan struct{}
	orders      atomic.Int64 // resolve orders carried out (woken ranks)
	dead        atomic.Bool  // the watch connection failed
	want        atomic.Bool  // probed since the last unasked report: report the next change
	armed       atomic.Bool  // a decision is under way (Order.Arm): report every change
	disarm      *time.Timer  // clears armed armTime after the last Order.Arm
	stop        chan struct{}
	wg          sync.WaitGroup

	mu      sync.Mutex // serialises sampling and sending
	last    launch.Sample
	sentAny bool
	busyAt  int // where mayBeQuiet last found a busy rank (an index of w.ranks)
}

// startQuiesce opens the watch connection and starts the agent.
func startQuiesce(env *launch.Env, w *world, completions func() (int64, int64)) (*quiesceAgent, error) {
	watch, err := launch.DialWatch(env)
	if err != nil {
		return nil, err
	}
	a := &quiesceAgent{w: w, watch: watch, completions: completions,
		poked: make(chan struct{}, 1), stop: make(chan struct{})}
	a.disarm = time.AfterFunc(time.Hour, func() { a.armed.Store(false) })
	a.disarm.Stop()
	a.wg.Add(2)
	go a.orderLoop()
	go a.pokeLoop()
	return a, nil
}

// working reports whether a is there and in touch with gompirun (nil-safe).
func (a *quiesceAgent) working() bool { return a != nil && !a.dead.Load() }

// lost is called when the watch connection fails while ranks run: parked
// ranks are woken to resolve their stalls themselves (resolveEarly).
func (a *quiesceAgent) lost() {
	if a.dead.Swap(true) {
		return
	}
	for _, r := range a.w.ranks {
		r.inbox.Kick()
	}
}

// armTime is how long an agent reports every change after gompirun's last
// probe for a decision under way (Order.Arm): the waves of one stall
// follow each other within milliseconds.
const armTime = 50 * time.Millisecond

// poke is called when a rank is about to sleep, or finished (nil-safe). It
// asks the agent to sample when gompirun may need to hear that the process
// is parked: a parked rank holds an early message others wait for (a
// stall candidate), gompirun probed the process since its last report, or
// gompirun is deciding (armed). A job without stalls thus costs no report
// per park, only answers to gompirun's periodic probes and a report after
// each.
func (a *quiesceAgent) poke() {
	if a == nil || a.w.stalls.Load() == 0 && !a.want.Load() && !a.armed.Load() {
		return
	}
	select {
	case a.poked <- struct{}{}:
	default:
	}
}

// pokeLoop reports the process quiet, unasked, when a sample says so and
// differs from what gompirun last heard.
func (a *quiesceAgent) pokeLoop() {
	defer a.wg.Done()
	for {
		select {
		case <-a.stop:
			return
		case <-a.poked:
		}
		a.mu.Lock()
		if s := a.sample(); s.Quiet && (!a.sentAny || s != a.last) {
			a.send(s)
			a.want.Store(false)
		}
		a.mu.Unlock()
	}
}

// send reports s; the caller holds a.mu.
func (a *quiesceAgent) send(s launch.Sample) {
	if err := a.watch.Send(s); err != nil {
		a.fail()
		return
	}
	s.Wave = 0
	a.last, a.sentAny = s, true
}

// fail handles a broken watch connection: unless the process is finishing
// (finish closed it), its ranks go back to resolving stalls themselves.
func (a *quiesceAgent) fail() {
	select {
	case <-a.stop:
	default:
		a.lost()
	}
}

// orderLoop carries out gompirun's orders until the connection closes.
func (a *quiesceAgent) orderLoop() {
	defer a.wg.Done()
	for {
		o, err := a.watch.Next()
		if err != nil {
			a.fail()
			return
		}
		switch {
		case o.Probe != 0:
			if o.Settled > 0 {
				a.w.settle(o.Settled)
			}
			a.mu.Lock()
			var s launch.Sample
			select {
			case <-a.stop:
				// Finishing: the last sample stands (finish). A fresh scan
				// could catch a counter moving and say "not quiet", and
				// as the process's last word it would keep the job from
				// ever being seen settled.
				s = a.last
			default:
				a.want.Store(true) // before the sample: a rank parking after it must report
				s = a.sample()
			}
			s.Wave = o.Probe
			a.send(s)
			if o.Arm {
				a.armed.Store(true)
				a.disarm.Reset(armTime)
			}
			a.mu.Unlock()
		case o.Describe:
			a.mu.Lock()
			a.describe()
			a.mu.Unlock()
		case o.Progress:
			a.mu.Lock()
			if err := a.watch.Send(a.w.progressSample()); err != nil {
				a.fail()
			}
			a.mu.Unlock()
		case o.Partial:
			a.w.partial.publish() // outside a.mu: it talks to the exchange
			a.mu.Lock()
			if err := a.watch.Send(launch.Sample{Published: true}); err != nil {
				a.fail()
			}
			a.mu.Unlock()
		case o.Resolve:
			if i := o.Rank - a.w.base; i >= 0 && i < len(a.w.ranks) {
				r := a.w.ranks[i]
				r.guess.Store(o.Speculative)
				r.until.Store(math.Float64bits(o.Until))
				r.resolve.Store(anyPark) // gompirun saw the job parked: for the park the rank is in or enters next
				r.inbox.Kick()
			}
			a.orders.Add(1) // after the wake-up: see the file comment
			if o.Settled > 0 {
				a.w.settle(o.Settled)
			}
		}
	}
}

// mayBeQuiet looks for a rank that is neither parked in a blocking wait
// nor computing with a bound, and stops at the first: a busy process is
// seen busy without summing the counters, which reads every rank. While
// gompirun waits for a report (want) every park pokes the agent, so a
// sample that always read every rank took a share of the processor from
// the ranks that grew with their number (docs/model.md, "Two processes:
// the agent's scans").
//
// The scan starts at the rank the last one stopped at: while a few
// thousand of a process's ranks are awake and the rest parked, a scan
// from the first rank passed thousands of parked ones to find one, at
// every park (docs/model.md, "Two processes: the agent's scans"). The
// caller holds a.mu.
func (a *quiesceAgent) mayBeQuiet() bool {
	if b := a.w.bulk; b != nil && b.procs.busy() {
		return false // a leader at the gate is about to take a frame (coll_bulk_procs.go)
	}
	n := len(a.w.ranks)
	for k := range n {
		i := a.busyAt + k
		if i >= n {
			i -= n
		}
		if r := a.w.ranks[i]; !r.quietNow() {
			a.busyAt = i
			return false
		}
	}
	return true
}

// quietNow reports whether r lets its process be quiet, as mayBeQuiet
// sees it: it has finished, sleeps in a blocking wait with nothing
// queued, or computes with a bound.
func (r *rank) quietNow() bool {
	if r.finished.Load() {
		return true
	}
	if asleep, _ := r.inbox.Asleep(); asleep && r.blockedIn.Load() != 0 {
		return true
	}
	_, ok := r.computingBound()
	return ok
}

// counters sums what crossed processes.
func (a *quiesceAgent) counters() (sent, recvd int64) {
	for _, r := range a.w.ranks {
		sent += r.xout.Load()
		recvd += r.xin.Load()
	}
	if a.completions != nil {
		owed, handled := a.completions()
		sent += owed
		recvd += handled
	}
	if b := a.w.bulk; b != nil && b.procs != nil {
		sent += b.procs.sent.Load()
		recvd += b.procs.recvd.Load()
	}
	return sent, recvd + a.orders.Load()
}

// sample takes the process's state. Quiet needs every unfinished rank
// asleep in a blocking wait with nothing queued, and the counters unchanged
// across the scan. The nap counts make a rank that woke and slept again in
// between two samples visible (launch.Sample.Activity).
func (a *quiesceAgent) sample() launch.Sample {
	if a.w.local {
		// The whole job is in this process, which decides itself
		// (world.watchDeadlock, resolveStall); its agent only describes
		// its ranks when gompirun asks.
		return launch.Sample{}
	}
	if !a.mayBeQuiet() {
		return launch.Sample{}
	}
	sent, recvd := a.counters()
	s := launch.Sample{Quiet: true, Sent: sent, Recvd: recvd, Rank: -1}
	lowest := -1
	for _, r := range a.w.ranks {
		if r.finished.Load() {
			continue
		}
		asleep, nap := r.inbox.Asleep()
		if !asleep || r.blockedIn.Load() == 0 {
			// Computing between MPI calls: quiet, with a bound on what
			// it does next (computingBound); anything else is not.
			b, ok := r.computingBound()
			if !ok {
				return launch.Sample{}
			}
			if s.Computing == 0 || b < s.Bound {
				s.Bound = b
			}
			s.Computing++
			s.Activity += nap
			continue
		}
		s.Parked++
		s.Activity += nap
		if lowest < 0 {
			lowest = r.id
		}
		if b := r.stallMin.Load(); b != 0 {
			if t := math.Float64frombits(b); !s.Cand || t < s.T {
				if s.Cand {
					s.Next = s.T
				}
				s.Cand, s.T, s.Rank = true, t, r.id
			} else if s.Next == 0 || t < s.Next {
				s.Next = t
			}
		}
	}
	if sent2, recvd2 := a.counters(); sent2 != sent || recvd2 != recvd {
		return launch.Sample{}
	}
	if !s.Cand {
		s.Rank = lowest
		if s.Parked > 0 && s.Computing == 0 {
			s.Blocked = a.blocked()
		}
	}
	return s
}

// blocked names the parked ranks and the user-level calls they wait in,
// one line each, for a deadlock report.
func (a *quiesceAgent) blocked() string { return a.states(false) }

// states has a line per hosted rank saying what it does (rank.state), for
// a timeout report, or with finished false only the unfinished ranks: the
// first reportLines and a count of the rest.
func (a *quiesceAgent) states(finished bool) string {
	var b []string
	n := 0
	for _, r := range a.w.ranks {
		if !finished && r.finished.Load() {
			continue
		}
		if n++; n <= reportLines {
			b = append(b, r.state())
		}
	}
	if n > reportLines {
		b = append(b, fmt.Sprintf("%d more ranks of this process", n-reportLines))
	}
	return strings.Join(b, "\n")
}

// reportLines bounds a process's lines in a report: a virtual process may
// host a million ranks.
const reportLines = 8

// describe answers gompirun's request for what every rank does (a job
// that timed out). The caller holds a.mu.
func (a *quiesceAgent) describe() {
	if err := a.watch.Send(launch.Sample{Described: true, States: a.states(true)}); err != nil {
		a.fail()
	}
}

// finish sends the process's last sample (every rank has finished) and
// closes the watch connection. gompirun keeps that sample for the process
// from then on, so it must say quiet: a scan during which a counter moved
// (a peer completing this process's last shared-memory send) says nothing,
// and is taken again until the counters hold still. Left unquiet, it kept
// the job from ever being seen settled: a rank of another process that
// polled on then waited for the fallback at every poll.
func (a *quiesceAgent) finish() {
	close(a.stop)
	a.disarm.Stop()
	a.mu.Lock()
	s := a.sample()
	for try := 0; !s.Quiet && !a.w.local && try < finishTries; try++ {
		time.Sleep(finishRetry)
		s = a.sample()
	}
	a.send(s)
	a.mu.Unlock()
	a.watch.Finish() // gompirun reads that sample, then closes: orderLoop ends
	ended := make(chan struct{})
	go func() { a.wg.Wait(); close(ended) }()
	select {
	case <-ended:
	case <-time.After(finishWait):
		a.watch.Close()
		<-ended
	}
	a.watch.Close()
}

// finishTries and finishRetry bound how long finish takes its last sample
// again while counters move (they stop once peers have handled what this
// process sent).
const (
	finishTries = 200
	finishRetry = 100 * time.Microsecond
)

// finishWait bounds how long finish waits for gompirun to close the watch
// connection after the last sample.
const finishWait = time.Second
