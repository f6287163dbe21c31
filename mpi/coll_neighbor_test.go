package mpi

import (
	"errors"
	"fmt"
	"math/rand"
	"slices"
	"testing"
)

// nbrModel is the brute-force picture of a topology: every rank's sources
// and destinations, and for receive block i of rank me, which of the
// sender's blocks should land there.
type nbrModel struct {
	srcs, dsts [][]int
	match      func(me, i int) int
}

// cartModel: neighbours by coordinate arithmetic; block s of a sender lands
// in block s^1 (MPI-4.1 section 8.6).
func cartModel(g *refGrid) nbrModel {
	m := nbrModel{match: func(_, i int) int { return i ^ 1 }}
	for r := range g.coords {
		nb := g.neighbours(r)
		m.srcs, m.dsts = append(m.srcs, nb), append(m.dsts, nb)
	}
	return m
}

// graphModel: the k-th edge from u to v is the k-th occurrence of v in u's
// destinations and of u in v's sources.
func graphModel(srcs, dsts [][]int) nbrModel {
	return nbrModel{srcs: srcs, dsts: dsts, match: func(me, i int) int {
		u := srcs[me][i]
		occ := 0
		for _, s := range srcs[me][:i] {
			if s == u {
				occ++
			}
		}
		for k, d := range dsts[u] {
			if d == me {
				if occ == 0 {
					return k
				}
				occ--
			}
		}
		panic("graph model: edge without a matching end")
	}}
}

// randomGraph is a random adjacency on n ranks, the same on every rank for
// a seed, with self edges and repeated edges; sources are listed in an
// order unrelated to the destinations'.
func randomGraph(n int, seed int64) (srcs, dsts [][]int) {
	rng := rand.New(rand.NewSource(seed))
	srcs, dsts = make([][]int, n), make([][]int, n)
	type edge struct{ u, v int }
	var edges []edge
	for e := rng.Intn(3*n + 1); e > 0; e-- {
		u := rng.Intn(n)
		v := rng.Intn(n)
		switch rng.Intn(6) {
		case 0:
			v = u // self edge
		case 1:
			edges = append(edges, edge{u, v}) // repeated edge
		}
		edges = append(edges, edge{u, v})
	}
	rng.Shuffle(len(edges), func(i, j int) { edges[i], edges[j] = edges[j], edges[i] })
	for _, e := range edges {
		dsts[e.u] = append(dsts[e.u], e.v)
	}
	rng.Shuffle(len(edges), func(i, j int) { edges[i], edges[j] = edges[j], edges[i] })
	for _, e := range edges {
		srcs[e.v] = append(srcs[e.v], e.u)
	}
	return srcs, dsts
}

// nval is element j of block k sent by rank r.
func nval(r, k, j int) int64 { return int64(r*1000000 + k*1000 + j + 1) }

const untouched = -7

func filled(n int) []int64 {
	b := make([]int64, n)
	for i := range b {
		b[i] = untouched
	}
	return b
}

// gapLayout places blocks of the given counts in reverse order with a
// one-element gap after each, so misplaced or overlong blocks show.
func gapLayout(counts []int) (displs []int, total int) {
	displs = make([]int, len(counts))
	for i := len(counts) - 1; i >= 0; i-- {
		displs[i] = total
		total += counts[i] + 1
	}
	return displs, total
}

// checkNeighborColls runs the four neighbour collectives on c and checks
// every block each rank received against the model.
func checkNeighborColls(c *Comm, m nbrModel, seed int) error {
	me := c.Rank()
	srcs, dsts := m.srcs[me], m.dsts[me]
	in, out := len(srcs), len(dsts)

	// NeighborAllgather: k elements from every rank.
	k := 1 + seed%3
	send := make([]int64, k)
	for j := range send {
		send[j] = nval(me, 0, j)
	}
	recv := filled(in*k + 1)
	if err := NeighborAllgather(c, send, recv); err != nil {
		return fmt.Errorf("NeighborAllgather: %v", err)
	}
	want := filled(in*k + 1)
	for i, s := range srcs {
		for j := 0; j < k && s != ProcNull; j++ {
			want[i*k+j] = nval(s, 0, j)
		}
	}
	if !slices.Equal(recv, want) {
		return fmt.Errorf("NeighborAllgather: got %v, want %v", recv, want)
	}

	// NeighborAllgatherv: rank r sends (r+seed)%3 elements.
	length := func(r int) int { return (r + seed) % 3 }
	counts := make([]int, in)
	for i, s := range srcs {
		counts[i] = 2 // a ProcNull block: must stay untouched
		if s != ProcNull {
			counts[i] = length(s)
		}
	}
	displs, total := gapLayout(counts)
	recv, want = filled(total), filled(total)
	for i, s := range srcs {
		for j := 0; j < counts[i] && s != ProcNull; j++ {
			want[displs[i]+j] = nval(s, 0, j)
		}
	}
	mine := make([]int64, length(me))
	for j := range mine {
		mine[j] = nval(me, 0, j)
	}
	if err := NeighborAllgatherv(c, mine, recv, counts, displs); err != nil {
		return fmt.Errorf("NeighborAllgatherv: %v", err)
	}
	if !slices.Equal(recv, want) {
		return fmt.Errorf("NeighborAllgatherv: got %v, want %v", recv, want)
	}

	// NeighborAlltoall: block b to destination b, k elements each.
	send = make([]int64, out*k)
	for b := 0; b < out; b++ {
		for j := 0; j < k; j++ {
			send[b*k+j] = nval(me, b, j)
		}
	}
	// A longer receive buffer keeps its tail, except without destinations,
	// where its length gives the block size.
	rlen := in * k
	if out > 0 {
		rlen++
	}
	recv, want = filled(rlen), filled(rlen)
	for i, s := range srcs {
		for j := 0; j < k && s != ProcNull; j++ {
			want[i*k+j] = nval(s, m.match(me, i), j)
		}
	}
	if err := NeighborAlltoall(c, send, recv); err != nil {
		return fmt.Errorf("NeighborAlltoall: %v", err)
	}
	if !slices.Equal(recv, want) {
		return fmt.Errorf("NeighborAlltoall: got %v, want %v", recv, want)
	}

	// NeighborAlltoallv: block b of rank r has cnt(r, b) elements.
	cnt := func(r, b int) int { return (r*7 + b*3 + seed) % 4 }
	scounts := make([]int, out)
	for b := range scounts {
		scounts[b] = cnt(me, b)
	}
	sdispls, stotal := gapLayout(scounts)
	send = filled(stotal)
	for b := range scounts {
		for j := 0; j < scounts[b]; j++ {
			send[sdispls[b]+j] = nval(me, b, j)
		}
	}
	rcounts := make([]int, in)
	for i, s := range srcs {
		rcounts[i] = 3
		if s != ProcNull {
			rcounts[i] = cnt(s, m.match(me, i))
		}
	}
	rdispls, rtotal := gapLayout(rcounts)
	recv, want = filled(rtotal), filled(rtotal)
	for i, s := range srcs {
		for j := 0; j < rcounts[i] && s != ProcNull; j++ {
			want[rdispls[i]+j] = nval(s, m.match(me, i), j)
		}
	}
	if err := NeighborAlltoallv(c, send, scounts, sdispls, recv, rcounts, rdispls); err != nil {
		return fmt.Errorf("NeighborAlltoallv: %v", err)
	}
	if !slices.Equal(recv, want) {
		return fmt.Errorf("NeighborAlltoallv: got %v, want %v", recv, want)
	}
	return nil
}

func TestNeighborCollsCartesian(t *testing.T) {
	for _, n := range topoSizes {
		runT(t, n, func(c *Comm) error {
			for si, s := range cartShapes(n) {
				cc, err := c.CartCreate(s.dims, s.periods, false)
				if err != nil {
					return err
				}
				if cc == nil {
					continue
				}
				if err := checkNeighborColls(cc, cartModel(newRefGrid(s)), si); err != nil {
					return fmt.Errorf("grid %v periods %v rank %d: %v", s.dims, s.periods, cc.Rank(), err)
				}
				if err := cc.Free(); err != nil {
					return err
				}
			}
			return nil
		})
	}
}

func TestNeighborCollsDistGraph(t *testing.T) {
	for _, n := range topoSizes {
		for seed := int64(0); seed < 4; seed++ {
			srcs, dsts := randomGraph(n, seed*1000+int64(n))
			runT(t, n, func(c *Comm) error {
				me := c.Rank()
				var sw, dw []int
				if seed%2 == 1 { // weighted
					sw, dw = make([]int, len(srcs[me])), make([]int, len(dsts[me]))
					for i := range sw {
						sw[i] = 3*i + me
					}
					for i := range dw {
						dw[i] = 5 * i
					}
				}
				gc, err := c.DistGraphCreateAdjacent(srcs[me], sw, dsts[me], dw, seed == 2)
				if err != nil {
					return err
				}
				if tp, err := gc.Topo(); err != nil || tp != TopoDistGraph || gc.Size() != n || gc.Rank() != me {
					return fmt.Errorf("Topo %v, %v; size %d rank %d", tp, err, gc.Size(), gc.Rank())
				}
				d, err := gc.Dup() // the topology survives Dup
				if err != nil {
					return err
				}
				in, out, weighted, err := d.DistGraphNeighborsCount()
				if err != nil || in != len(srcs[me]) || out != len(dsts[me]) || weighted != (seed%2 == 1) {
					return fmt.Errorf("DistGraphNeighborsCount = %d, %d, %v, %v", in, out, weighted, err)
				}
				s, gsw, ds, gdw, err := d.DistGraphNeighbors()
				if err != nil || !slices.Equal(s, srcs[me]) || !slices.Equal(ds, dsts[me]) ||
					!slices.Equal(gsw, sw) || !slices.Equal(gdw, dw) || (gsw == nil) != (sw == nil) {
					return fmt.Errorf("DistGraphNeighbors = %v %v %v %v, %v", s, gsw, ds, gdw, err)
				}
				if err := checkNeighborColls(d, graphModel(srcs, dsts), int(seed)); err != nil {
					return fmt.Errorf("graph seed %d rank %d (sources %v, destinations %v): %v", seed, me, srcs[me], dsts[me], err)
				}
				if err := d.Free(); err != nil {
					return err
				}
				return gc.Free()
			})
		}
	}
}

func TestDistGraphErrors(t *testing.T) {
	runT(t, 3, func(c *Comm) error {
		for _, tc := range []struct {
			srcs, sw, dsts, dw []int
			want               error
		}{
			{[]int{3}, nil, nil, nil, ErrRank},
			{nil, nil, []int{-1}, nil, ErrRank},
			{nil, nil, []int{ProcNull}, nil, ErrRank},
			{[]int{0}, []int{1, 2}, []int{0}, []int{1}, ErrArg},
			{[]int{0}, []int{-1}, []int{0}, []int{1}, ErrArg},
			{[]int{0}, []int{1}, []int{0}, nil, ErrArg},
		} {
			if gc, err := c.DistGraphCreateAdjacent(tc.srcs, tc.sw, tc.dsts, tc.dw, false); !errors.Is(err, tc.want) || gc != nil {
				return fmt.Errorf("DistGraphCreateAdjacent(%v, %v, %v, %v) = %v, %v; want %v", tc.srcs, tc.sw, tc.dsts, tc.dw, gc, err, tc.want)
			}
		}
		// In a weighted graph a rank may give nil weights for an empty
		// list: rank 0 sends to 1 only, 1 receives from 0 only.
		var ws, wd []int
		var wsw, wdw []int
		switch c.Rank() {
		case 0:
			wd, wdw = []int{1}, []int{7}
		case 1:
			ws, wsw = []int{0}, []int{7}
		}
		wg, err := c.DistGraphCreateAdjacent(ws, wsw, wd, wdw, false)
		if err != nil {
			return err
		}
		if _, _, weighted, err := wg.DistGraphNeighborsCount(); err != nil || weighted != (c.Rank() < 2) {
			return fmt.Errorf("DistGraphNeighborsCount: weighted %v, %v", weighted, err)
		}
		got := []int32{-1}
		if err := NeighborAlltoall(wg, []int32{int32(10 + c.Rank())}[:len(wd)], got[:len(ws)]); err != nil {
			return err
		}
		if c.Rank() == 1 && got[0] != 10 {
			return fmt.Errorf("rank 1 got %d from rank 0, want 10", got[0])
		}
		if err := wg.Free(); err != nil {
			return err
		}
		// A self loop on every rank.
		gc, err := c.DistGraphCreateAdjacent([]int{c.Rank()}, []int{4}, []int{c.Rank()}, []int{4}, false)
		if err != nil {
			return err
		}
		if _, err := gc.CartDim(); !errors.Is(err, ErrTopology) {
			return fmt.Errorf("CartDim on a graph: %v", err)
		}
		buf := make([]int32, 4)
		if err := NeighborAlltoall(gc, buf[:2], buf[1:3]); !errors.Is(err, ErrBuffer) {
			return fmt.Errorf("NeighborAlltoall with overlapping buffers: %v", err)
		}
		if err := NeighborAllgather(gc, buf[:2], buf[:1]); !errors.Is(err, ErrCount) {
			return fmt.Errorf("NeighborAllgather with a short receive buffer: %v", err)
		}
		if err := NeighborAlltoall(gc, buf[:2], buf[2:3]); !errors.Is(err, ErrCount) {
			return fmt.Errorf("NeighborAlltoall with a short receive buffer: %v", err)
		}
		if err := NeighborAlltoallv(gc, buf[:1], []int{1}, []int{0}, buf[2:], []int{1}, nil); !errors.Is(err, ErrCount) {
			return fmt.Errorf("NeighborAlltoallv without displacements: %v", err)
		}
		if err := NeighborAlltoallv(gc, buf[:1], []int{-1}, []int{0}, buf[2:], []int{1}, []int{0}); !errors.Is(err, ErrCount) {
			return fmt.Errorf("NeighborAlltoallv with a negative count: %v", err)
		}
		// A receive block shorter than what arrives is a truncation, and
		// the schedule still completes.
		if err := NeighborAlltoall(gc, []int32{1, 2}, make([]int32, 2)); err != nil {
			return err
		}
		err = NeighborAlltoallv(gc, []int32{1, 2}, []int{2}, []int{0}, make([]int32, 1), []int{1}, []int{0})
		if !errors.Is(err, ErrTruncate) {
			return fmt.Errorf("NeighborAlltoallv truncating: %v", err)
		}
		return gc.Free()
	})
}
