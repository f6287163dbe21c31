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
// (virtual_stall.go; the decision is internal/launch/quiesce.go).
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
// Every send is counted before it can be received, every receipt after
// what it woke is visible (the rank no longer asleep, or in another nap).
// Nothing else crosses processes: TCP releases a borrowed payload when it
// has written it, on the sender's goroutine, and a shared-memory send
// without single-copy does so when the payload is in the ring.

// countingRoute counts the frames hosted ranks send to other processes.
type countingRoute struct {
	tr transport.Transport
	w  *world
}

func (c *countingRoute) Send(f *transport.Frame) error {
	if i := int(f.Src) - c.w.base; i >= 0 && i < len(c.w.ranks) {
		c.w.ranks[i].xout.Add(1)
	}
	return c.tr.Send(f)
}

func (c *countingRoute) Close() error { return c.tr.Close() }

// countRoutes wraps every route of t other than local.
func countRoutes(w *world, t *transport.Table, local transport.Transport) {
	wrapped := map[transport.Transport]transport.Transport{}
	for i, tr := range t.Routes {
		if tr == nil || tr == local {
			continue
		}
		c := wrapped[tr]
		if c == nil {
			c = &countingRoute{tr: tr, w: w}
			wrapped[tr] = c
		}
		t.Routes[i] = c
	}
}

// arrived counts a frame the rank takes from its inbox that came from
// another process (virtual runs with an agent only).
func (r *rank) arrived(f *transport.Frame) {
	if uint(int(f.Src)-r.w.base) >= uint(len(r.w.ranks)) {
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
			a.mu.Lock()
			a.want.Store(true) // before the sample: a rank parking after it must report
			s := a.sample()
			s.Wave = o.Probe
			a.send(s)
			if o.Arm {
				a.armed.Store(true)
				a.disarm.Reset(armTime)
			}
			a.mu.Unlock()
		case o.Resolve:
			if i := o.Rank - a.w.base; i >= 0 && i < len(a.w.ranks) {
				r := a.w.ranks[i]
				r.guess.Store(o.Speculative)
				r.resolve.Store(true)
				r.inbox.Kick()
			}
			a.orders.Add(1) // after the wake-up: see the file comment
		}
	}
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
	return sent, recvd + a.orders.Load()
}

// sample takes the process's state. Quiet needs every unfinished rank
// asleep in a blocking wait with nothing queued, and the counters unchanged
// across the scan. The nap counts make a rank that woke and slept again in
// between two samples visible (launch.Sample.Activity).
func (a *quiesceAgent) sample() launch.Sample {
	sent, recvd := a.counters()
	s := launch.Sample{Quiet: true, Sent: sent, Recvd: recvd, Rank: -1}
	lowest := -1
	for _, r := range a.w.ranks {
		if r.finished.Load() {
			continue
		}
		asleep, nap := r.inbox.Asleep()
		if !asleep || r.blockedIn.Load() == 0 {
			return launch.Sample{}
		}
		s.Parked++
		s.Activity += nap
		if lowest < 0 {
			lowest = r.id
		}
		if b := r.stallMin.Load(); b != 0 {
			if t := math.Float64frombits(b); !s.Cand || t < s.T {
				s.Cand, s.T, s.Rank = true, t, r.id
			}
		}
	}
	if sent2, recvd2 := a.counters(); sent2 != sent || recvd2 != recvd {
		return launch.Sample{}
	}
	if !s.Cand {
		s.Rank = lowest
		if s.Parked > 0 {
			s.Blocked = a.blocked()
		}
	}
	return s
}

// blocked names the parked ranks and what they wait in, for a deadlock
// report: the first eight and a count of the rest.
func (a *quiesceAgent) blocked() string {
	var b []string
	n := 0
	for _, r := range a.w.ranks {
		if r.finished.Load() {
			continue
		}
		if n++; n <= 8 {
			b = append(b, fmt.Sprintf("rank %d in %s", r.id, waitSite(r.blockedIn.Load()-1)))
		}
	}
	if n > 8 {
		b = append(b, fmt.Sprintf("%d more", n-8))
	}
	return strings.Join(b, "; ")
}

// finish sends the process's last sample (every rank has finished) and
// closes the watch connection.
func (a *quiesceAgent) finish() {
	close(a.stop)
	a.disarm.Stop()
	a.mu.Lock()
	a.send(a.sample())
	a.mu.Unlock()
	a.watch.Close()
	a.wg.Wait()
}
