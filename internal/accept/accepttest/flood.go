// Package accepttest floods a listener until its process runs out of file
// descriptors, for the tests of the listeners built on internal/accept.
package accepttest

import (
	"net"
	"os"
	"syscall"
	"testing"
	"time"
)

// Exhaust lowers this process's open-file limit to a few descriptors above
// those open now, dials addr until no descriptor is left, and waits
// (bounded) until acceptFailed reports that the listener's Accept failed.
// The returned function closes the flood and restores the limit; call it
// before checking that the listener still serves. Tests that cannot read
// their open descriptors (not Linux) are skipped.
func Exhaust(t testing.TB, network, addr string, acceptFailed func() bool) (restore func()) {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("cannot count open descriptors: %v", err)
	}
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &old); err != nil {
		t.Skipf("getrlimit: %v", err)
	}
	low := old
	low.Cur = uint64(len(fds) + 8)
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &low); err != nil {
		t.Skipf("setrlimit: %v", err)
	}
	var flood []net.Conn
	restore = func() {
		for _, c := range flood {
			c.Close()
		}
		syscall.Setrlimit(syscall.RLIMIT_NOFILE, &old)
	}
	// Each dial takes a descriptor here, and its accept another: the
	// listener runs out as the dialer does, with connections still
	// waiting in its backlog.
	for i := 0; i < 64; i++ {
		c, err := net.DialTimeout(network, addr, time.Second)
		if err != nil {
			break
		}
		flood = append(flood, c)
	}
	for deadline := time.Now().Add(10 * time.Second); !acceptFailed(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			restore()
			t.Fatalf("the flood of %d connections never made Accept fail", len(flood))
		}
	}
	return restore
}
