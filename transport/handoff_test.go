package transport

import (
	"sync/atomic"
	"testing"
	"time"
)

type flagHandoff struct{ pending atomic.Bool }

func (h *flagHandoff) Pending() bool { return h.pending.Load() }

// TestParkSleepsWhenHandoffPending: an owner spinning (here: for as good as
// ever) goes to sleep once a Handoff source says frames wait for another
// goroutine, so that goroutine can have the processor.
func TestParkSleepsWhenHandoffPending(t *testing.T) {
	ib := NewInbox()
	ib.SetSpin(Spin{Checks: 1 << 62})
	h := &flagHandoff{}
	ib.AddHandoff(h)
	parked := make(chan struct{})
	go func() {
		ib.Park(func() bool { return false })
		close(parked)
	}()
	time.Sleep(10 * time.Millisecond) // let it spin
	if asleep, _ := ib.Asleep(); asleep {
		t.Fatal("owner asleep before any handoff was pending")
	}
	h.pending.Store(true)
	deadline := time.Now().Add(5 * time.Second)
	for {
		if asleep, _ := ib.Asleep(); asleep {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("owner still spinning 5s after its handoff source reported pending frames")
		}
		time.Sleep(time.Millisecond)
	}
	ib.Deliver(NewFrame())
	select {
	case <-parked:
	case <-time.After(5 * time.Second):
		t.Fatal("a delivered frame did not wake the sleeping owner")
	}
}

// pollingHandoff has frames pending and delivers them when polled, as the
// TCP transport's epoll set does for a spinning rank.
type pollingHandoff struct{ left atomic.Int32 }

func (h *pollingHandoff) Pending() bool { return h.left.Load() > 0 }

func (h *pollingHandoff) Poll(ib *Inbox) bool {
	if h.left.Add(-1) < 0 {
		return false
	}
	ib.Deliver(NewFrame())
	return true
}

// TestParkPollsPendingHandoff: a pending Handoff source that can be polled
// delivers its frame to the spinning owner, which does not sleep.
func TestParkPollsPendingHandoff(t *testing.T) {
	ib := NewInbox()
	ib.SetSpin(Spin{Checks: 1 << 62})
	h := &pollingHandoff{}
	ib.AddHandoff(h)
	h.left.Store(1)
	done := make(chan struct{})
	go func() {
		ib.Park(func() bool { return false })
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Park did not return after its handoff source delivered a frame")
	}
	if ib.Next() == nil {
		t.Fatal("no frame queued")
	}
	if _, naps := ib.Asleep(); naps != 0 {
		t.Fatalf("owner slept %d times; the frame was there to take", naps)
	}
}
