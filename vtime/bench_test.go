package vtime

import "testing"

// BenchmarkRankEvents is the model's cost for one send (Begin, Stamp,
// EndSend) and one wait dealing with one message (Begin, WaitStart, Early,
// Deal, WaitEnd): the event points of two MPI calls.
func BenchmarkRankEvents(b *testing.B) {
	m, _ := Preset("tianhe1a")
	tg, _ := m.Place(1024)
	cpu, err := NewThreadCPU(0)
	for _, tc := range []struct {
		name  string
		meter Meter
		scale float64
	}{{"scale0", nil, 0}, {"threadcpu", nil, 1}} {
		if tc.scale > 0 {
			if err != nil {
				b.Skip(err)
			}
			tc.meter = cpu.Meter()
		}
		b.Run(tc.name, func(b *testing.B) {
			r := NewRank(tg, 0, tc.meter, tc.scale)
			r.SimStart()
			for i := 0; i < b.N; i++ {
				r.Begin()
				ta := r.Stamp(64, 500)
				r.EndSend(64)
				r.Begin()
				r.WaitStart(false)
				_ = r.Early(ta)
				r.Deal(Message{Kind: Data, Arrival: ta, Size: 64, Peer: 500}, true)
				r.WaitEnd()
			}
			r.SimEnd()
		})
	}
}

// BenchmarkBurstParts is what one measured burst (threadMeter Begin and
// End) is made of: a reading of the thread's CPU clock (one or two a
// burst: End's short path reads the monotonic clock instead), the
// thread's id (one a burst, for Running), and a Begin and End with
// nothing between them, whose measured length (the metric
// measured-ns/op) is what the measurement itself adds to a rank's
// computation. On a host whose system calls are slow these dominate a
// virtual run's cost per MPI call (docs/model.md, "Cost").
//
//	go test -run '^$' -bench BurstParts ./vtime
func BenchmarkBurstParts(b *testing.B) {
	cpu, err := NewThreadCPU(0)
	if err != nil {
		b.Skip(err)
	}
	b.Run("clock", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			threadNow()
		}
	})
	b.Run("threadid", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			threadID()
		}
	})
	b.Run("empty-burst", func(b *testing.B) {
		m := cpu.Meter()
		measured := 0.0
		for i := 0; i < b.N; i++ {
			m.Begin()
			measured += m.End()
		}
		b.ReportMetric(measured/float64(b.N)*1e9, "measured-ns/op")
	})
}
