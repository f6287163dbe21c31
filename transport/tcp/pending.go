package tcp

import (
	"github.com/gompi/gompi/transport"
	"golang.org/x/sys/unix"
)

// The transport keeps its own epoll instance, level-triggered, beside Go's
// network poller, so that a spinning rank can ask in one system call
// whether bytes wait on any connection (Pending, for transport.Handoff)
// and drain those connections itself (Poll, for transport.Poller) instead
// of waiting for their goroutines. The descriptors leave the instance, and
// ranks stop reading them, before their connections close.

func newWatch() int32 {
	fd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return -1 // Pending then always says no: ranks spin as before
	}
	return int32(fd)
}

func (t *Transport) watchConn(ic *inConn) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if w := int(t.watch.Load()); w >= 0 && ic.fd >= 0 {
		t.byFd[int32(ic.fd)] = ic
		unix.EpollCtl(w, unix.EPOLL_CTL_ADD, ic.fd, &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(ic.fd)})
	}
}

// unwatchConn forgets ic before its socket is closed (the number may be
// reused by the next connection).
func (t *Transport) unwatchConn(ic *inConn) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.byFd[int32(ic.fd)] == ic {
		delete(t.byFd, int32(ic.fd))
	}
}

// stopDraining marks every connection dead under its lock, so that no rank
// reads a socket that Close is about to close.
func (t *Transport) stopDraining() {
	t.mu.Lock()
	ics := make([]*inConn, 0, len(t.byFd))
	for _, ic := range t.byFd {
		ics = append(ics, ic)
	}
	t.mu.Unlock()
	for _, ic := range ics {
		ic.mu.Lock()
		ic.dead = true
		ic.mu.Unlock()
	}
}

// Poll implements transport.Poller for processes whose only peers are
// over TCP: a spinning rank drains the connections that have bytes
// waiting itself, instead of handing its processor to their goroutines
// and being woken by them.
func (t *Transport) Poll(ib *transport.Inbox) bool {
	w := int(t.watch.Load())
	if w < 0 {
		return false
	}
	var ev [4]unix.EpollEvent
	n, _ := unix.EpollWait(w, ev[:], 0)
	got := false
	for i := 0; i < n; i++ {
		t.mu.Lock()
		ic := t.byFd[ev[i].Fd]
		t.mu.Unlock()
		if ic != nil {
			if d, _ := ic.drainShared(); d {
				got = true
			}
		}
	}
	return got
}

func (t *Transport) closeWatch() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if w := int(t.watch.Swap(-1)); w >= 0 {
		unix.Close(w)
	}
}

// Pending implements transport.Handoff: it reports whether bytes (or an
// end of stream) wait on a connection for its goroutine to read.
func (t *Transport) Pending() bool {
	w := int(t.watch.Load())
	if w < 0 {
		return false
	}
	var ev [1]unix.EpollEvent
	n, _ := unix.EpollWait(w, ev[:], 0)
	return n > 0
}
