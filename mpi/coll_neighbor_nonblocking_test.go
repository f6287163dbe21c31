package mpi

import (
	"fmt"
	"slices"
	"testing"
)

// neighborRound runs the four neighbour collectives on c, blocking or all
// four outstanding at once (completed by Waitall in reverse order, with a
// blocking Barrier while they are out), and returns what each received.
func neighborRound(c *Comm, nonblocking bool) ([][]int64, error) {
	srcs, dsts := c.topology().sources(), c.topology().destinations()
	me, in, out := c.Rank(), len(srcs), len(dsts)
	k := 2
	ag := make([]int64, k)
	for j := range ag {
		ag[j] = nval(me, 0, j)
	}
	agRecv := filled(in * k)
	counts := make([]int, in)
	for i := range counts {
		counts[i] = 1 + i%3
	}
	displs, total := gapLayout(counts)
	agvRecv := filled(total)
	a2a := make([]int64, out*k)
	for b := 0; b < out; b++ {
		for j := 0; j < k; j++ {
			a2a[b*k+j] = nval(me, b, j)
		}
	}
	a2aRecv := filled(in * k)
	scounts := make([]int, out)
	for b := range scounts {
		scounts[b] = 1 + (me+b)%2
	}
	sdispls, stotal := gapLayout(scounts)
	a2av := filled(stotal)
	for b := range scounts {
		for j := 0; j < scounts[b]; j++ {
			a2av[sdispls[b]+j] = nval(me, b, j)
		}
	}
	// What source i sends this rank: its block for this rank, whose
	// count follows the same rule as scounts on the sender.
	rcounts := make([]int, in)
	for i, s := range srcs {
		if s == ProcNull {
			continue
		}
		rcounts[i] = 2 // the largest a sender uses: the gaps show overlong blocks
	}
	rdispls, rtotal := gapLayout(rcounts)
	a2avRecv := filled(rtotal)
	if !nonblocking {
		if err := NeighborAllgather(c, ag, agRecv); err != nil {
			return nil, err
		}
		if err := NeighborAllgatherv(c, ag[:1], agvRecv, onesFor(in), displs); err != nil {
			return nil, err
		}
		if err := NeighborAlltoall(c, a2a, a2aRecv); err != nil {
			return nil, err
		}
		if err := NeighborAlltoallv(c, a2av, scounts, sdispls, a2avRecv, rcounts, rdispls); err != nil {
			return nil, err
		}
	} else {
		var reqs []*Request
		for _, start := range []func() (*Request, error){
			func() (*Request, error) { return IneighborAllgather(c, ag, agRecv) },
			func() (*Request, error) { return IneighborAllgatherv(c, ag[:1], agvRecv, onesFor(in), displs) },
			func() (*Request, error) { return IneighborAlltoall(c, a2a, a2aRecv) },
			func() (*Request, error) {
				return IneighborAlltoallv(c, a2av, scounts, sdispls, a2avRecv, rcounts, rdispls)
			},
		} {
			q, err := start()
			if err != nil {
				return nil, err
			}
			reqs = append(reqs, q)
		}
		if err := c.Barrier(); err != nil {
			return nil, err
		}
		slices.Reverse(reqs)
		if _, err := Waitall(reqs); err != nil {
			return nil, err
		}
	}
	return [][]int64{agRecv, agvRecv, a2aRecv, a2avRecv}, nil
}

func onesFor(n int) []int {
	c := make([]int, n)
	for i := range c {
		c[i] = 1
	}
	return c
}

// The nonblocking neighbour collectives receive exactly what the blocking
// ones do, on grids and random graphs of sizes 1-17 and 64, several
// outstanding at once with a blocking collective among them.
func TestIneighborEqualsBlocking(t *testing.T) {
	for _, n := range append(sizes1to17(), 64) {
		for _, kind := range []string{"cart", "graph"} {
			t.Run(fmt.Sprintf("%s/%d", kind, n), func(t *testing.T) {
				err := Run(n, func(w *Comm) error {
					c, err := neighbourComm(w, kind, int64(n))
					if err != nil || c == nil {
						return err
					}
					want, err := neighborRound(c, false)
					if err != nil {
						return err
					}
					got, err := neighborRound(c, true)
					if err != nil {
						return err
					}
					for i := range want {
						if !slices.Equal(got[i], want[i]) {
							return fmt.Errorf("rank %d, collective %d: nonblocking %v, blocking %v", c.Rank(), i, got[i], want[i])
						}
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

// In virtual time a nonblocking neighbour collective and its Wait predict
// what the blocking call does: the same messages.
func TestIneighborVirtualEqualsBlocking(t *testing.T) {
	for _, n := range []int{4, 9, 12} {
		prog := func(nonblocking bool) func(*Comm) error {
			return func(w *Comm) error {
				c, err := neighbourComm(w, "cart", 1)
				if err != nil || c == nil {
					return err
				}
				send, recv := make([]float64, 4*512), make([]float64, 4*512)
				for it := 0; it < 3; it++ {
					if !nonblocking {
						if err := NeighborAlltoall(c, send, recv); err != nil {
							return err
						}
						continue
					}
					q, err := IneighborAlltoall(c, send, recv)
					if err != nil {
						return err
					}
					if _, err := q.Wait(); err != nil {
						return err
					}
				}
				return nil
			}
		}
		b, nb := virtualTime(t, n, prog(false)), virtualTime(t, n, prog(true))
		if b != nb || b <= 0 {
			t.Errorf("%d ranks: blocking predicts %g s, nonblocking %g s", n, b, nb)
		}
	}
}

func sizes1to17() []int {
	s := make([]int, 17)
	for i := range s {
		s[i] = i + 1
	}
	return s
}

// neighbourComm is a 2-D Cartesian grid over w (periodic in one
// dimension) or a random distributed graph, the same on every rank.
func neighbourComm(w *Comm, kind string, seed int64) (*Comm, error) {
	if kind == "cart" {
		dims, err := DimsCreate(w.Size(), []int{0, 0})
		if err != nil {
			return nil, err
		}
		return w.CartCreate(dims, []bool{true, false}, false)
	}
	srcs, dsts := randomGraph(w.Size(), seed)
	me := w.Rank()
	return w.DistGraphCreateAdjacent(srcs[me], nil, dsts[me], nil, false)
}
