package transport

import (
	"sync/atomic"
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

// parkAsync runs Park on its own goroutine; the channel closes when it
// returns.
func parkAsync(ib *Inbox) chan struct{} {
	done := make(chan struct{})
	go func() { ib.Park(func() bool { return false }); close(done) }()
	return done
}

func waitAsleep(t *testing.T, ib *Inbox, what string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if asleep, _ := ib.Asleep(); asleep {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: the owner never counted as asleep", what)
		}
		time.Sleep(time.Millisecond)
	}
}

func waitDone(t *testing.T, done chan struct{}, what string) {
	t.Helper()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: Park did not return", what)
	}
}

// TestCountedSpinCountsAsAsleep: past its Checks, a Counted spin counts
// as asleep (one nap) while the owner still spins; a frame makes it awake
// at once, before the owner takes the frame, and ends the spin without a
// sleep.
func TestCountedSpinCountsAsAsleep(t *testing.T) {
	ib := NewInbox()
	ib.SetSpin(Spin{Checks: 100, For: time.Hour, Counted: true})
	done := parkAsync(ib)
	waitAsleep(t, ib, "counted spin")
	if ib.sleeping.Load() {
		t.Fatal("the owner slept instead of spinning")
	}
	if _, nap := ib.Asleep(); nap != 1 {
		t.Fatalf("nap %d in the first counted spin, want 1", nap)
	}
	ib.Deliver(NewFrame())
	if asleep, _ := ib.Asleep(); asleep {
		t.Fatal("counted asleep with a frame queued")
	}
	waitDone(t, done, "a frame")
	if ib.spinning.Load() || ib.naps.Load() != 1 {
		t.Fatalf("after the spin: spinning %v, naps %d; want false and 1", ib.spinning.Load(), ib.naps.Load())
	}
	ib.Next().Free()
}

// TestCountedSpinEndsAtKick: a Kick ends a counted spin as it ends a
// sleep, and is taken, so that it does not end the next Park too.
func TestCountedSpinEndsAtKick(t *testing.T) {
	ib := NewInbox()
	ib.SetSpin(Spin{Checks: 1, For: time.Hour, Counted: true})
	done := parkAsync(ib)
	waitAsleep(t, ib, "counted spin")
	ib.Kick()
	waitDone(t, done, "a Kick")
	if ib.wake.pending() || ib.naps.Load() != 1 {
		t.Fatalf("after the Kick: a wake-up pending %v, naps %d; want none and 1", ib.wake.pending(), ib.naps.Load())
	}
}

// TestCountedSpinChecksFirst: the Checks of a Counted spin do not count
// as asleep (an exchange's short waits must not look like sleep).
func TestCountedSpinChecksFirst(t *testing.T) {
	ib := NewInbox()
	ib.SetSpin(Spin{Checks: 1 << 62, Counted: true})
	done := parkAsync(ib)
	time.Sleep(20 * time.Millisecond)
	if asleep, _ := ib.Asleep(); asleep {
		t.Fatal("counted asleep during the spin's checks")
	}
	ib.Deliver(NewFrame())
	waitDone(t, done, "a frame")
	ib.Next().Free()
}

// countingHandoff is pending while its flag is up and counts the asks.
type countingHandoff struct {
	pending atomic.Bool
	asked   atomic.Int64
}

func (h *countingHandoff) Pending() bool {
	h.asked.Add(1)
	return h.pending.Load()
}

// TestSpinNapsForBystander: a spinning owner whose bystander is pending
// naps and spins on (it never sleeps: a sleep would last until its own
// next frame), and asks the bystander again.
func TestSpinNapsForBystander(t *testing.T) {
	ib := NewInbox()
	ib.SetSpin(Spin{Checks: 1, For: time.Hour, Counted: true})
	h := &countingHandoff{}
	h.pending.Store(true)
	ib.AddBystander(h)
	done := parkAsync(ib)
	deadline := time.Now().Add(10 * time.Second)
	for h.asked.Load() < 3 {
		if time.Now().After(deadline) {
			t.Fatal("the spinning owner did not ask its bystander again")
		}
		time.Sleep(time.Millisecond)
	}
	h.pending.Store(false)
	ib.Deliver(NewFrame())
	waitDone(t, done, "a frame")
	if ib.bystanderNaps == 0 || ib.naps.Load() != 1 {
		t.Fatalf("%d naps for the bystander, %d naps in all; want some, and 1 (the counted spin's)", ib.bystanderNaps, ib.naps.Load())
	}
	ib.Next().Free()
}

// TestInboxCallsOnYieldBeforeGivingUpItsProcessor: the owner calls the
// SetOnYield function before each yield of its spin and before it sleeps
// (already when Asleep first reports it, so before the final poll), in
// Park, Sleep and WaitFor, and not when a frame is there at once; Yielding
// on a nil inbox does nothing.
func TestInboxCallsOnYieldBeforeGivingUpItsProcessor(t *testing.T) {
	ib := NewInbox()
	var yields atomic.Int64
	ib.SetOnYield(func() { yields.Add(1) })

	ib.Deliver(NewFrame())
	ib.Park(func() bool { return false })
	if n := yields.Load(); n != 0 {
		t.Fatalf("Park with a frame queued yielded %d times, want 0", n)
	}
	ib.Next().Free()

	ib.SetSpin(Spin{Checks: 1, For: time.Hour})
	done := parkAsync(ib)
	deadline := time.Now().Add(10 * time.Second)
	for yields.Load() < 2 {
		if time.Now().After(deadline) {
			t.Fatal("a spin of an hour yielded its processor without calling the hook")
		}
		time.Sleep(time.Millisecond)
	}
	ib.Deliver(NewFrame())
	waitDone(t, done, "a frame during the spin")
	ib.Next().Free()

	for name, wait := range map[string]func(){
		"Sleep":   func() { ib.Sleep(func() bool { return false }) },
		"WaitFor": func() { ib.WaitFor(func() bool { return !ib.Empty() }) },
	} {
		yields.Store(0)
		done := make(chan struct{})
		go func() { wait(); close(done) }()
		waitAsleep(t, ib, name)
		if n := yields.Load(); n != 1 {
			t.Fatalf("%s: asleep after %d calls of the hook, want 1", name, n)
		}
		ib.Deliver(NewFrame())
		waitDone(t, done, name)
		ib.Next().Free()
	}

	var none *Inbox
	none.Yielding()
}
