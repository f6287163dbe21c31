package transport

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestWakeupPermit: a post before a wait is kept for it, posts made while
// one is pending are one, and take takes the pending one only.
func TestWakeupPermit(t *testing.T) {
	var w wakeup
	if w.pending() || w.take() {
		t.Fatal("a new wakeup has a permit")
	}
	w.post()
	w.post()
	if !w.pending() {
		t.Fatal("no permit after two posts")
	}
	w.wait() // returns at once: the permit was there
	if w.pending() || w.take() {
		t.Fatal("two posts left two permits")
	}
	w.post()
	if !w.take() || w.pending() {
		t.Fatal("take did not take the posted permit")
	}
}

// TestWakeupNoLostWake: an owner waits, round after round, for a post
// that other goroutines make only once it has announced the round, racing
// with its going to sleep (before it takes the state, between that and
// the semaphore, or once it sleeps); and, between rounds, posts that
// nobody asked for arrive. Every wait must return, or the test fails
// after 10 s (it takes well under one). It fails when wait announces its
// sleep without checking for a pending permit.
func TestWakeupNoLostWake(t *testing.T) {
	const rounds = 20000
	var w wakeup
	var asked, answered atomic.Int64
	stop := make(chan struct{})
	var posters sync.WaitGroup
	for range 2 {
		posters.Add(1)
		go func() {
			defer posters.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				runtime.Gosched() // the owner, once woken, must get a processor
				if a := asked.Load(); a > answered.Load() {
					answered.Store(a)
					w.post()
				} else if a%7 == 3 {
					w.post() // unasked: at most a wait that returns early
				}
			}
		}()
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := int64(1); i <= rounds; i++ {
			asked.Store(i)
			for answered.Load() < i {
				w.wait()
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("a wake-up was lost: round %d asked, %d answered; state %d", asked.Load(), answered.Load(), w.state.Load())
	}
	close(stop)
	posters.Wait()
}
