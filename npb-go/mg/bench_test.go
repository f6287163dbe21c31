package main

import (
	"fmt"
	"io"
	"testing"

	"github.com/gompi/gompi/mpi"
)

// BenchmarkClass runs the whole kernel once per iteration and reports the
// benchmark's own timed section as npb-s (seconds) and its Mop/s total.
// Example: go test -run NONE -bench 'Class/A/np2' -benchtime 1x ./npb-go/mg
func BenchmarkClass(b *testing.B) {
	for _, class := range []byte("SWABC") {
		for _, np := range []int{1, 2, 4} {
			b.Run(fmt.Sprintf("%c/np%d", class, np), func(b *testing.B) {
				var secs, mops float64
				for i := 0; i < b.N; i++ {
					err := mpi.Run(np, func(c *mpi.Comm) error {
						res, err := Run(c, class, io.Discard, Options{})
						if err == nil && c.Rank() == 0 {
							secs, mops = res.Time, res.Mops
						}
						return err
					})
					if err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(secs, "npb-s")
				b.ReportMetric(mops, "Mop/s")
			})
		}
	}
}
