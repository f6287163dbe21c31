// Package npbtest holds what the kernels' tests and benchmarks share.
package npbtest

import (
	"errors"
	"fmt"
	"testing"

	"github.com/gompi/gompi/mpi"
)

// Outcome is what a benchmark needs from one run of a kernel on one rank.
type Outcome struct {
	Seconds  float64 // the kernel's own timed section
	Mops     float64 // Mop/s total
	Verified bool
}

// BenchmarkClasses runs the kernel once per iteration for every class and
// rank count (sub-benchmarks "A/np2" and so on) in an in-process world and
// reports rank 0's timed section as npb-s and its Mop/s. A run that does not
// verify fails the benchmark.
// Example: go test -run NONE -bench 'Class/A/np2' -benchtime 1x ./npb-go/cg
func BenchmarkClasses(b *testing.B, run func(c *mpi.Comm, class byte) (Outcome, error)) {
	for _, class := range []byte("SWABC") {
		for _, np := range []int{1, 2, 4} {
			b.Run(fmt.Sprintf("%c/np%d", class, np), func(b *testing.B) {
				var o Outcome
				for i := 0; i < b.N; i++ {
					err := mpi.Run(np, func(c *mpi.Comm) error {
						res, err := run(c, class)
						if err == nil && c.Rank() == 0 {
							if !res.Verified {
								return errors.New("verification failed")
							}
							o = res
						}
						return err
					})
					if err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(o.Seconds, "npb-s")
				b.ReportMetric(o.Mops, "Mop/s")
			})
		}
	}
}
