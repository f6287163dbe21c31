package mpi

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/gompi/gompi/vtime"
)

// BenchmarkVirtualScale is the communication skeleton of docs/model.md's
// cost figures at several P, in one process: every rank exchanges 1024
// doubles with both ring neighbours by Sendrecv, then an Allreduce of one
// double and a Barrier, 10 times, at cpu-scale 0. It reports simulated
// messages per host second and the heap in use per rank at the end (the
// ranks' records and what the world keeps); the host's cost per message
// should not grow with P (issue: virtual runs' cost per message).
//
//	go test -run NONE -bench VirtualScale -benchtime 1x ./mpi
func BenchmarkVirtualScale(b *testing.B) {
	for _, p := range []int{1024, 4096, 16384, 65536} {
		b.Run(fmt.Sprintf("P%d", p), func(b *testing.B) {
			m, err := vtime.Preset("tianhe1a")
			if err != nil {
				b.Fatal(err)
			}
			var msgs int64
			for i := 0; i < b.N; i++ {
				v, err := NewVirtual(m, p, 0)
				if err != nil {
					b.Fatal(err)
				}
				if err := v.Run(skeletonRing); err != nil {
					b.Fatal(err)
				}
				msgs = 0
				for _, r := range v.Results() {
					msgs += r.Sent
				}
			}
			b.ReportMetric(float64(msgs)*float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			b.ReportMetric(float64(ms.Sys)/float64(p), "sysB/rank")
		})
	}
}

func skeletonRing(c *Comm) error {
	n, me := c.Size(), c.Rank()
	right, left := (me+1)%n, (me+n-1)%n
	send, recv := make([]float64, 1024), make([]float64, 1024)
	one, sum := []float64{1}, []float64{0}
	for it := 0; it < 10; it++ {
		if _, err := Sendrecv(c, send, right, 0, recv, left, 0); err != nil {
			return err
		}
		if _, err := Sendrecv(c, send, left, 1, recv, right, 1); err != nil {
			return err
		}
		if err := Allreduce(c, one, sum, Sum); err != nil {
			return err
		}
		if err := c.Barrier(); err != nil {
			return err
		}
	}
	return nil
}
