package transport

import (
	"testing"
	"unsafe"
)

// BenchmarkInboxPingPong bounces one frame between two goroutines through
// their inboxes: the transport's share of in-process latency.
func BenchmarkInboxPingPong(b *testing.B) {
	a, c := NewInbox(), NewInbox()
	never := func() bool { return false }
	done := make(chan struct{})
	go func() {
		for i := 0; i < b.N; i++ {
			var f *Frame
			for f = c.Next(); f == nil; f = c.Next() {
				c.Park(never)
			}
			a.Deliver(f)
		}
		close(done)
	}()
	f := NewFrame()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c.Deliver(f)
		for f = a.Next(); f == nil; f = a.Next() {
			a.Park(never)
		}
	}
	<-done
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(2*b.N), "ns/one-way")
}

// BenchmarkMPSCPingPong is the queue alone, consumers spinning on pop.
func BenchmarkMPSCPingPong(b *testing.B) {
	a, c := NewInbox(), NewInbox()
	done := make(chan struct{})
	go func() {
		for i := 0; i < b.N; i++ {
			var f *Frame
			for f = c.taken.pop(&c.pushed); f == nil; f = c.taken.pop(&c.pushed) {
			}
			a.pushed.push(f)
		}
		close(done)
	}()
	f := NewFrame()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c.pushed.push(f)
		for f = a.taken.pop(&a.pushed); f == nil; f = a.taken.pop(&a.pushed) {
		}
	}
	<-done
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(2*b.N), "ns/one-way")
}

// TestInboxLayout: no cache line holds both a field the producers touch
// and one the owner writes as it takes frames, whatever the address the
// allocator gives the inbox (Go aligns a 176-byte object to 16 bytes
// only), and a virtual run's million inboxes take no padding.
func TestInboxLayout(t *testing.T) {
	var ib Inbox
	producersEnd := unsafe.Offsetof(ib.landings) + unsafe.Sizeof(ib.landings)
	ownersStart := unsafe.Offsetof(ib.taken)
	if gap := ownersStart - producersEnd; gap < cacheLine {
		t.Errorf("the owner's fields start %d bytes after the producers' end, want at least %d", gap, cacheLine)
	}
	for name, off := range map[string]uintptr{
		"control": unsafe.Offsetof(ib.control), "wake": unsafe.Offsetof(ib.wake),
		"sleeping": unsafe.Offsetof(ib.sleeping), "group": unsafe.Offsetof(ib.group),
		"direct": unsafe.Offsetof(ib.direct),
	} {
		if off >= producersEnd {
			t.Errorf("%s at %d, after the producers' group", name, off)
		}
	}
	for name, off := range map[string]uintptr{"naps": unsafe.Offsetof(ib.naps), "bystanderNaps": unsafe.Offsetof(ib.bystanderNaps)} {
		if off < ownersStart {
			t.Errorf("%s at %d, before the owner's group", name, off)
		}
	}
	if n := unsafe.Sizeof(ib); n > 176 {
		t.Errorf("an Inbox is %d bytes, want at most 176", n)
	}
}

// TestInboxIsOneObject: making an inbox allocates the inbox alone; its
// wake-up was a channel, an object of its own beside each of a virtual
// run's million inboxes (wakeup.go).
func TestInboxIsOneObject(t *testing.T) {
	var keep *Inbox
	if n := testing.AllocsPerRun(100, func() { keep = NewInbox() }); n != 1 {
		t.Errorf("NewInbox makes %v objects, want 1", n)
	}
	_ = keep
}
