package mpi

import (
	"fmt"
	"testing"
	"time"
)

// A neighbour collective is its messages: in a virtual run at cpu-scale 0
// it predicts exactly what the same Irecv/Isend/Waitall exchange written
// by hand predicts, and the same on every run.

// handExchange posts, on c's point-to-point context, the receives and sends
// a neighbour collective posts (receive slot order(j) j-th, then the sends
// in order) and waits for all of them.
func handExchange(c *Comm, srcs, dsts []int, order func(j int) int, sblk, rblk func(i int) []float64) error {
	var reqs []*Request
	for j := range srcs {
		if i := order(j); srcs[i] != ProcNull {
			q, err := Irecv(c, rblk(i), srcs[i], 5)
			if err != nil {
				return err
			}
			reqs = append(reqs, q)
		}
	}
	for k, d := range dsts {
		if d != ProcNull {
			q, err := Isend(c, sblk(k), d, 5)
			if err != nil {
				return err
			}
			reqs = append(reqs, q)
		}
	}
	_, err := Waitall(reqs)
	return err
}

// cartNeighbours lists c's neighbours in MPI order through CartShift.
func cartNeighbours(c *Comm) ([]int, error) {
	nd, err := c.CartDim()
	if err != nil {
		return nil, err
	}
	var nb []int
	for d := 0; d < nd; d++ {
		s, t, err := c.CartShift(d, 1)
		if err != nil {
			return nil, err
		}
		nb = append(nb, s, t)
	}
	return nb, nil
}

// halo runs iters steps of compute (Elapse) and a halo exchange of blocks
// of elems values on a grid, by NeighborAlltoall or by hand, and checks
// what arrived.
func halo(dims []int, periods []bool, elems, iters int, byHand bool) func(c *Comm) error {
	return func(c *Comm) error {
		cc, err := c.CartCreate(dims, periods, false)
		if err != nil || cc == nil {
			return err
		}
		nb, err := cartNeighbours(cc)
		if err != nil {
			return err
		}
		send, recv := make([]float64, len(nb)*elems), make([]float64, len(nb)*elems)
		blk := func(b []float64) func(i int) []float64 {
			return func(i int) []float64 { return b[i*elems : (i+1)*elems] }
		}
		for it := 0; it < iters; it++ {
			cc.Elapse(time.Duration(1+cc.Rank()%3) * time.Microsecond)
			for k := range nb {
				for j := 0; j < elems; j++ {
					send[k*elems+j] = float64(cc.Rank()*1000 + k*10 + it)
				}
			}
			if byHand {
				err = handExchange(cc, nb, nb, func(j int) int { return j ^ 1 }, blk(send), blk(recv))
			} else {
				err = NeighborAlltoall(cc, send, recv)
			}
			if err != nil {
				return err
			}
			for i, s := range nb {
				if want := float64(s*1000 + (i^1)*10 + it); s != ProcNull && elems > 0 && recv[i*elems] != want {
					return fmt.Errorf("rank %d step %d: block %d = %v, want %v", cc.Rank(), it, i, recv[i*elems], want)
				}
			}
		}
		return cc.Free()
	}
}

func TestNeighborVirtualHaloEqualsHandWritten(t *testing.T) {
	for _, preset := range []string{"xsim-ethernet", "tianhe1a"} {
		for _, tc := range []struct {
			dims    []int
			periods []bool
			elems   int
		}{
			{[]int{4, 4}, []bool{true, true}, 128},
			{[]int{4, 3}, []bool{false, true}, 64},
			{[]int{2, 3, 2}, []bool{true, false, true}, 16},
			{[]int{4, 4}, []bool{true, true}, 3 * DefaultEagerLimit / 8}, // rendezvous
			{[]int{8}, []bool{false}, 0},
		} {
			n := 1
			for _, d := range tc.dims {
				n *= d
			}
			name := fmt.Sprintf("%s grid %v periods %v, %d values", preset, tc.dims, tc.periods, tc.elems)
			coll := runVirtual(t, preset, n, halo(tc.dims, tc.periods, tc.elems, 3, false)).Report().Predicted
			again := runVirtual(t, preset, n, halo(tc.dims, tc.periods, tc.elems, 3, false)).Report().Predicted
			hand := runVirtual(t, preset, n, halo(tc.dims, tc.periods, tc.elems, 3, true)).Report().Predicted
			if coll != again {
				t.Errorf("%s: NeighborAlltoall predicts %v, then %v", name, coll, again)
			}
			if coll != hand {
				t.Errorf("%s: NeighborAlltoall predicts %v, the hand-written exchange %v", name, coll, hand)
			}
			if coll < 3e-6 {
				t.Errorf("%s: predicted %v, less than the computation", name, coll)
			}
		}
	}
}

// The same on a random distributed graph with repeated and self edges, for
// NeighborAlltoallv and NeighborAllgather.
func TestNeighborVirtualGraphEqualsHandWritten(t *testing.T) {
	const n = 12
	srcs, dsts := randomGraph(n, 77)
	count := func(r, k int) int { return 1 + (r+k)%5*100 }
	run := func(byHand, allgather bool) func(c *Comm) error {
		return func(c *Comm) error {
			me := c.Rank()
			gc, err := c.DistGraphCreateAdjacent(srcs[me], nil, dsts[me], nil, false)
			if err != nil {
				return err
			}
			m := graphModel(srcs, dsts)
			sc, rc := make([]int, len(dsts[me])), make([]int, len(srcs[me]))
			for k := range sc {
				sc[k] = count(me, k)
				if allgather {
					sc[k] = count(me, 0)
				}
			}
			for i, s := range srcs[me] {
				rc[i] = count(s, m.match(me, i))
				if allgather {
					rc[i] = count(s, 0)
				}
			}
			sd, stotal := gapLayout(sc)
			rd, rtotal := gapLayout(rc)
			send, recv := make([]float64, stotal), make([]float64, rtotal)
			if allgather {
				sd, send = make([]int, len(sc)), make([]float64, count(me, 0))
			}
			gc.Elapse(time.Duration(me) * 10 * time.Nanosecond)
			switch {
			case byHand:
				err = handExchange(gc, srcs[me], dsts[me], func(j int) int { return j },
					func(k int) []float64 { return send[sd[k] : sd[k]+sc[k]] },
					func(i int) []float64 { return recv[rd[i] : rd[i]+rc[i]] })
			case allgather:
				err = NeighborAllgatherv(gc, send, recv, rc, rd)
			default:
				err = NeighborAlltoallv(gc, send, sc, sd, recv, rc, rd)
			}
			if err != nil {
				return err
			}
			return gc.Free()
		}
	}
	for _, allgather := range []bool{false, true} {
		coll := runVirtual(t, "tianhe1a", n, run(false, allgather)).Report().Predicted
		again := runVirtual(t, "tianhe1a", n, run(false, allgather)).Report().Predicted
		hand := runVirtual(t, "tianhe1a", n, run(true, allgather)).Report().Predicted
		if coll != again || coll != hand {
			t.Errorf("allgather %v: the collective predicts %v then %v, the hand-written exchange %v", allgather, coll, again, hand)
		}
	}
}
