package transport

import (
	"runtime"
	"sync/atomic"
	"time"
)

// Poller is a source of frames that the owning rank drains itself instead of
// having a goroutine push them (a shared-memory ring, say): the inbox calls
// Poll from its owner's goroutine whenever its queue is empty. Poll delivers
// what it finds with Inbox.Deliver and reports whether it found anything.
type Poller interface {
	Poll(ib *Inbox) bool
}

// SleepWatcher is an optional extension of Poller for sources whose senders
// cannot Kick the owner themselves (a sender in another process): the inbox
// calls Sleeping(ib, true) just before its final check before sleeping, and
// Sleeping(ib, false) once it is awake again, so the source can arrange for a
// wake-up only while someone actually sleeps.
type SleepWatcher interface {
	Sleeping(ib *Inbox, asleep bool)
}

// Handoff is a source whose frames a goroutine of this process delivers
// (a TCP connection's reader) and that can tell, cheaply, that frames wait
// for that goroutine. A spinning owner holds a processor that goroutine may
// need: Go's scheduler polls the network only when a processor has nothing
// else to run, so with one processor the frames would wait until the spin
// ends. Park checks its Handoff sources while it spins; when one reports
// Pending, Park polls it if it is also a Poller (frames then arrive on the
// owner's goroutine) and otherwise, or if that delivered nothing, sleeps at
// once, handing its processor over.
type Handoff interface {
	Pending() bool
}

// Inbox is a rank's message buffer: frames from every transport, in arrival
// order. Any goroutine may Deliver or Kick; only the owning rank's goroutine
// may call Next and Park.
//
// Its fields come in three groups (TestInboxLayout): what the producers
// touch, what the owner sets before it starts, and what the owner writes
// as it takes frames and sleeps. The middle group keeps the last a cache
// line away from the first, whatever the allocator's alignment, so that a
// producer and the owner write no line in common but the stack's.
type Inbox struct {
	// The producers' (Deliver): the owner writes sleeping and spinning
	// only as it goes to sleep or spins, when producers should look.
	pushed   mpscStack
	control  func(*Frame)
	wake     wakeup
	sleeping atomic.Bool
	spinning atomic.Bool // in a Counted spin
	group    *SpinGroup
	direct   DirectFunc
	landings landings // landing.go

	// Set before the owner starts.
	pollers  []Poller
	handoffs []Handoff
	spin     Spin
	onYield  func()

	// The owner's.
	taken mpscList
	naps  atomic.Uint64 // times the owner went to sleep
	// bystanderNaps counts the spins' naps for bystanders (owner only;
	// for tests, as naps counts sleeps).
	bystanderNaps uint64
}

// NewInbox returns an empty inbox that spins SpinIters checks before it
// sleeps.
func NewInbox() *Inbox {
	return &Inbox{spin: Spin{Checks: SpinIters}}
}

// SpinGroup is shared by the inboxes of ranks hosted by one process. It
// counts the ranks that are awake; while more are awake than there are
// processors, a waiting rank sleeps at once instead of spinning, because its
// spin could only steal a processor from a rank with work to do. (A
// million-rank virtual run would otherwise spend its time spinning.)
type SpinGroup struct {
	awake atomic.Int64
	procs int64
}

// NewSpinGroup returns a group of ranks awake ranks sharing procs
// processors.
func NewSpinGroup(ranks, procs int) *SpinGroup {
	g := &SpinGroup{procs: int64(procs)}
	g.awake.Store(int64(ranks))
	return g
}

// Leave removes a rank that has finished from the awake count.
func (g *SpinGroup) Leave() { g.awake.Add(-1) }

// SetOnYield has the owner call fn whenever it is about to give up its
// processor while it waits: before each yield of a spin and before it
// sleeps (before the final poll, whose SleepWatchers may wait themselves),
// in the inbox's waits and, through Yielding, in the transports' and
// before the owner switches to a coroutine (mpi's nonblocking
// collectives: the runtime requires the thread-lock state of a
// coroutine's creation at every switch).
// A virtual rank's meter that keeps its goroutine locked to a thread
// between bursts (vtime.Pinner) lets go of it there: a locked goroutine
// that yields or sleeps hands its processor to another thread, a context
// switch each time. fn runs on the owner's goroutine. Call before the
// owner starts.
func (ib *Inbox) SetOnYield(fn func()) { ib.onYield = fn }

// Yielding is for a transport that makes the owner yield or sleep in a
// wait of its own (a sender waiting for room in a ring), and for an owner
// about to hand its processor to a coroutine: it calls the function
// SetOnYield installed, if any (none for a nil inbox). Only the owner may
// call it.
func (ib *Inbox) Yielding() {
	if ib != nil && ib.onYield != nil {
		ib.onYield()
	}
}

// SetSpinGroup makes the inbox part of g. Call before the owner starts.
func (ib *Inbox) SetSpinGroup(g *SpinGroup) { ib.group = g }

// AddPoller registers a polled source. Call before the owner starts.
func (ib *Inbox) AddPoller(p Poller) { ib.pollers = append(ib.pollers, p) }

// DirectFunc is the owner's offer to take a small frame straight from a
// transport, without a Frame or the queue (SetDirect): h and payload (the
// whole payload) are valid only during the call. It reports whether it
// took the frame; if not, the transport delivers it as usual.
type DirectFunc func(h *Header, payload []byte) bool

// SetDirect registers the owner's DirectFunc. Call before the owner starts.
func (ib *Inbox) SetDirect(fn DirectFunc) { ib.direct = fn }

// Direct reports whether a Poller, inside Poll(ib) on the owner's
// goroutine (or a transport inside a Send of the owner's whose frame
// names ib: Frame.SetSender), may offer frames for ib to OfferDirect: the
// owner registered a DirectFunc and nothing is queued, so a frame taken
// now overtakes none that arrived before it.
func (ib *Inbox) Direct() bool { return ib.direct != nil && ib.taken.empty(&ib.pushed) }

// OfferDirect hands the owner's DirectFunc a frame a Poller found for ib,
// on the owner's goroutine as Direct says and only while Direct holds; it
// reports whether the owner took it.
func (ib *Inbox) OfferDirect(h *Header, payload []byte) bool { return ib.direct(h, payload) }

// AddHandoff registers a source whose pending frames end a spin. Call
// before the owner starts.
func (ib *Inbox) AddHandoff(h Handoff) { ib.handoffs = append(ib.handoffs, h) }

// AddBystander registers a source whose goroutine needs the processor but
// delivers nothing to this inbox (a process's agent, which answers
// gompirun): when it is Pending a spin naps for bystanderNap, long enough
// for the runtime to run that goroutine, and spins on. Sleeping instead,
// as for a Handoff, would leave the owner asleep until its own next frame
// woke it; with one processor a process, virtual MG's whole run took half
// as long again that way (docs/model.md, "Virtual as fast as real"). Call
// before the owner starts.
func (ib *Inbox) AddBystander(h Handoff) { ib.handoffs = append(ib.handoffs, bystander{h}) }

// bystander marks a Handoff registered by AddBystander; it hides any
// Poller the source is.
type bystander struct{ Handoff }

// bystanderNap is how long a spin naps for a Pending bystander: a timer
// this short ends as soon as the bystander's goroutine has run.
const bystanderNap = time.Microsecond

func (ib *Inbox) bystanderPending() bool {
	for _, h := range ib.handoffs {
		if b, ok := h.(bystander); ok && b.Pending() {
			return true
		}
	}
	return false
}

// NextNow is Next for a caller that will not wait (MPI_Test and its
// kin): when nothing is queued it also has the Handoff sources that are
// Pollers deliver what they hold (a TCP connection's bytes), from this
// goroutine. Next leaves them to their own goroutines, which a waiting
// owner makes room for by sleeping; an owner that polls in a loop never
// does, and with one processor those goroutines ran only when the
// scheduler preempted the loop, every 10 ms or more, so that a rank
// polling Test saw frames already on its sockets late or, as it seemed,
// never. MPI libraries make the same progress inside MPI_Test: MPICH's
// reads its sockets there.
func (ib *Inbox) NextNow() *Frame {
	if f := ib.Next(); f != nil {
		return f
	}
	got := false
	for _, h := range ib.handoffs {
		if p, ok := h.(Poller); ok && !ib.polls(p) && p.Poll(ib) {
			got = true
		}
	}
	if got {
		return ib.taken.pop(&ib.pushed)
	}
	return nil
}

// polls reports whether p is a registered poller, which Next has polled
// already.
func (ib *Inbox) polls(p Poller) bool {
	for _, q := range ib.pollers {
		if q == p {
			return true
		}
	}
	return false
}

// Spin is how long Park spins before it sleeps: at least Checks re-checks
// for work, and on until For has passed since the spin first yielded its
// processor (after yieldEvery checks; a wait that ends sooner never reads
// the clock). The zero Spin sleeps at once.
//
// With Counted the owner counts as asleep (Asleep) once its Checks are
// done and it spins on for For, and a Kick then ends the spin as it ends a
// sleep: detectors that wait for every rank to sleep (gompirun's stall and
// deadlock detection) need not wait out a long spin, and the short waits
// of a computation's exchanges still do not look like sleep to them. Only
// an owner that takes frames from its queue may count its spin (no
// DirectFunc): a frame it is about to take then shows in the queue until
// it has stopped spinning.
type Spin struct {
	Checks  int
	For     time.Duration
	Counted bool
}

// SetSpin sets how Park spins before it sleeps. Call before the owner
// starts.
func (ib *Inbox) SetSpin(s Spin) { ib.spin = s }

// SetControl hands fn the Ctrl frames delivered to this inbox instead of
// queueing them for the owner: fn runs on the delivering transport's
// goroutine, owns the frame, and must not block. It is for frames
// addressed to a process rather than to a rank (the virtual collectives'
// gate across processes, package mpi), which go to the process's first
// rank while its owner may be asleep. Call before the transports start.
func (ib *Inbox) SetControl(fn func(*Frame)) { ib.control = fn }

// Deliver appends f, or hands it to the control function (SetControl). It
// never blocks.
func (ib *Inbox) Deliver(f *Frame) {
	if f.Kind == Ctrl && ib.control != nil {
		ib.control(f)
		return
	}
	ib.pushed.push(f)
	if ib.sleeping.Load() {
		ib.Kick()
	}
}

// Kick wakes the owner if it is parked (or makes its next Park return at
// once). Completion callbacks and abort use it.
func (ib *Inbox) Kick() { ib.wake.post() }

// Next removes and returns the first frame, or nil when there is none. It
// polls the registered pollers when the queue is empty.
func (ib *Inbox) Next() *Frame {
	if f := ib.taken.pop(&ib.pushed); f != nil {
		return f
	}
	if len(ib.pollers) > 0 && ib.poll() {
		return ib.taken.pop(&ib.pushed)
	}
	return nil
}

func (ib *Inbox) poll() bool {
	got := false
	for _, p := range ib.pollers {
		if p.Poll(ib) {
			got = true
		}
	}
	return got
}

// SpinIters is how many times Park re-checks for work before it sleeps, in
// inboxes made from now on (SetSpin changes one). Spinning keeps
// small-message latency low while a peer is about to answer; it is bounded
// so that a long wait does not burn a core. Every yieldEvery-th check
// yields the processor, so ranks that share a core with the spinner still
// run.
const SpinIters = 4000

const yieldEvery = 256

// handoffEvery is how often a spin asks its Handoff sources: each asking
// costs a system call (about 0.3 us), so frames from them wait at most
// about a microsecond longer than they would for a sleeping owner.
const handoffEvery = 32

// Park waits until a frame is queued, Kick is called, or ready reports true.
// It spins first (SetSpin), then sleeps. ready is evaluated after the inbox
// announces it is going to sleep, so a Kick that follows a state change that
// makes ready true is never lost. A spin ends early when more ranks of its
// SpinGroup are awake than there are processors (checked at each yield)
// or when a Handoff source needs the processor, and naps when a bystander
// does (AddBystander).
//
// A virtual rank's goroutine sleeps here with the frames of its MPI call
// above; Park (inlined into its caller) and sleep keep their frames small
// (the spin and the pollers' part out of line: spinWait, watchAndPoll,
// watch) so that those frames fit the runtime's smallest stack where they
// can (mpi's coll_bulk.go, meet).
func (ib *Inbox) Park(ready func() bool) { ib.sleep(ready, true) }

// spinWait spins as SetSpin says, unless the SpinGroup is crowded, and
// reports whether the wait is over (a frame is queued, ready holds, or, in
// a Counted spin, a Kick came); false means sleep now.
//
//go:noinline
func (ib *Inbox) spinWait(ready func() bool) bool {
	if !ib.Spins() || ib.crowded() {
		return false
	}
	spin := ib.spin
	over := ib.spinChecks(spin, ready)
	if spin.Counted {
		// Before Park returns, so before the owner takes a frame.
		ib.spinning.Store(false)
	}
	return over
}

func (ib *Inbox) spinChecks(spin Spin, ready func() bool) bool {
	// The spin's time counts from its first yield: most spins end before
	// it, and a clock read costs a small message's receive tens of
	// nanoseconds on some VMs (docs/gompirun.md, BENCHMARKS).
	var start time.Time
	counted := false
	for i := 1; i <= spin.Checks || spin.For > 0; i++ {
		if spin.Counted && !counted && i > spin.Checks {
			if !ib.taken.empty(&ib.pushed) {
				return true // Asleep reads only the shared stack
			}
			ib.naps.Add(1)
			ib.spinning.Store(true)
			counted = true
		}
		if !ib.taken.empty(&ib.pushed) || ready() || counted && ib.kicked() {
			return true
		}
		if i%handoffEvery == 0 && ib.handoffPending() {
			if ib.pollHandoffs() {
				continue // drained here: the next check finds the frames
			}
			return false
		}
		if i%handoffEvery == 0 && ib.bystanderPending() {
			// Let the runtime poll the network and run the bystander's
			// goroutine, then spin on: a timer nap, which leaves the
			// processor idle, and an idle processor polls the network.
			ib.Yielding()
			time.Sleep(bystanderNap)
			ib.bystanderNaps++
		}
		if i%yieldEvery == 0 {
			if ib.poll() {
				return true
			}
			if spin.For > 0 && start.IsZero() {
				start = time.Now()
			}
			if ib.crowded() || i >= spin.Checks && (spin.For == 0 || time.Since(start) > spin.For) {
				return false
			}
			ib.Yielding()
			runtime.Gosched()
		} else if len(ib.pollers) > 0 && ib.poll() {
			return true
		}
	}
	return false
}

// kicked takes a pending Kick, as a sleeping owner's wake-up does, and
// reports whether there was one.
func (ib *Inbox) kicked() bool { return ib.wake.take() }

// crowded reports whether more ranks of the inbox's SpinGroup are awake
// than there are processors: a spin could then only steal a processor
// from a rank with work to do.
func (ib *Inbox) crowded() bool {
	g := ib.group
	return g != nil && g.awake.Load() > g.procs
}

// Empty reports whether nothing is queued. Only the owner may call it.
func (ib *Inbox) Empty() bool { return ib.taken.empty(&ib.pushed) }

// Drained is Empty for any goroutine: a snapshot of whether nothing is
// queued, which a producer may change at once.
func (ib *Inbox) Drained() bool { return ib.taken.drained(&ib.pushed) }

// Spins reports whether Park spins before it sleeps (SetSpin). Sources
// that spin on their own before the owner sleeps (SleepWatcher) follow it.
func (ib *Inbox) Spins() bool { return ib.spin.Checks > 0 || ib.spin.For > 0 }

// SpinsNow reports whether Park would spin now: it spins (Spins) and its
// SpinGroup is not crowded. An owner that polls a few times on its own
// before it parks (package mpi's quick ranks) asks it first, so that it
// leaves the processor to the ranks it shares it with as Park would.
func (ib *Inbox) SpinsNow() bool { return ib.Spins() && !ib.crowded() }

// HandoffPending reports whether a Handoff source has frames waiting for
// its goroutine: a source spinning on the owner's behalf stops then.
func (ib *Inbox) HandoffPending() bool { return ib.handoffPending() }

func (ib *Inbox) handoffPending() bool {
	for _, h := range ib.handoffs {
		if _, b := h.(bystander); !b && h.Pending() {
			return true
		}
	}
	return false
}

// pollHandoffs lets the Handoff sources that are also Pollers (the TCP
// transport) deliver their waiting frames from this goroutine, and reports
// whether any did; when none could, the spin gives its processor to their
// goroutines.
func (ib *Inbox) pollHandoffs() bool {
	got := false
	for _, h := range ib.handoffs {
		if p, ok := h.(Poller); ok && p.Poll(ib) {
			got = true
		}
	}
	return got
}

// Sleep waits like Park but without spinning first.
func (ib *Inbox) Sleep(ready func() bool) { ib.sleep(ready, false) }

// WaitFor sleeps until ready holds, like Sleep, but whatever frames are
// queued or arrive meanwhile: each delivery wakes the owner, which checks
// ready and sleeps again. It is for an owner that must wait for something
// else while frames it may not take yet reach it (package mpi: a rank at
// the gate of a collective computed across processes, where frames from
// processes already past the collective may arrive).
func (ib *Inbox) WaitFor(ready func() bool) {
	for !ready() {
		ib.Yielding() // before the pollers' own waits (SleepWatcher)
		ib.naps.Add(1)
		ib.sleeping.Store(true)
		polled := len(ib.pollers) > 0
		if polled {
			ib.watchAndPoll()
		}
		if !ready() {
			ib.group.napping() // nap (below)
			ib.wake.wait()
			ib.group.napped()
		}
		ib.sleeping.Store(false)
		if polled {
			ib.watch(false)
		}
	}
}

// Both WaitFor and sleep nap, written out in each: they block until a
// Kick, out of the SpinGroup's awake count meanwhile. A method would be a
// frame more (the compiler does not inline it) between a rank asleep at a
// collective's gate and the runtime's semaphore, and that rank must sleep
// within the smallest stack (mpi's TestVirtualRankStackAtGate).

// napping takes a rank that goes to sleep out of the group's awake count;
// napped puts it back. A nil group counts nothing.
func (g *SpinGroup) napping() {
	if g != nil {
		g.awake.Add(-1)
	}
}

func (g *SpinGroup) napped() {
	if g != nil {
		g.awake.Add(1)
	}
}

// Asleep reports whether the owner is sleeping in Park (or spinning there,
// with Spin.Counted) with nothing queued and no wake-up pending, and which
// nap it is in (the count changes each time it goes to sleep or starts a
// counted spin). Deadlock detection samples it.
func (ib *Inbox) Asleep() (bool, uint64) {
	// While the owner sleeps or spins its private list is empty (it
	// checked before), so the shared stack tells the whole story.
	return (ib.sleeping.Load() || ib.spinning.Load()) && ib.pushed.pushedEmpty() && !ib.wake.pending(), ib.naps.Load()
}

// sleep is Park, and Sleep without spin.
func (ib *Inbox) sleep(ready func() bool, spin bool) {
	if spin && ib.spinWait(ready) {
		return
	}
	ib.Yielding() // before the pollers' own waits (SleepWatcher)
	ib.naps.Add(1)
	ib.sleeping.Store(true)
	polled := len(ib.pollers) > 0
	if polled && ib.watchAndPoll() || !ib.taken.empty(&ib.pushed) || ready() {
		ib.sleeping.Store(false)
		if polled {
			ib.watch(false)
		}
		return
	}
	ib.group.napping() // nap (below)
	ib.wake.wait()
	ib.group.napped()
	ib.sleeping.Store(false)
	if polled {
		ib.watch(false)
	}
}

// watchAndPoll tells the pollers that care that the owner goes to sleep,
// then polls, and reports whether a poller delivered anything. Out of
// line: see Park.
//
//go:noinline
func (ib *Inbox) watchAndPoll() bool {
	ib.watch(true)
	return ib.poll()
}

// watch tells the pollers that care whether the owner sleeps.
//
//go:noinline
func (ib *Inbox) watch(asleep bool) {
	for _, p := range ib.pollers {
		if w, ok := p.(SleepWatcher); ok {
			w.Sleeping(ib, asleep)
		}
	}
}
