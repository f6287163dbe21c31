package launch

import (
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// A process's agent reads its watch connection on a goroutine that Go's
// network poller wakes. A rank spinning in a wait holds a processor, and
// with one processor a process (gompirun's choice for ranks with a core
// each) the runtime polls the network only every 10 ms or so while it
// spins: gompirun's probes and orders would wait that long. Pending lets
// the spinning rank ask instead (transport.Handoff): a level-triggered
// epoll instance of the watch's own holds the connection, and a rank that
// sees bytes waiting sleeps, which hands the processor to the agent.

// watchPending adds w's connection to a new epoll instance; without one
// (an error, a connection with no descriptor) Pending always says no.
func (w *Watch) watchPending() {
	w.epoll.Store(-1)
	sc, ok := w.conn.(syscall.Conn)
	if !ok {
		return
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return
	}
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return
	}
	added := false
	raw.Control(func(fd uintptr) {
		added = unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, int(fd), &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(fd)}) == nil
	})
	if !added {
		unix.Close(ep)
		return
	}
	w.epoll.Store(int32(ep))
}

// pendingEvery is how often Pending asks the kernel, at most: a spinning
// rank asks every few dozen checks, a system call each, and gompirun's
// orders can wait this long.
const pendingEvery = 50 * time.Microsecond

// Pending implements transport.Handoff: it reports whether bytes (or the
// connection's end) wait for the agent to read.
func (w *Watch) Pending() bool {
	ep := int(w.epoll.Load())
	if ep < 0 {
		return false
	}
	now := time.Since(w.born)
	if last := time.Duration(w.asked.Load()); now-last < pendingEvery {
		return false
	}
	w.asked.Store(int64(now))
	var ev [1]unix.EpollEvent
	n, _ := unix.EpollWait(ep, ev[:], 0)
	return n > 0
}

// unwatchPending closes the epoll instance: once the agent stops reading
// (the connection ended or failed) the bytes or the end it leaves would
// otherwise cut every spin short.
func (w *Watch) unwatchPending() {
	if ep := int(w.epoll.Swap(-1)); ep >= 0 {
		unix.Close(ep)
	}
}
