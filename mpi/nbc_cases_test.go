package mpi

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
)

// nbcCase is one nonblocking collective and its blocking form, each into
// buffers of its own: blocking fills want, start begins the nonblocking
// form into got. Comparing with the blocking result (which the collective
// tests check against brute force) checks the nonblocking form.
type nbcCase struct {
	name      string
	blocking  func(c *Comm) error
	start     func(c *Comm) (*Request, error)
	got, want any
}

// nbcCases builds, for the calling rank of c, every nonblocking collective
// with k elements per block and the given root, inputs from seed.
func nbcCases(c *Comm, seed, k, root int) []nbcCase {
	n, me := c.Size(), c.Rank()
	in := func(s int) []int64 { return gen[int64](seed+s, me, k, false) }
	fin := func(s int) []float64 { return gen[float64](seed+s, me, k, false) }
	// Irregular counts and displacements with gaps for the v forms.
	counts, displs := make([]int, n), make([]int, n)
	tot := 0
	for i := range counts {
		counts[i] = (i*3+seed)%(k+2) + i%2
		displs[i] = tot + i%3
		tot = displs[i] + counts[i]
	}
	var cs []nbcCase
	add := func(name string, mk func() ([]int64, func(c *Comm, b []int64) error, func(c *Comm, b []int64) (*Request, error))) {
		w, blk, nb := mk()
		g := slices.Clone(w)
		cs = append(cs, nbcCase{name: name,
			blocking: func(c *Comm) error { return blk(c, w) },
			start:    func(c *Comm) (*Request, error) { return nb(c, g) },
			got:      g, want: w})
	}
	// Cases on one int64 buffer b (in place, or recv with a fixed send).
	add("Ibcast", func() ([]int64, func(*Comm, []int64) error, func(*Comm, []int64) (*Request, error)) {
		b := in(0)
		if me != root {
			clear(b)
		}
		return b, func(c *Comm, b []int64) error { return Bcast(c, b, root) },
			func(c *Comm, b []int64) (*Request, error) { return Ibcast(c, b, root) }
	})
	// first is associative and not commutative: the lowest rank's value.
	first := NewOp(func(in, inout []int64) { copy(inout, in) }, false)
	for _, op := range []Op{Sum, BXor, first} {
		s := in(1)
		add("Ireduce "+op.String(), func() ([]int64, func(*Comm, []int64) error, func(*Comm, []int64) (*Request, error)) {
			return make([]int64, len(s)), func(c *Comm, b []int64) error { return Reduce(c, s, b, op, root) },
				func(c *Comm, b []int64) (*Request, error) { return Ireduce(c, s, b, op, root) }
		})
		add("IreduceInPlace "+op.String(), func() ([]int64, func(*Comm, []int64) error, func(*Comm, []int64) (*Request, error)) {
			return slices.Clone(s), func(c *Comm, b []int64) error { return ReduceInPlace(c, b, op, root) },
				func(c *Comm, b []int64) (*Request, error) { return IreduceInPlace(c, b, op, root) }
		})
		add("Iallreduce "+op.String(), func() ([]int64, func(*Comm, []int64) error, func(*Comm, []int64) (*Request, error)) {
			return make([]int64, len(s)), func(c *Comm, b []int64) error { return Allreduce(c, s, b, op) },
				func(c *Comm, b []int64) (*Request, error) { return Iallreduce(c, s, b, op) }
		})
		add("IallreduceInPlace "+op.String(), func() ([]int64, func(*Comm, []int64) error, func(*Comm, []int64) (*Request, error)) {
			return slices.Clone(s), func(c *Comm, b []int64) error { return AllreduceInPlace(c, b, op) },
				func(c *Comm, b []int64) (*Request, error) { return IallreduceInPlace(c, b, op) }
		})
		add("Iscan "+op.String(), func() ([]int64, func(*Comm, []int64) error, func(*Comm, []int64) (*Request, error)) {
			return make([]int64, len(s)), func(c *Comm, b []int64) error { return Scan(c, s, b, op) },
				func(c *Comm, b []int64) (*Request, error) { return Iscan(c, s, b, op) }
		})
		add("IscanInPlace "+op.String(), func() ([]int64, func(*Comm, []int64) error, func(*Comm, []int64) (*Request, error)) {
			return slices.Clone(s), func(c *Comm, b []int64) error { return ScanInPlace(c, b, op) },
				func(c *Comm, b []int64) (*Request, error) { return IscanInPlace(c, b, op) }
		})
		add("Iexscan "+op.String(), func() ([]int64, func(*Comm, []int64) error, func(*Comm, []int64) (*Request, error)) {
			return make([]int64, len(s)), func(c *Comm, b []int64) error { return Exscan(c, s, b, op) },
				func(c *Comm, b []int64) (*Request, error) { return Iexscan(c, s, b, op) }
		})
		add("IexscanInPlace "+op.String(), func() ([]int64, func(*Comm, []int64) error, func(*Comm, []int64) (*Request, error)) {
			return slices.Clone(s), func(c *Comm, b []int64) error { return ExscanInPlace(c, b, op) },
				func(c *Comm, b []int64) (*Request, error) { return IexscanInPlace(c, b, op) }
		})
		ns := gen[int64](seed+3, me, 2*n, false) // two elements per rank
		rcounts := make([]int, n)
		for i := range rcounts {
			rcounts[i] = 2
		}
		add("IreduceScatterBlock "+op.String(), func() ([]int64, func(*Comm, []int64) error, func(*Comm, []int64) (*Request, error)) {
			return make([]int64, 2), func(c *Comm, b []int64) error { return ReduceScatterBlock(c, ns, b, op) },
				func(c *Comm, b []int64) (*Request, error) { return IreduceScatterBlock(c, ns, b, op) }
		})
		add("IreduceScatterBlockInPlace "+op.String(), func() ([]int64, func(*Comm, []int64) error, func(*Comm, []int64) (*Request, error)) {
			return slices.Clone(ns), func(c *Comm, b []int64) error { return ReduceScatterBlockInPlace(c, b, op) },
				func(c *Comm, b []int64) (*Request, error) { return IreduceScatterBlockInPlace(c, b, op) }
		})
		add("IreduceScatter "+op.String(), func() ([]int64, func(*Comm, []int64) error, func(*Comm, []int64) (*Request, error)) {
			return make([]int64, 2), func(c *Comm, b []int64) error { return ReduceScatter(c, ns, b, rcounts, op) },
				func(c *Comm, b []int64) (*Request, error) { return IreduceScatter(c, ns, b, rcounts, op) }
		})
		add("IreduceScatterInPlace "+op.String(), func() ([]int64, func(*Comm, []int64) error, func(*Comm, []int64) (*Request, error)) {
			return slices.Clone(ns), func(c *Comm, b []int64) error { return ReduceScatterInPlace(c, b, rcounts, op) },
				func(c *Comm, b []int64) (*Request, error) { return IreduceScatterInPlace(c, b, rcounts, op) }
		})
	}
	s := in(2)
	full := make([]int64, n*k)
	for i := range full {
		full[i] = hval(seed+4, me, i)
	}
	add("Igather", func() ([]int64, func(*Comm, []int64) error, func(*Comm, []int64) (*Request, error)) {
		return make([]int64, n*k), func(c *Comm, b []int64) error { return Gather(c, s, b, root) },
			func(c *Comm, b []int64) (*Request, error) { return Igather(c, s, b, root) }
	})
	// The in-place rooted forms: root passes the whole buffer, the others
	// their block.
	rootOr := func(whole, block []int64) []int64 {
		if me == root {
			return slices.Clone(whole)
		}
		return slices.Clone(block)
	}
	add("IgatherInPlace", func() ([]int64, func(*Comm, []int64) error, func(*Comm, []int64) (*Request, error)) {
		return rootOr(full, s), func(c *Comm, b []int64) error { return GatherInPlace(c, b, root) },
			func(c *Comm, b []int64) (*Request, error) { return IgatherInPlace(c, b, root) }
	})
	add("Iscatter", func() ([]int64, func(*Comm, []int64) error, func(*Comm, []int64) (*Request, error)) {
		return make([]int64, k), func(c *Comm, b []int64) error { return Scatter(c, full, b, root) },
			func(c *Comm, b []int64) (*Request, error) { return Iscatter(c, full, b, root) }
	})
	add("IscatterInPlace", func() ([]int64, func(*Comm, []int64) error, func(*Comm, []int64) (*Request, error)) {
		return rootOr(full, s), func(c *Comm, b []int64) error { return ScatterInPlace(c, b, root) },
			func(c *Comm, b []int64) (*Request, error) { return IscatterInPlace(c, b, root) }
	})
	add("Iallgather", func() ([]int64, func(*Comm, []int64) error, func(*Comm, []int64) (*Request, error)) {
		return make([]int64, n*k), func(c *Comm, b []int64) error { return Allgather(c, s, b) },
			func(c *Comm, b []int64) (*Request, error) { return Iallgather(c, s, b) }
	})
	add("IallgatherInPlace", func() ([]int64, func(*Comm, []int64) error, func(*Comm, []int64) (*Request, error)) {
		return slices.Clone(full), func(c *Comm, b []int64) error { return AllgatherInPlace(c, b) },
			func(c *Comm, b []int64) (*Request, error) { return IallgatherInPlace(c, b) }
	})
	add("Ialltoall", func() ([]int64, func(*Comm, []int64) error, func(*Comm, []int64) (*Request, error)) {
		return make([]int64, n*k), func(c *Comm, b []int64) error { return Alltoall(c, full, b) },
			func(c *Comm, b []int64) (*Request, error) { return Ialltoall(c, full, b) }
	})
	add("IalltoallInPlace", func() ([]int64, func(*Comm, []int64) error, func(*Comm, []int64) (*Request, error)) {
		return slices.Clone(full), func(c *Comm, b []int64) error { return AlltoallInPlace(c, b) },
			func(c *Comm, b []int64) (*Request, error) { return IalltoallInPlace(c, b) }
	})
	// The v forms: rank i's block is counts[i] elements at displs[i].
	vbuf := make([]int64, tot)
	for i := range vbuf {
		vbuf[i] = hval(seed+5, me, i)
	}
	mine := vbuf[displs[me] : displs[me]+counts[me]]
	add("Igatherv", func() ([]int64, func(*Comm, []int64) error, func(*Comm, []int64) (*Request, error)) {
		return make([]int64, tot), func(c *Comm, b []int64) error { return Gatherv(c, mine, b, counts, displs, root) },
			func(c *Comm, b []int64) (*Request, error) { return Igatherv(c, mine, b, counts, displs, root) }
	})
	add("IgathervInPlace", func() ([]int64, func(*Comm, []int64) error, func(*Comm, []int64) (*Request, error)) {
		return rootOr(vbuf, mine), func(c *Comm, b []int64) error { return GathervInPlace(c, b, counts, displs, root) },
			func(c *Comm, b []int64) (*Request, error) { return IgathervInPlace(c, b, counts, displs, root) }
	})
	add("Iscatterv", func() ([]int64, func(*Comm, []int64) error, func(*Comm, []int64) (*Request, error)) {
		return make([]int64, counts[me]), func(c *Comm, b []int64) error { return Scatterv(c, vbuf, counts, displs, b, root) },
			func(c *Comm, b []int64) (*Request, error) { return Iscatterv(c, vbuf, counts, displs, b, root) }
	})
	add("IscattervInPlace", func() ([]int64, func(*Comm, []int64) error, func(*Comm, []int64) (*Request, error)) {
		return rootOr(vbuf, make([]int64, counts[me])), func(c *Comm, b []int64) error { return ScattervInPlace(c, b, counts, displs, root) },
			func(c *Comm, b []int64) (*Request, error) { return IscattervInPlace(c, b, counts, displs, root) }
	})
	add("Iallgatherv", func() ([]int64, func(*Comm, []int64) error, func(*Comm, []int64) (*Request, error)) {
		return make([]int64, tot), func(c *Comm, b []int64) error { return Allgatherv(c, mine, b, counts, displs) },
			func(c *Comm, b []int64) (*Request, error) { return Iallgatherv(c, mine, b, counts, displs) }
	})
	add("IallgathervInPlace", func() ([]int64, func(*Comm, []int64) error, func(*Comm, []int64) (*Request, error)) {
		return slices.Clone(vbuf), func(c *Comm, b []int64) error { return AllgathervInPlace(c, b, counts, displs) },
			func(c *Comm, b []int64) (*Request, error) { return IallgathervInPlace(c, b, counts, displs) }
	})
	// Alltoallv: rank me sends counts[(me+j)%n]... to j: a count matrix
	// every rank can compute, cnt(i, j) elements from i to j.
	cnt := func(i, j int) int { return (i + 2*j + seed) % (k + 2) }
	sc, sd, rc, rd := make([]int, n), make([]int, n), make([]int, n), make([]int, n)
	st, rt := 0, 0
	for j := 0; j < n; j++ {
		sc[j], sd[j] = cnt(me, j), st+1
		st = sd[j] + sc[j]
		rc[j], rd[j] = cnt(j, me), rt
		rt += rc[j] + 2
	}
	sbuf := make([]int64, st)
	for i := range sbuf {
		sbuf[i] = hval(seed+6, me, i)
	}
	add("Ialltoallv", func() ([]int64, func(*Comm, []int64) error, func(*Comm, []int64) (*Request, error)) {
		return make([]int64, rt), func(c *Comm, b []int64) error { return Alltoallv(c, sbuf, sc, sd, b, rc, rd) },
			func(c *Comm, b []int64) (*Request, error) { return Ialltoallv(c, sbuf, sc, sd, b, rc, rd) }
	})
	// In place: counts symmetric (cnt(i,j) == cnt(j,i) needed), so use
	// the symmetric part.
	sym := func(i, j int) int { return (i + j + seed) % (k + 2) }
	ic, id := make([]int, n), make([]int, n)
	it := 0
	for j := 0; j < n; j++ {
		ic[j], id[j] = sym(me, j), it
		it += ic[j] + 1
	}
	ibuf := make([]int64, it)
	for i := range ibuf {
		ibuf[i] = hval(seed+7, me, i)
	}
	add("IalltoallvInPlace", func() ([]int64, func(*Comm, []int64) error, func(*Comm, []int64) (*Request, error)) {
		return ibuf, func(c *Comm, b []int64) error { return AlltoallvInPlace(c, b, ic, id) },
			func(c *Comm, b []int64) (*Request, error) { return IalltoallvInPlace(c, b, ic, id) }
	})
	// A float64 case: the same machinery on another element type.
	fs, fw, fg := fin(8), make([]float64, k), make([]float64, k)
	cs = append(cs, nbcCase{name: "Iallreduce float64 Max",
		blocking: func(c *Comm) error { return Allreduce(c, fs, fw, Max) },
		start:    func(c *Comm) (*Request, error) { return Iallreduce(c, fs, fg, Max) },
		got:      fg, want: fw})
	cs = append(cs, nbcCase{name: "Ibarrier",
		blocking: func(c *Comm) error { return c.Barrier() },
		start:    func(c *Comm) (*Request, error) { return c.Ibarrier() },
		got:      []int{}, want: []int{}})
	return cs
}

// checkCases compares every case's nonblocking result with its blocking one.
func checkCases(cs []nbcCase, me int) error {
	for _, x := range cs {
		if !reflect.DeepEqual(x.got, x.want) {
			return fmt.Errorf("rank %d: %s: got %v, want %v", me, x.name, x.got, x.want)
		}
	}
	return nil
}

// shuffled is a rank-specific permutation of 0..n-1.
func shuffled(n, seed, me int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	rng := rand.New(rand.NewPCG(uint64(seed), uint64(me)))
	rng.Shuffle(n, func(i, j int) { p[i], p[j] = p[j], p[i] })
	return p
}
