package accept

import (
	"net"
	"sync"
	"syscall"
	"testing"
	"time"
)

// script is a listener that fails its first accepts with errs, then hands
// out n connections, then reports itself closed.
type script struct {
	mu   sync.Mutex
	errs []error
	n    int
}

func (l *script) Accept() (net.Conn, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case len(l.errs) > 0:
		err := l.errs[0]
		l.errs = l.errs[1:]
		return nil, err
	case l.n > 0:
		l.n--
		a, b := net.Pipe()
		b.Close()
		return a, nil
	}
	return nil, net.ErrClosed
}

func (l *script) Close() error   { return nil }
func (l *script) Addr() net.Addr { return &net.TCPAddr{} }

// TestLoopRetriesAndBoundsPending: failed accepts (EMFILE, ECONNABORTED)
// are retried, every connection is handled, no more than maxPending are
// ever between accept and release, and the loop ends when the listener
// is closed.
func TestLoopRetriesAndBoundsPending(t *testing.T) {
	const conns, maxPending = 40, 3
	ln := &script{errs: []error{syscall.EMFILE, syscall.ECONNABORTED, syscall.EMFILE}, n: conns}
	var mu sync.Mutex
	pending, most, handled, failed := 0, 0, 0, 0
	done := make(chan struct{})
	go func() {
		defer close(done)
		Loop(ln, maxPending, func(error) { failed++ }, func(c net.Conn, release func()) {
			mu.Lock()
			pending++
			most = max(most, pending)
			mu.Unlock()
			time.Sleep(time.Millisecond) // let others pile up if they can
			mu.Lock()
			pending--
			handled++
			mu.Unlock()
			release()
			release() // a second call does nothing
			c.Close()
		})
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the loop did not end when the listener closed")
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		mu.Lock()
		h := handled
		mu.Unlock()
		if h == conns {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("handled %d of %d connections", h, conns)
		}
	}
	if failed != 3 {
		t.Errorf("told of %d failed accepts, want 3", failed)
	}
	if most > maxPending {
		t.Errorf("%d connections pending at once, want at most %d", most, maxPending)
	}
}
