package transport

import "testing"

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
			for f = c.q.pop(); f == nil; f = c.q.pop() {
			}
			a.q.push(f)
		}
		close(done)
	}()
	f := NewFrame()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c.q.push(f)
		for f = a.q.pop(); f == nil; f = a.q.pop() {
		}
	}
	<-done
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(2*b.N), "ns/one-way")
}
