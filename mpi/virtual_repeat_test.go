package mpi

import (
	"fmt"
	"testing"
)

// Repeatability (design.md, seeds/003): with cpu-scale 0 a deterministic
// program gets bit-identical per-rank predictions whatever the host's
// scheduling. These programs receive eager messages that may reach the host
// before or after their receives are posted, which once changed the
// prediction by size/B_mem (the DR accounting, eventClock.Ready).
func TestVirtualRepeatableSendrecvAndCollectives(t *testing.T) {
	programs := map[string]func(c *Comm) error{
		"sendrecv-star": func(c *Comm) error {
			a, b := make([]int64, 5), make([]int64, 5)
			if c.Rank() == 0 {
				for p := 1; p < c.Size(); p++ {
					if _, err := Sendrecv(c, a, p, 0, b, p, 0); err != nil {
						return err
					}
				}
				return nil
			}
			_, err := Sendrecv(c, a, 0, 0, b, 0, 0)
			return err
		},
		"collectives": func(c *Comm) error {
			n := c.Size()
			x := []float64{float64(c.Rank() + 1), 2, 3}
			y := make([]float64, 3)
			if err := Scan(c, x, y, Sum); err != nil {
				return err
			}
			blocks := make([]int32, 2*n)
			for i := range blocks {
				blocks[i] = int32(c.Rank()*100 + i)
			}
			if err := AlltoallInPlace(c, blocks); err != nil {
				return err
			}
			rs := make([]float64, 1)
			if err := ReduceScatterBlock(c, make([]float64, n), rs, Sum); err != nil {
				return err
			}
			counts, displs := make([]int, n), make([]int, n)
			for i := range counts {
				counts[i], displs[i] = i+1, i*(i+1)/2
			}
			all := make([]int16, n*(n+1)/2)
			if err := Gatherv(c, make([]int16, c.Rank()+1), all, counts, displs, 0); err != nil {
				return err
			}
			return c.Barrier()
		},
	}
	for name, prog := range programs {
		for _, n := range []int{3, 5} {
			t.Run(fmt.Sprintf("%s/%d", name, n), func(t *testing.T) {
				var first []float64
				for run := 0; run < 40; run++ {
					got := virtualRankTimes(t, n, prog)
					if run == 0 {
						first = got
						continue
					}
					for r := range got {
						if got[r] != first[r] {
							t.Fatalf("run %d: rank %d predicted %v s, first run %v s", run, r, got[r], first[r])
						}
					}
				}
			})
		}
	}
}

// virtualRankTimes runs fn virtually (cpu-scale 0) and returns each rank's
// predicted time.
func virtualRankTimes(t *testing.T, n int, fn func(c *Comm) error) []float64 {
	t.Helper()
	v := runVirtual(t, "tianhe1a", n, fn)
	res := v.Results()
	out := make([]float64, len(res))
	for i, r := range res {
		out[i] = r.End
	}
	return out
}
