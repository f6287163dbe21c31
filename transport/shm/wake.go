//go:build linux

package shm

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
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
// sees a sleeper and wakes the owner's waiter goroutine. The waiter drains
// every ring into the inboxes, and
// Inbox.Deliver kicks the sleeping owner. While no rank sleeps the waiter
// costs nothing and a send costs no system call.
//
// Senders whose ring is full also wake the waiter (regardless of sleepers),
// so a send never depends on a receiving rank entering MPI.
//
// The waiter, in turn, says when it blocks: it raises the segment's parked
// word, drains once more, and only then waits; a sender wakes
// it only when it sees parked raised. Store then load again on both sides:
// a sender that saw parked low published before that last drain. So a
// waiter already awake (draining a burst) costs senders no system call.
//
// How the waiter blocks. A goroutine blocked in a system call keeps its
// processor until the runtime's monitor takes it back, which it does only
// after seeing the call in two of its rounds, rounds it spaces out to
// milliseconds once the process looks idle. So the waiter waits on the
// segment's futex word only when every rank of its process sleeps
// (nothing else of the process wants the processor then, and a futex
// wake-up is the cheapest), or when the host has fewer cores than ranks
// (spinFor zero: ranks spin briefly, and there the other wait, which let
// them spin on and woke more threads, was measurably slower). While a rank
// with a core of its own is awake, or in a pinned process, it waits in the
// runtime's network poller instead, holding no processor, on a named pipe
// beside the segment (gompi-JOB-PROC.wake; mayWaitOnPipe says which
// processes make one) that senders write a byte to. A
// waiter that always waited on the futex stopped its own rank whenever it
// went to wait just after the rank, spinning, had yielded: with one
// processor a process (a rank with a core of its own), both processes'
// ranks then stood still until the monitor stepped in, in streams of
// eager messages. One that always waited in the poller woke ranks that
// sleep at once less steadily. docs/transports-shm.md ("Receiving and
// waking") has the measurements. The parked word says which wait the
// waiter is in (parkedFutex, parkedPipe), so a sender wakes it the right
// way; every wake-up also bumps the seq word, which the waiter reads
// before it drains and checks before either wait, so a wake-up sent while
// it chose is not lost. The owner keeps a write end of its own pipe open,
// so that a read finds the pipe empty rather than at its end while no
// peer has opened it, and so that Close can wake the waiter.
//
// A process that hosts more ranks than processors (a virtual run) keeps
// its sleepers count raised for good instead (pinned): its ranks sleep at
// once when they wait, nearly all of them are asleep at any moment, and
// counting each sleep meant two atomic additions on one cache line that
// every processor of the process and every sender of the host touch,
// plus a final drain that waited for the rings' locks. The waiter
// delivers everything there.

// mayWaitOnPipe reports whether the waiter of a process may wait on a
// wake-up pipe, and so needs one: where its ranks have a core each (spin
// is nonzero) or it is pinned, and the host has few enough processes.
// Elsewhere it always waits on the futex word. Each process holds a
// descriptor of every local peer's pipe, so hosts of thousands of
// processes, all sleeping at once anyway, make none.
func mayWaitOnPipe(spin time.Duration, pinned bool, nlocal int) bool {
	return (spin > 0 || pinned) && nlocal <= maxPeerFdProcs
}

// maxPeerFdProcs is the most local processes for which each process holds
// descriptors per peer: the peers' wake-up pipes and their pidfds
// (segment.watchOwner). Beyond it, waiters wait on the futex word and
// senders check their peers through /proc.
const maxPeerFdProcs = 1024

// wakePath is the wake-up pipe of the segment at segPath.
func wakePath(segPath string) string {
	return strings.TrimSuffix(segPath, ".shm") + ".wake"
}

// createWakePipe makes the named pipe at path and opens its two ends: the
// read end for the waiter, in the network poller, and a write end.
func createWakePipe(path string) (*os.File, *sharedFd, error) {
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, nil, fmt.Errorf("shm: removing stale wake-up pipe: %w", err)
	}
	if err := unix.Mkfifo(path, 0o600); err != nil {
		return nil, nil, fmt.Errorf("shm: creating wake-up pipe %s: %w", path, err)
	}
	rfd, err := unix.Open(path, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		os.Remove(path)
		return nil, nil, fmt.Errorf("shm: opening wake-up pipe %s: %w", path, err)
	}
	w, err := openWakePipe(path)
	if err != nil {
		unix.Close(rfd)
		os.Remove(path)
		return nil, nil, err
	}
	return os.NewFile(uintptr(rfd), path), w, nil
}

// openWakePipe opens the write end of the wake-up pipe at path, which its
// owner holds open for reading.
func openWakePipe(path string) (*sharedFd, error) {
	fd, err := unix.Open(path, unix.O_WRONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("shm: opening wake-up pipe %s: %w", path, err)
	}
	return newSharedFd(fd, path), nil
}

// The parked word's values.
const (
	parkedNot   = 0 // the waiter is awake
	parkedFutex = 1 // it waits on the seq word, or is about to
	parkedPipe  = 2 // it waits for a byte in its wake-up pipe, or is about to
)

const (
	futexWait = 0 // FUTEX_WAIT, shared (no FUTEX_PRIVATE_FLAG): the word is in a shared mapping
	futexWake = 1
)

func futex(word *atomic.Uint32, op, val uintptr) {
	unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(word)), op, val, 0, 0, 0)
}

// wake wakes the waiter of segment s, the way its parked word says it
// waits. A full pipe (EAGAIN) holds wake-ups enough; an owner gone
// (EPIPE) is the liveness checks' business.
func wake(s *segment) {
	w := s.u32(offSeq)
	w.Add(1)
	if s.u32(offParked).Load() == parkedPipe && s.wakePipe != nil {
		s.wakePipe.write(wakeByte[:])
		return
	}
	futex(w, futexWake, 1)
}

var wakeByte = [1]byte{1}

// SpinBeforeSleep is how long a rank that is about to sleep keeps polling
// the rings first, when its process hosts no more ranks than it has
// processors (a real run, one rank per process). The inbox's own short spin
// suits ranks woken by goroutines of their process; a wake-up from another
// process costs a pipe write on the sender and a thread wake-up here, which
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
	if t.closing.Load() {
		return // nobody will wake anyone
	}
	if asleep {
		t.own.u32(offSleepers).Add(1)
	} else {
		t.own.u32(offSleepers).Add(^uint32(0))
	}
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
	sleepers := t.own.u32(offSleepers)
	var buf [64]byte
	for {
		s := seq.Load()
		if t.closing.Load() {
			return
		}
		t.drain(nil, true)
		t.signalRoom()
		// Let the ranks just woken run first: one that then still sleeps,
		// or sleeps again, is not runnable.
		runtime.Gosched()
		how := uint32(parkedFutex)
		if t.wakeIn != nil && (t.pinned || sleepers.Load() != uint32(len(t.cfg.Inboxes))) {
			how = parkedPipe
		}
		parked.Store(how)
		t.drain(nil, true) // what senders that saw parked low published
		var err error
		if how == parkedFutex {
			futex(seq, futexWait, uintptr(s))
		} else if seq.Load() == s {
			_, err = t.wakeIn.Read(buf[:]) // every wake-up written so far
		}
		parked.Store(parkedNot)
		if err != nil && !t.closing.Load() {
			// Not seen: this process holds a write end open until Close.
			t.keepErr(fmt.Errorf("shm: waiter: reading its wake-up pipe: %w", err))
			return
		}
		t.wakeups.Add(1)
	}
}
