package vtime

import (
	"fmt"
	"math/rand"
	"runtime"
	"testing"
	"time"
)

// BenchmarkComputeAfterIdle measures what a rank's thread CPU time reads for
// the same computation (a sparse matrix-vector product over about 11 MB,
// NPB CG's inner loop at class A on two ranks) when its thread was idle for
// a while before it: the metric cpu-us/op. On a host whose cores lose their
// caches while idle (a virtual machine whose hypervisor runs other work on
// an idle vCPU), the computation after a pause reads slower, so a rank that
// sleeps through its waits is measured slower than one that spins. That
// is why virtual ranks spin before they sleep (internal/wireup spinFor), and
// why real ranks spin up to 100 ms: real runs that slept through the
// milliseconds of a slow link computed slower than a prediction that
// measures the ranks back to back (docs/accuracy.md).
//
//	go test -run - -bench ComputeAfterIdle ./vtime
func BenchmarkComputeAfterIdle(b *testing.B) {
	const rows, perRow, cols = 7000, 130, 14000
	rng := rand.New(rand.NewSource(1))
	col := make([]int32, rows*perRow)
	val := make([]float64, rows*perRow)
	v, w := make([]float64, cols), make([]float64, rows)
	for i := range col {
		col[i], val[i] = int32(rng.Intn(cols)), rng.Float64()
	}
	for i := range v {
		v[i] = rng.Float64()
	}
	matvec := func() {
		for j := 0; j < rows; j++ {
			s := 0.0
			vs := val[j*perRow : (j+1)*perRow]
			for k, c := range col[j*perRow : (j+1)*perRow] {
				s += vs[k] * v[c]
			}
			w[j] = s
		}
	}
	if _, err := threadNow(); err != nil {
		b.Skip(err)
	}
	for _, idle := range []time.Duration{0, 100 * time.Microsecond, time.Millisecond, 10 * time.Millisecond} {
		b.Run(fmt.Sprintf("idle=%v", idle), func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			matvec()
			var cpu time.Duration
			for i := 0; i < b.N; i++ {
				if idle > 0 {
					time.Sleep(idle)
				}
				t0, _ := threadNow()
				matvec()
				t1, _ := threadNow()
				cpu += t1 - t0
			}
			b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-us/op")
		})
	}
}
