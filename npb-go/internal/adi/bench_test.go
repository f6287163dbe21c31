package adi

import (
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/gompi/gompi/mpi"
)

// BenchmarkClass runs BT and SP per class and rank count (1 and 4: they
// need a square) in an in-process world and reports rank 0's timed
// section as npb-s and its Mop/s, as npbtest.BenchmarkClasses does for the
// kernels.
// Example: go test -run NONE -bench 'Class/SP/A/np1$' -benchtime 1x ./npb-go/internal/adi
func BenchmarkClass(b *testing.B) {
	for _, bm := range both {
		for _, class := range []byte("SWABC") {
			for _, np := range []int{1, 4} {
				b.Run(fmt.Sprintf("%s/%c/np%d", bm.name, class, np), func(b *testing.B) {
					var res Result
					for i := 0; i < b.N; i++ {
						err := mpi.Run(np, func(c *mpi.Comm) error {
							r, err := Run(bm, c, class, io.Discard, Options{})
							if err == nil && c.Rank() == 0 {
								if !r.Verified {
									return errors.New("verification failed")
								}
								res = r
							}
							return err
						})
						if err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(res.Time, "npb-s")
					b.ReportMetric(res.Mops, "Mop/s")
				})
			}
		}
	}
}
