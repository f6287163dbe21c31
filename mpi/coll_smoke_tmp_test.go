package mpi

import "testing"

func TestCollSmokeTmp(t *testing.T) {
	for n := 1; n <= 17; n++ {
		for _, cnt := range []int{0, 1, 5, 3000, 70000} {
			err := Run(n, func(c *Comm) error {
				me := c.Rank()
				buf := make([]float64, cnt)
				if me == n/2 {
					for i := range buf {
						buf[i] = float64(i)
					}
				}
				if err := Bcast(c, buf, n/2); err != nil {
					return err
				}
				for i := range buf {
					if buf[i] != float64(i) {
						t.Fatalf("n=%d cnt=%d bcast rank %d elem %d = %v", n, cnt, me, i, buf[i])
					}
				}
				send := make([]int64, cnt)
				for i := range send {
					send[i] = int64(me*1000 + i)
				}
				out := make([]int64, cnt)
				if err := Allreduce(c, send, out, Sum); err != nil {
					return err
				}
				for i := range out {
					want := int64(1000*n*(n-1)/2 + n*i)
					if out[i] != want {
						t.Fatalf("n=%d cnt=%d allreduce rank %d elem %d = %v want %v", n, cnt, me, i, out[i], want)
					}
				}
				clear(out)
				if err := Reduce(c, send, out, Max, n-1); err != nil {
					return err
				}
				if me == n-1 {
					for i := range out {
						if out[i] != int64((n-1)*1000+i) {
							t.Fatalf("reduce n=%d", n)
						}
					}
				}
				all := make([]int64, cnt*n)
				if err := Allgather(c, send, all); err != nil {
					return err
				}
				for r := 0; r < n; r++ {
					for i := 0; i < cnt; i++ {
						if all[r*cnt+i] != int64(r*1000+i) {
							t.Fatalf("allgather n=%d cnt=%d", n, cnt)
						}
					}
				}
				a2a := make([]int64, cnt*n)
				for i := range a2a {
					a2a[i] = int64(me*1000000 + i)
				}
				got := make([]int64, cnt*n)
				if err := Alltoall(c, a2a, got); err != nil {
					return err
				}
				for r := 0; r < n; r++ {
					for i := 0; i < cnt; i++ {
						if got[r*cnt+i] != int64(r*1000000+me*cnt+i) {
							t.Fatalf("alltoall n=%d cnt=%d rank %d from %d elem %d: %d", n, cnt, me, r, i, got[r*cnt+i])
						}
					}
				}
				g := make([]int64, cnt*n)
				if err := Gather(c, send, g, 0); err != nil {
					return err
				}
				if me == 0 {
					for r := 0; r < n; r++ {
						for i := 0; i < cnt; i++ {
							if g[r*cnt+i] != int64(r*1000+i) {
								t.Fatalf("gather")
							}
						}
					}
				}
				sc := make([]int64, cnt)
				if err := Scatter(c, all, sc, n-1); err != nil {
					return err
				}
				for i := range sc {
					if sc[i] != send[i] {
						t.Fatalf("scatter")
					}
				}
				return c.Barrier()
			})
			if err != nil {
				t.Fatal(n, cnt, err)
			}
		}
	}
}
