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
	ib.SetSpin(1 << 62)
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
