package transport

import (
	"testing"
	"time"
)

// TestParkSpinsForItsTime: with Spin.For a waiting owner stays awake (no
// nap) for a frame that comes within that time, however many checks it
// takes, and sleeps once the time is up.
func TestParkSpinsForItsTime(t *testing.T) {
	ib := NewInbox()
	ib.SetSpin(Spin{Checks: 1, For: 10 * time.Second})
	go func() {
		time.Sleep(20 * time.Millisecond)
		ib.Deliver(NewFrame())
	}()
	ib.Park(func() bool { return false })
	if n := ib.naps.Load(); n != 0 {
		t.Fatalf("owner napped %d times in a spin of 10 s", n)
	}
	ib.Next().Free()

	ib.SetSpin(Spin{Checks: 1, For: time.Millisecond})
	go func() {
		for {
			if asleep, _ := ib.Asleep(); asleep {
				ib.Deliver(NewFrame())
				return
			}
			time.Sleep(time.Millisecond)
		}
	}()
	done := make(chan struct{})
	go func() { ib.Park(func() bool { return false }); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("a spin of 1 ms never went to sleep")
	}
	if n := ib.naps.Load(); n != 1 {
		t.Fatalf("naps %d after the spin's time ran out, want 1", n)
	}
}

// TestParkCrowdedSleepsAtOnce: an owner whose SpinGroup has more ranks
// awake than processors does not spin, whatever its Spin says.
func TestParkCrowdedSleepsAtOnce(t *testing.T) {
	ib := NewInbox()
	ib.SetSpin(Spin{Checks: 1 << 40, For: time.Hour})
	g := NewSpinGroup(3, 1) // 3 awake, 1 processor: this one sleeps
	ib.SetSpinGroup(g)
	done := make(chan struct{})
	go func() { ib.Park(func() bool { return false }); close(done) }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if asleep, _ := ib.Asleep(); asleep {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a crowded owner spun instead of sleeping")
		}
		time.Sleep(time.Millisecond)
	}
	ib.Kick()
	<-done
}
