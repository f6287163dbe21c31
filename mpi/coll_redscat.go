package mpi

import (
	"math/bits"
	"slices"
)

// ReduceScatter combines send of every rank with op, element by element,
// and scatters the result: rank i receives the counts[i] elements after the
// first counts[0]+...+counts[i-1] into recv (MPI_Reduce_scatter). len(send)
// must be the sum of counts.
func ReduceScatter[T Numeric](c *Comm, send, recv []T, counts []int, op Op) error {
	c.enter(callReduceScatter, 0, 0)
	defer c.leave()
	noteRed[T](c, op, false, false, len(send))
	noteInts(c, counts, 1)
	return reduceScatter(c, send, recv, counts, op, "ReduceScatter")
}

// ReduceScatterInPlace is ReduceScatter with MPI_IN_PLACE: buf holds the
// whole contribution, and the caller's part of the result is left at its
// start.
func ReduceScatterInPlace[T Numeric](c *Comm, buf []T, counts []int, op Op) error {
	c.enter(callReduceScatter, 0, 0)
	defer c.leave()
	noteRed[T](c, op, true, false, len(buf))
	noteInts(c, counts, 1)
	return reduceScatter(c, buf, buf, counts, op, "ReduceScatterInPlace")
}

// ReduceScatterBlock is ReduceScatter with len(recv) elements for every
// rank; len(send) must be Size()*len(recv) (MPI_Reduce_scatter_block).
func ReduceScatterBlock[T Numeric](c *Comm, send, recv []T, op Op) error {
	c.enter(callReduceScatterBlock, 0, 0)
	defer c.leave()
	noteRed[T](c, op, false, false, len(send))
	if err := c.begin(); err != nil {
		return err
	}
	return reduceScatter(c, send, recv, blockCounts(c.Size(), len(recv)), op, "ReduceScatterBlock")
}

// ReduceScatterBlockInPlace is ReduceScatterBlock with MPI_IN_PLACE: buf
// holds Size() equal blocks, and the caller's block of the result is left
// at its start.
func ReduceScatterBlockInPlace[T Numeric](c *Comm, buf []T, op Op) error {
	c.enter(callReduceScatterBlock, 0, 0)
	defer c.leave()
	noteRed[T](c, op, true, false, len(buf))
	if err := c.begin(); err != nil {
		return err
	}
	n := c.Size()
	if len(buf)%n != 0 {
		return errorf(ClassCount, "ReduceScatterBlockInPlace: buffer of %d elements is not %d equal blocks", len(buf), n)
	}
	return reduceScatter(c, buf, buf, blockCounts(n, len(buf)/n), op, "ReduceScatterBlockInPlace")
}

func blockCounts(n, k int) []int {
	counts := make([]int, n)
	for i := range counts {
		counts[i] = k
	}
	return counts
}

func reduceScatter[T Numeric](c *Comm, send, recv []T, counts []int, op Op, what string) error {
	rd, err := reductionFor[T](op)
	if err != nil {
		return err
	}
	if err := c.begin(); err != nil {
		return err
	}
	n, me := c.Size(), c.rank
	if len(counts) < n {
		return errorf(ClassCount, "%s: need %d counts, got %d", what, n, len(counts))
	}
	total := 0
	for i, k := range counts[:n] {
		if k < 0 {
			return errorf(ClassCount, "%s: negative count %d for rank %d", what, k, i)
		}
		total += k
	}
	if len(send) != total {
		return errorf(ClassCount, "%s: send buffer of %d elements, counts sum to %d", what, len(send), total)
	}
	if len(recv) < counts[me] {
		return errorf(ClassCount, "%s: receive buffer of %d elements, rank %d gets %d", what, len(recv), me, counts[me])
	}
	return c.reduceScatter(asBytes(send), asBytes(recv[:counts[me]]), counts[:n], &rd)
}

// reduceScatter leaves the caller's part of the reduction of data in out
// (out may alias data's start).
func (c *Comm) reduceScatter(data, out []byte, counts []int, rd *reduction) error {
	n := c.Size()
	disp := make([]int, n+1) // byte offset of each rank's part
	for i := 0; i < n; i++ {
		disp[i+1] = disp[i] + counts[i]*rd.size
	}
	if n == 1 || disp[n] == 0 {
		copy(out, data)
		return nil
	}
	a, err := forced(collReduceScatter)
	if err != nil {
		return err
	}
	regular := isPof2(n) && slices.Min(counts) == slices.Max(counts)
	if a == algoNoncommutative && !regular || !rd.commute && a != algoNoncommutative && a != algoRecDbl {
		a = algoAuto
	}
	if a == algoAuto {
		switch {
		case !rd.commute && regular:
			a = algoNoncommutative
		case !rd.commute:
			a = algoRecDbl
		case len(data) < ReduceScatterCommLongMsgSize:
			a = algoRecHalving
		default:
			a = algoPairwise
		}
	}
	c.traceAlgo(a, len(data))
	switch a {
	case algoNoncommutative:
		return c.redScatNoncommutative(data, out, rd)
	case algoPairwise:
		return c.redScatPairwise(data, out, disp, rd)
	case algoRecHalving:
		return c.redScatHalving(data, out, counts, rd)
	}
	return c.redScatRecDbl(data, out, disp, rd)
}

// redScatRecDbl is MPICH's recursive-doubling reduce-scatter, its choice for
// non-commutative operations on other sizes or uneven counts. In round k a
// rank swaps with rank^2^k its partial results for every block except
// those of its own subtree of 2^k ranks (which the partner's side never
// needs), packed in one message, and combines (lower subtree on the left).
// Where the partner does not exist (n not a power of two) a rank of the
// subtree that did receive forwards what it got, as in the allgather.
func (c *Comm) redScatRecDbl(data, out []byte, disp []int, rd *reduction) error {
	n, me := c.Size(), c.rank
	res := slices.Clone(data)
	pack := make([]byte, len(data))
	in := make([]byte, len(data))
	// outside is the byte ranges of all blocks but those of subtree
	// [root, root+mask).
	outside := func(root, mask int) (a, b []byte) {
		return res[:disp[min(root, n)]], res[disp[min(root+mask, n)]:]
	}
	var failed schedErr
	for i, mask := 0, 1; mask < n; i, mask = i+1, mask<<1 {
		dst := me ^ mask
		myRoot, dstRoot := me>>i<<i, dst>>i<<i
		ra, rb := outside(dstRoot, mask)
		got := in[:len(ra)+len(rb)]
		received := false
		if dst < n {
			sa, sb := outside(myRoot, mask)
			send := append(append(pack[:0], sa...), sb...)
			failed.keep(c.exchange(send, dst, got, dst, tagRedScat))
			received = true
		}
		if dstRoot+mask > n { // forward to the ranks whose partner is missing
			have := n - myRoot - mask
			k := i
			for tm := mask >> 1; tm > 0; tm >>= 1 {
				d := me ^ tm
				root := me >> k << k
				switch {
				case d > me && me < root+have && d >= root+have:
					failed.keep(c.blockingSend(got, d, tagRedScat))
				case d < me && d < root+have && me >= root+have:
					failed.keep(c.blockingRecv(got, d, tagRedScat))
					received = true
				}
				k--
			}
		}
		if !received {
			continue
		}
		ga, gb := got[:len(ra)], got[len(ra):]
		if dstRoot < myRoot {
			rd.apply(ga, ra)
			rd.apply(gb, rb)
		} else {
			rd.applyRev(ra, ga)
			rd.applyRev(rb, gb)
		}
	}
	copy(out, res[disp[me]:disp[me+1]])
	return failed.err
}

// redScatNoncommutative (n a power of two, equal blocks): MPICH's
// algorithm for non-commutative operations. The blocks are permuted to
// bit-reversed positions; recursive halving with the nearest partner first
// then combines only adjacent rank ranges, in order, and leaves every rank
// with its own block.
func (c *Comm) redScatNoncommutative(data, out []byte, rd *reduction) error {
	n := c.Size()
	bs := len(data) / n
	lg := ceilLog2(n)
	acc := make([]byte, len(data))
	for i := 0; i < n; i++ {
		j := int(bits.Reverse(uint(i)) >> (bits.UintSize - lg))
		copy(acc[j*bs:(j+1)*bs], data[i*bs:(i+1)*bs])
	}
	disp := uniformOffsets(n, bs)
	lo, hi, err := c.halvingSteps(nil, acc, disp, c.rank, ascendingMasks(n), rd, tagRedScat)
	copy(out, acc[disp[lo]:disp[hi]])
	return err
}

// redScatPairwise: n-1 steps; in step i a rank sends rank+i its part of
// the data and combines what rank-i sends for its own part. Commutative
// operations only.
func (c *Comm) redScatPairwise(data, out []byte, disp []int, rd *reduction) error {
	n, me := c.Size(), c.rank
	acc := make([]byte, disp[me+1]-disp[me])
	copy(acc, data[disp[me]:disp[me+1]])
	tmp := make([]byte, len(acc))
	var failed schedErr
	for i := 1; i < n; i++ {
		src, dst := (me-i+n)%n, (me+i)%n
		failed.keep(c.exchange(data[disp[dst]:disp[dst+1]], dst, tmp, src, tagRedScat))
		rd.apply(tmp, acc)
	}
	copy(out, acc)
	return failed.err
}

// redScatHalving: after the fold, recursive halving with the farthest
// partner first, so newrank i ends with block i: the parts of the ranks it
// stands for. A rank that folded an even neighbour in hands it its part.
func (c *Comm) redScatHalving(data, out []byte, counts []int, rd *reduction) error {
	n, me := c.Size(), c.rank
	pof2 := pof2Below(n)
	rem := n - pof2
	acc := make([]byte, len(data))
	copy(acc, data)
	var failed schedErr
	newrank, err := c.foldIn(acc, rd, tagRedScat)
	failed.keep(err)
	if newrank < 0 {
		failed.keep(c.blockingRecv(out, me+1, tagRedScat))
		return failed.err
	}
	disp := make([]int, pof2+1)
	for i := 0; i < pof2; i++ {
		k := counts[oldRank(i, rem)]
		if i < rem {
			k += counts[2*i]
		}
		disp[i+1] = disp[i] + k*rd.size
	}
	var masks []int
	for m := pof2 / 2; m > 0; m >>= 1 {
		masks = append(masks, m)
	}
	_, _, err = c.halvingSteps(nil, acc, disp, newrank, masks, rd, tagRedScat)
	failed.keep(err)
	mine := acc[disp[newrank]:disp[newrank+1]]
	if me < 2*rem {
		k := counts[me-1] * rd.size
		failed.keep(c.blockingSend(mine[:k], me-1, tagRedScat))
		mine = mine[k:]
	}
	copy(out, mine)
	return failed.err
}
