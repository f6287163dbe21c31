package transport

import (
	"math"
	"sync/atomic"
	_ "unsafe" // go:linkname
)

// wakeup is an inbox owner's wake-up: a semaphore of at most one permit.
// post (any goroutine) makes the owner's wait in progress, or else its
// next, return; posts made while a permit is pending are one.
//
// It was a channel of capacity one: an object of its own beside every
// inbox, as large as the rest of a virtual rank's inbox (docs/model.md,
// "What a virtual rank's bytes are"), which a million ranks asleep at a
// collective's gate all hold at once. It is now two words and the
// runtime's semaphore, which allocates nothing: a goroutine blocked on it
// queues in the runtime's table of semaphores, keyed by address, as a
// channel's receiver queues on the channel. sync.Mutex and sync.WaitGroup
// sleep on the same semaphore but through deeper calls, which would not
// leave a rank asleep at the gate within the runtime's smallest stack
// (mpi's TestVirtualRankStackAtGate); the two functions below are the
// ones the runtime keeps for packages outside the standard library (its
// sema.go, go.dev/issue/67401).
type wakeup struct {
	state atomic.Uint32
	sema  uint32 // the runtime's semaphore: the owner sleeps on it in wait
}

// The states. wait moves idle to asleep and pending to idle with one
// subtraction; post moves asleep to idle and idle to pending.
const (
	wakeIdle    uint32 = 0              // no permit, the owner awake
	wakePending uint32 = 1              // a permit not yet taken
	wakeAsleep  uint32 = math.MaxUint32 // the owner sleeps in wait, or is about to
)

//go:linkname semacquire sync.runtime_Semacquire
func semacquire(addr *uint32)

//go:linkname semrelease sync.runtime_Semrelease
func semrelease(addr *uint32, handoff bool, skipframes int)

// post gives the permit: it wakes the owner if it sleeps in wait, and
// otherwise leaves the permit for its next wait or take.
func (w *wakeup) post() {
	for {
		switch w.state.Load() {
		case wakePending:
			return
		case wakeIdle:
			if w.state.CompareAndSwap(wakeIdle, wakePending) {
				return
			}
		case wakeAsleep:
			if w.state.CompareAndSwap(wakeAsleep, wakeIdle) {
				semrelease(&w.sema, false, 0)
				return
			}
		}
	}
}

// wait takes the permit, sleeping until there is one. Owner only. It
// inlines, so that a rank asleep at the gate has a frame fewer.
func (w *wakeup) wait() {
	if w.state.Add(^uint32(0)) == wakeAsleep {
		// The post that moves the state on releases the semaphore once,
		// before or after the owner sleeps on it.
		w.sleep()
	}
}

// take takes a pending permit and reports whether there was one. Owner
// only.
func (w *wakeup) take() bool {
	return w.state.Load() == wakePending && w.state.CompareAndSwap(wakePending, wakeIdle)
}

// pending reports whether a permit waits to be taken.
func (w *wakeup) pending() bool { return w.state.Load() == wakePending }
