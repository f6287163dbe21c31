//go:build linux

package shm

import (
	"runtime"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/gompi/gompi/transport"
	"golang.org/x/sys/unix"
)

// Wake-up protocol. Ranks poll their rings themselves while they spin; only
// when one is about to sleep must a sender in another process act. The
// sleeping rank raises its segment's sleepers count (Sleeping), then makes
// its final poll, waiting for any ring another goroutine is reading (that
// one may have looked too early); a sender publishes its record, then reads
// sleepers. Both
// sides store then load with sequentially consistent atomics, so at least
// one sees the other: either the final poll finds the record, or the sender
// sees a sleeper, bumps the segment's futex word and wakes the owner's
// waiter goroutine. The waiter drains every ring into the inboxes, and
// Inbox.Deliver kicks the sleeping owner. While no rank sleeps the waiter
// costs nothing and a send costs no system call.
//
// Senders whose ring is full also wake the waiter (regardless of sleepers),
// so a send never depends on a receiving rank entering MPI.
//
// The waiter, in turn, says when it blocks: it raises the segment's parked
// word, drains once more, and only then waits on the futex; a sender wakes
// it only when it sees parked raised. Store then load again on both sides:
// a sender that saw parked low published before that last drain. So a
// waiter already awake (draining a burst) costs senders no system call.
//
// A process that hosts more ranks than processors (a virtual run) keeps
// its sleepers count raised for good instead (pinned): its ranks sleep at
// once when they wait, nearly all of them are asleep at any moment, and
// counting each sleep meant two atomic additions on one cache line that
// every processor of the process and every sender of the host touch,
// plus a final drain that waited for the rings' locks. The waiter
// delivers everything there.

const (
	futexWait = 0 // FUTEX_WAIT, shared (no FUTEX_PRIVATE_FLAG): the word is in a shared mapping
	futexWake = 1
)

func futex(word *atomic.Uint32, op, val uintptr) {
	unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(word)), op, val, 0, 0, 0)
}

// wake wakes the waiter of segment s.
func wake(s *segment) {
	w := s.u32(offSeq)
	w.Add(1)
	futex(w, futexWake, 1)
}

// SpinBeforeSleep is how long a rank that is about to sleep keeps polling
// the rings first, when its process hosts no more ranks than it has
// processors (a real run, one rank per process). The inbox's own short spin
// suits ranks woken by goroutines of their process; a wake-up from another
// process costs a futex call on the sender and a thread wake-up here, which
// on a loaded host can take longer than the peer needs to answer, and a
// 1 MiB transfer takes longer than the inbox spins. The bound keeps a long
// wait from burning a core. It applies to transports opened afterwards.
var SpinBeforeSleep = time.Millisecond

// SpinEnv names the environment variable that overrides SpinBeforeSleep: a
// Go duration such as 200us or 10ms.
const SpinEnv = "GOMPI_SHM_SPIN"

// spinYieldEvery is how many polls spinPoll makes between yields. Yielding
// is a courtesy to other goroutines of the process, and not a cheap one: with
// an idle processor the runtime wakes another thread on every yield.
const spinYieldEvery = 4096

// Sleeping implements transport.SleepWatcher.
func (t *Transport) Sleeping(ib *transport.Inbox, asleep bool) {
	if t.pinned {
		return
	}
	if asleep && t.spinFor > 0 && ib.Spins() {
		t.spinPoll(ib)
	}
	t.life.RLock()
	if t.closing.Load() {
		t.life.RUnlock()
		return // the segment may be unmapped; nobody will wake anyone
	}
	if asleep {
		t.own.u32(offSleepers).Add(1)
	} else {
		t.own.u32(offSleepers).Add(^uint32(0))
	}
	t.life.RUnlock()
	if asleep {
		// The inbox's final check polls too, but skips rings another
		// goroutine holds; this poll waits for them.
		t.drain(ib, true)
	}
}

// spinPoll polls until ib gets a frame or a Kick (Asleep turns false), the
// spin time is up, or bytes wait for one of the process's TCP connection
// goroutines (transport.Handoff), which need the processor this spin holds.
func (t *Transport) spinPoll(ib *transport.Inbox) {
	start := time.Now()
	for i := 1; ; i++ {
		t.drain(ib, false)
		if sleeping, _ := ib.Asleep(); !sleeping {
			return
		}
		if i%32 == 0 && ib.HandoffPending() {
			return
		}
		if i%256 == 0 && time.Since(start) > t.spinFor {
			return
		}
		if i%spinYieldEvery == 0 {
			runtime.Gosched()
		}
	}
}

// waiter drains the rings whenever a sender wakes it, until Close.
func (t *Transport) waiter() {
	defer close(t.waiterDone)
	seq, parked := t.own.u32(offSeq), t.own.u32(offParked)
	for {
		s := seq.Load()
		if t.closing.Load() {
			return
		}
		t.drain(nil, true)
		t.signalRoom()
		// Let the ranks just woken run before blocking: the futex wait
		// holds this goroutine's processor until the runtime takes it
		// back (sysmon, up to milliseconds later), and with one
		// processor they would wait for that.
		runtime.Gosched()
		parked.Store(1)
		t.drain(nil, true) // what senders that saw parked low published
		futex(seq, futexWait, uintptr(s))
		parked.Store(0)
		t.wakeups.Add(1)
	}
}
