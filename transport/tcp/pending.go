package tcp

import "golang.org/x/sys/unix"

// The transport keeps its own epoll instance, level-triggered, beside Go's
// network poller, so that a spinning rank can ask in one system call
// whether bytes wait on any connection (transport.Handoff). The connection
// goroutines still do all the reading; the descriptors leave the instance
// when their connections close.

func newWatch() int32 {
	fd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return -1 // Pending then always says no: ranks spin as before
	}
	return int32(fd)
}

func (t *Transport) watchConn(fd int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if w := int(t.watch.Load()); w >= 0 {
		unix.EpollCtl(w, unix.EPOLL_CTL_ADD, fd, &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(fd)})
	}
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
