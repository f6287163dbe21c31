package mpi

import (
	"fmt"
	"slices"
)

// The checkers run collectives on a communicator and compare each rank's
// result with the brute force; they return an error naming the first
// difference. They are called from inside Run.

// checkReductions runs every reducing collective with op on inputs from
// genf and compares with folds of f in rank order.
func checkReductions[T Numeric](c *Comm, seed, k int, op Op, genf func(s, r, k int) []T, f func(a, b T) T) error {
	n, me := c.Size(), c.Rank()
	root := seed % n
	all := make([][]T, n)
	for r := range all {
		all[r] = genf(seed, r, k)
	}
	mine := all[me]
	want := fold(f, all, 0, n)
	tag := func(s string) string { return fmt.Sprintf("%s(%s, n=%d, k=%d, rank %d)", s, op, n, k, me) }

	out := make([]T, k)
	if err := Reduce(c, mine, out, op, root); err != nil {
		return err
	}
	if me == root {
		if err := equalOrErr(tag("Reduce"), out, want); err != nil {
			return err
		}
	}
	buf := slices.Clone(mine)
	root2 := (root + 1) % n
	if err := ReduceInPlace(c, buf, op, root2); err != nil {
		return err
	}
	exp := mine
	if me == root2 {
		exp = want
	}
	if err := equalOrErr(tag("ReduceInPlace"), buf, exp); err != nil {
		return err
	}
	clear(out)
	if err := Allreduce(c, mine, out, op); err != nil {
		return err
	}
	if err := equalOrErr(tag("Allreduce"), out, want); err != nil {
		return err
	}
	buf = slices.Clone(mine)
	if err := AllreduceInPlace(c, buf, op); err != nil {
		return err
	}
	if err := equalOrErr(tag("AllreduceInPlace"), buf, want); err != nil {
		return err
	}

	prefix := fold(f, all, 0, me+1)
	if err := Scan(c, mine, out, op); err != nil {
		return err
	}
	if err := equalOrErr(tag("Scan"), out, prefix); err != nil {
		return err
	}
	buf = slices.Clone(mine)
	if err := ScanInPlace(c, buf, op); err != nil {
		return err
	}
	if err := equalOrErr(tag("ScanInPlace"), buf, prefix); err != nil {
		return err
	}
	sentinel := genf(seed+99, me, k)
	out = slices.Clone(sentinel)
	if err := Exscan(c, mine, out, op); err != nil {
		return err
	}
	exp = sentinel
	if me > 0 {
		exp = fold(f, all, 0, me)
	}
	if err := equalOrErr(tag("Exscan"), out, exp); err != nil {
		return err
	}
	buf = slices.Clone(mine)
	if err := ExscanInPlace(c, buf, op); err != nil {
		return err
	}
	if me == 0 {
		exp = mine
	}
	if err := equalOrErr(tag("ExscanInPlace"), buf, exp); err != nil {
		return err
	}
	return checkReduceScatter(c, seed, k, op, genf, f)
}

func checkReduceScatter[T Numeric](c *Comm, seed, k int, op Op, genf func(s, r, k int) []T, f func(a, b T) T) error {
	n, me := c.Size(), c.Rank()
	tag := func(s string) string { return fmt.Sprintf("%s(%s, n=%d, k=%d, rank %d)", s, op, n, k, me) }
	counts := make([]int, n)
	off := make([]int, n+1)
	for i := range counts {
		counts[i] = (i*5 + seed) % (k + 1)
		off[i+1] = off[i] + counts[i]
	}
	all := make([][]T, n)
	for r := range all {
		all[r] = genf(seed+3, r, off[n])
	}
	want := fold(f, all, 0, n)[off[me]:off[me+1]]
	out := make([]T, counts[me])
	if err := ReduceScatter(c, all[me], out, counts, op); err != nil {
		return err
	}
	if err := equalOrErr(tag("ReduceScatter"), out, want); err != nil {
		return err
	}
	buf := slices.Clone(all[me])
	if err := ReduceScatterInPlace(c, buf, counts, op); err != nil {
		return err
	}
	if err := equalOrErr(tag("ReduceScatterInPlace"), buf[:counts[me]], want); err != nil {
		return err
	}

	for r := range all {
		all[r] = genf(seed+4, r, n*k)
	}
	want = fold(f, all, 0, n)[me*k : (me+1)*k]
	out = make([]T, k)
	if err := ReduceScatterBlock(c, all[me], out, op); err != nil {
		return err
	}
	if err := equalOrErr(tag("ReduceScatterBlock"), out, want); err != nil {
		return err
	}
	buf = slices.Clone(all[me])
	if err := ReduceScatterBlockInPlace(c, buf, op); err != nil {
		return err
	}
	return equalOrErr(tag("ReduceScatterBlockInPlace"), buf[:k], want)
}

// checkMoves runs every data-moving collective with k elements per block.
func checkMoves[T ordered](c *Comm, seed, k int) error {
	n, me := c.Size(), c.Rank()
	root := seed % n
	tag := func(s string) string { return fmt.Sprintf("%s(n=%d, k=%d, root %d, rank %d)", s, n, k, root, me) }
	g := func(s, r, kk int) []T { return gen[T](s, r, kk, false) }

	if err := c.Barrier(); err != nil {
		return err
	}
	buf := make([]T, k)
	if me == root {
		buf = g(seed, root, k)
	}
	if err := Bcast(c, buf, root); err != nil {
		return err
	}
	if err := equalOrErr(tag("Bcast"), buf, g(seed, root, k)); err != nil {
		return err
	}

	// Gather, Allgather and their in-place forms.
	full := make([]T, 0, n*k)
	for r := 0; r < n; r++ {
		full = append(full, g(seed+1, r, k)...)
	}
	mine := full[me*k : (me+1)*k]
	out := make([]T, n*k)
	if err := Gather(c, mine, out, root); err != nil {
		return err
	}
	if me == root {
		if err := equalOrErr(tag("Gather"), out, full); err != nil {
			return err
		}
	}
	if me == root {
		buf = make([]T, n*k)
		copy(buf[me*k:], mine)
	} else {
		buf = slices.Clone(mine)
	}
	if err := GatherInPlace(c, buf, root); err != nil {
		return err
	}
	if me == root {
		if err := equalOrErr(tag("GatherInPlace"), buf, full); err != nil {
			return err
		}
	}
	clear(out)
	if err := Allgather(c, mine, out); err != nil {
		return err
	}
	if err := equalOrErr(tag("Allgather"), out, full); err != nil {
		return err
	}
	buf = make([]T, n*k)
	copy(buf[me*k:], mine)
	if err := AllgatherInPlace(c, buf); err != nil {
		return err
	}
	if err := equalOrErr(tag("AllgatherInPlace"), buf, full); err != nil {
		return err
	}

	// Scatter and its in-place form.
	out = make([]T, k)
	var send []T
	if me == root {
		send = full
	}
	if err := Scatter(c, send, out, root); err != nil {
		return err
	}
	if err := equalOrErr(tag("Scatter"), out, mine); err != nil {
		return err
	}
	if me == root {
		buf = slices.Clone(full)
	} else {
		buf = make([]T, k)
	}
	if err := ScatterInPlace(c, buf, root); err != nil {
		return err
	}
	if me == root {
		if err := equalOrErr(tag("ScatterInPlace"), buf, full); err != nil {
			return err
		}
	} else if err := equalOrErr(tag("ScatterInPlace"), buf, mine); err != nil {
		return err
	}

	if err := checkVColls[T](c, seed, k); err != nil {
		return err
	}
	return checkAlltoall[T](c, seed, k)
}

// checkVColls runs Gatherv, Scatterv, Allgatherv and their in-place forms on a
// layout with varying counts, reversed order and gaps.
func checkVColls[T ordered](c *Comm, seed, k int) error {
	n, me := c.Size(), c.Rank()
	root := (seed + 2) % n
	tag := func(s string) string { return fmt.Sprintf("%s(n=%d, k=%d, root %d, rank %d)", s, n, k, root, me) }
	counts, displs, total := vLayout(n, k, seed)
	blocks := make([][]T, n)
	gap := int64(-99)
	want := make([]T, total)
	for i := range want {
		want[i] = T(gap)
	}
	for r := range blocks {
		blocks[r] = gen[T](seed+5, r, counts[r], false)
		copy(want[displs[r]:], blocks[r])
	}
	fresh := func() []T {
		b := make([]T, total)
		for i := range b {
			b[i] = T(gap)
		}
		return b
	}
	out := fresh()
	if err := Gatherv(c, blocks[me], out, counts, displs, root); err != nil {
		return err
	}
	if me == root {
		if err := equalOrErr(tag("Gatherv"), out, want); err != nil {
			return err
		}
	}
	var buf []T
	if me == root {
		buf = fresh()
		copy(buf[displs[me]:], blocks[me])
	} else {
		buf = slices.Clone(blocks[me])
	}
	if err := GathervInPlace(c, buf, counts, displs, root); err != nil {
		return err
	}
	if me == root {
		if err := equalOrErr(tag("GathervInPlace"), buf, want); err != nil {
			return err
		}
	}
	out = fresh()
	if err := Allgatherv(c, blocks[me], out, counts, displs); err != nil {
		return err
	}
	if err := equalOrErr(tag("Allgatherv"), out, want); err != nil {
		return err
	}
	out = fresh()
	copy(out[displs[me]:], blocks[me])
	if err := AllgathervInPlace(c, out, counts, displs); err != nil {
		return err
	}
	if err := equalOrErr(tag("AllgathervInPlace"), out, want); err != nil {
		return err
	}
	// Allgatherv on a packed layout runs in the receive buffer itself.
	packed := make([]int, n)
	sum := 0
	for i := range packed {
		packed[i] = sum
		sum += counts[i]
	}
	out = make([]T, sum)
	if err := Allgatherv(c, blocks[me], out, counts, packed); err != nil {
		return err
	}
	var wantPacked []T
	for r := range blocks {
		wantPacked = append(wantPacked, blocks[r]...)
	}
	if err := equalOrErr(tag("Allgatherv packed"), out, wantPacked); err != nil {
		return err
	}

	out = make([]T, counts[me])
	var send []T
	if me == root {
		send = want
	}
	if err := Scatterv(c, send, counts, displs, out, root); err != nil {
		return err
	}
	if err := equalOrErr(tag("Scatterv"), out, blocks[me]); err != nil {
		return err
	}
	if me == root {
		buf = slices.Clone(want)
	} else {
		buf = make([]T, counts[me])
	}
	if err := ScattervInPlace(c, buf, counts, displs, root); err != nil {
		return err
	}
	if me == root {
		return equalOrErr(tag("ScattervInPlace"), buf, want)
	}
	return equalOrErr(tag("ScattervInPlace"), buf, blocks[me])
}

// a2aLayout is rank r's Alltoallv layout: count of the block for rank j,
// blocks in reverse order with gaps. sym makes counts symmetric (for the
// in-place form, where what goes to j and what comes from j share a slot).
func a2aLayout(r, n, k, seed int, sym bool) (counts, displs []int, total int) {
	counts = make([]int, n)
	displs = make([]int, n)
	for j := n - 1; j >= 0; j-- {
		a, b := r, j
		if sym && a > b {
			a, b = b, a
		}
		counts[j] = (a*3 + b*5 + seed) % (k + 1)
		displs[j] = total + 1
		total += counts[j] + 1
	}
	return counts, displs, total
}

func checkAlltoall[T ordered](c *Comm, seed, k int) error {
	n, me := c.Size(), c.Rank()
	tag := func(s string) string { return fmt.Sprintf("%s(n=%d, k=%d, rank %d)", s, n, k, me) }
	send := gen[T](seed+6, me, n*k, false)
	want := make([]T, n*k)
	for r := 0; r < n; r++ {
		copy(want[r*k:(r+1)*k], gen[T](seed+6, r, n*k, false)[me*k:])
	}
	out := make([]T, n*k)
	if err := Alltoall(c, send, out); err != nil {
		return err
	}
	if err := equalOrErr(tag("Alltoall"), out, want); err != nil {
		return err
	}
	buf := slices.Clone(send)
	if err := AlltoallInPlace(c, buf); err != nil {
		return err
	}
	if err := equalOrErr(tag("AlltoallInPlace"), buf, want); err != nil {
		return err
	}

	for _, sym := range []bool{false, true} {
		sc, sd, stot := a2aLayout(me, n, k, seed, sym)
		src := gen[T](seed+7, me, stot, false)
		rc := make([]int, n)
		rd := make([]int, n)
		rtot := 0
		for r := n - 1; r >= 0; r-- { // receive blocks in reverse order with gaps
			oc, _, _ := a2aLayout(r, n, k, seed, sym)
			rc[r] = oc[me]
			rd[r] = rtot + 2
			rtot += rc[r] + 2
		}
		exp := make([]T, rtot)
		for r := 0; r < n; r++ {
			oc, od, otot := a2aLayout(r, n, k, seed, sym)
			copy(exp[rd[r]:], gen[T](seed+7, r, otot, false)[od[me]:od[me]+oc[me]])
		}
		got := make([]T, rtot)
		if err := Alltoallv(c, src, sc, sd, got, rc, rd); err != nil {
			return err
		}
		if err := equalOrErr(tag("Alltoallv"), got, exp); err != nil {
			return err
		}
		if !sym {
			continue
		}
		buf := slices.Clone(src)
		if err := AlltoallvInPlace(c, buf, sc, sd); err != nil {
			return err
		}
		for r := 0; r < n; r++ {
			if err := equalOrErr(tag(fmt.Sprintf("AlltoallvInPlace from %d", r)), buf[sd[r]:sd[r]+sc[r]], exp[rd[r]:rd[r]+rc[r]]); err != nil {
				return err
			}
		}
	}
	return nil
}
