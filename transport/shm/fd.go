//go:build linux

package shm

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// sharedFd is a descriptor that senders use while Close may close it: the
// write end of a peer's wake-up pipe, a peer's pidfd. os.File counts the
// calls under way and closes the number after the last, so no call reaches
// a file the kernel has since given that number to; a call after close
// does nothing. A nil *sharedFd stands for no descriptor.
type sharedFd struct {
	f  *os.File
	rc syscall.RawConn
}

// newSharedFd takes over fd.
func newSharedFd(fd int, name string) *sharedFd {
	f := os.NewFile(uintptr(fd), name)
	rc, _ := f.SyscallConn() // fails only for a nil file
	return &sharedFd{f: f, rc: rc}
}

// write writes b once, without waiting: errors (a full pipe, a reader
// gone, a closed descriptor) are the caller's to ignore.
func (s *sharedFd) write(b []byte) {
	if s == nil {
		return
	}
	s.rc.Write(func(fd uintptr) bool {
		unix.Write(int(fd), b)
		return true
	})
}

// readable polls the descriptor for input without waiting; ok is false
// where it cannot tell (no descriptor, closed, or poll failed).
func (s *sharedFd) readable() (readable, ok bool) {
	if s == nil {
		return false, false
	}
	cerr := s.rc.Control(func(fd uintptr) {
		fds := [1]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		for {
			n, err := unix.Poll(fds[:], 0)
			if err == unix.EINTR {
				continue
			}
			readable, ok = n > 0, err == nil
			return
		}
	})
	return readable, ok && cerr == nil
}

func (s *sharedFd) close() {
	if s != nil {
		s.f.Close()
	}
}
