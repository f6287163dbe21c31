package mpi

// Reduce combines send of every rank with op, element by element, into recv
// of rank root (MPI_Reduce). recv is only used at root, where it must hold
// at least len(send) elements; the others may pass nil.
func Reduce[T Numeric](c *Comm, send, recv []T, op Op, root int) error {
	c.enter(callReduce, root, 0)
	defer c.leave()
	noteRed[T](c, op, false, false, len(send))
	rd, err := reductionFor[T](op)
	if err != nil {
		return err
	}
	var out []byte
	if c != nil && c.rank == root {
		if len(recv) < len(send) {
			return errorf(ClassCount, "Reduce: receive buffer of %d elements is shorter than the %d sent", len(recv), len(send))
		}
		out = asBytes(recv[:len(send)])
	}
	return c.reduce(asBytes(send), out, &rd, root)
}

// ReduceInPlace is Reduce with MPI_IN_PLACE at the root: every rank passes
// its contribution in buf, and root's buf is replaced by the result. The
// other ranks' buf is left unchanged.
func ReduceInPlace[T Numeric](c *Comm, buf []T, op Op, root int) error {
	c.enter(callReduce, root, 0)
	defer c.leave()
	noteRed[T](c, op, true, false, len(buf))
	rd, err := reductionFor[T](op)
	if err != nil {
		return err
	}
	var out []byte
	if c != nil && c.rank == root {
		out = asBytes(buf)
	}
	return c.reduce(asBytes(buf), out, &rd, root)
}

// Allreduce combines send of every rank with op into recv of every rank
// (MPI_Allreduce). recv must hold at least len(send) elements.
//
// Allreduce and AllreduceInPlace have no defers, and their argument
// checks are out of line (startAllreduce): a rank sleeping at the gate has
// their frames on its stack (coll_bulk.go, meet).
func Allreduce[T Numeric](c *Comm, send, recv []T, op Op) error {
	rd, err := startAllreduce[T](c, op, false, len(send), len(recv))
	if err == nil {
		err = c.allreduceFrom(asBytes(send), asBytes(recv[:len(send)]), &rd)
	}
	c.leave()
	return err
}

// AllreduceInPlace is Allreduce with MPI_IN_PLACE: buf holds the rank's
// contribution and is replaced by the result.
func AllreduceInPlace[T Numeric](c *Comm, buf []T, op Op) error {
	rd, err := startAllreduce[T](c, op, true, len(buf), len(buf))
	if err == nil {
		err = c.allreduceAcc(asBytes(buf), &rd)
	}
	c.leave()
	return err
}

// startAllreduce enters an Allreduce of count elements of T into room
// (for the trace and the record) and returns op's reduction, or what is
// wrong with the arguments or the communicator (begin). The caller leaves
// the call whatever it returns.
//
//go:noinline
func startAllreduce[T Numeric](c *Comm, op Op, inPlace bool, count, room int) (reduction, error) {
	c.enter(callAllreduce, 0, 0)
	noteRed[T](c, op, inPlace, false, count)
	rd, err := reductionFor[T](op)
	if err == nil && room < count {
		err = errorf(ClassCount, "Allreduce: receive buffer of %d elements is shorter than the %d sent", room, count)
	}
	if err == nil {
		err = c.begin()
	}
	return rd, err
}

// reduce combines data of every rank into out at root (out may alias data).
func (c *Comm) reduce(data, out []byte, rd *reduction, root int) error {
	if err := c.begin(); err != nil {
		return err
	}
	if err := c.checkRoot(root, "Reduce"); err != nil {
		return err
	}
	if len(data)%rd.size != 0 {
		return errorf(ClassCount, "Reduce: buffer of %d bytes is not whole elements", len(data))
	}
	n, count := c.Size(), len(data)/rd.size
	if n == 1 || count == 0 {
		copy(out, data)
		return nil
	}
	a, err := forced(collReduce)
	if err != nil {
		return err
	}
	rabenOK := rd.commute && count >= pof2Below(n)
	if a == algoAuto || a == algoRabenseifner && !rabenOK {
		a = algoBinomial
		if rabenOK && rd.builtin && len(data) > ReduceShortMsgSize && !c.realPair() {
			a = algoRabenseifner
		}
	}
	c.traceAlgo(a, len(data))
	acc := c.scratch(0, len(data))
	copy(acc, data)
	if a == algoRabenseifner {
		err = c.reduceRabenseifner(acc, rd, root)
	} else {
		err = c.reduceBinomial(acc, rd, root)
	}
	if c.rank == root {
		copy(out, acc) // after a failed step too: the schedule ran to its end
	}
	return err
}

// reduceBinomial: a binomial tree over ranks relative to root; each rank
// combines its children's partial results, then sends to its parent. For a
// non-commutative operation the tree is rooted at rank 0 (so partial results
// always cover consecutive ranks) and rank 0 sends the result to root.
func (c *Comm) reduceBinomial(acc []byte, rd *reduction, root int) error {
	n := c.Size()
	lroot := root
	if !rd.commute {
		lroot = 0
	}
	rel := (c.rank - lroot + n) % n
	var tmp []byte
	var failed schedErr
	for mask := 1; mask < n; mask <<= 1 {
		if rel&mask != 0 {
			failed.keep(c.blockingSend(acc, (rel&^mask+lroot)%n, tagReduce))
			break
		}
		if src := rel | mask; src < n {
			if tmp == nil {
				tmp = c.scratch(1, len(acc))
			}
			failed.keep(c.blockingRecv(tmp, (src+lroot)%n, tagReduce))
			rd.applyRev(acc, tmp)
		}
	}
	if lroot != root {
		switch c.rank {
		case lroot:
			failed.keep(c.blockingSend(acc, root, tagReduce))
		case root:
			failed.keep(c.blockingRecv(acc, lroot, tagReduce))
		}
	}
	return failed.err
}

// The recursive-halving algorithms (Rabenseifner) first fold the ranks
// above the largest power of two pof2 below n: of the first 2*rem ranks
// (rem = n - pof2) each even one sends its data to the odd one above it and
// sits out. The remaining pof2 ranks are renumbered 0..pof2-1 in order.

// foldIn performs the fold and returns the caller's new rank, or -1 when it
// sits out.
func (c *Comm) foldIn(acc []byte, rd *reduction, tag int) (int, error) {
	n, me := c.Size(), c.rank
	rem := n - pof2Below(n)
	if me >= 2*rem {
		return me - rem, nil
	}
	if me%2 == 0 {
		return -1, c.blockingSend(acc, me+1, tag)
	}
	tmp := c.scratch(1, len(acc))
	err := c.blockingRecv(tmp, me-1, tag)
	rd.apply(tmp, acc)
	return me / 2, err // on failure the rank still takes its place in the schedule
}

// foldOut gives the ranks that sat out the final result.
func (c *Comm) foldOut(acc []byte, tag int) error {
	n, me := c.Size(), c.rank
	rem := n - pof2Below(n)
	if me >= 2*rem {
		return nil
	}
	if me%2 == 0 {
		return c.blockingRecv(acc, me+1, tag)
	}
	return c.blockingSend(acc, me-1, tag)
}

// oldRank maps a new rank of the fold back to the communicator's.
func oldRank(newrank, rem int) int {
	if newrank < rem {
		return 2*newrank + 1
	}
	return newrank + rem
}

// blockDispls cuts count elements of size bytes into p blocks: count/p each,
// the remainder to the last (MPICH's layout). disp[i] is block i's byte
// offset; disp[p] the total.
func blockDispls(count, size, p int) []int {
	disp := make([]int, p+1)
	for i := 0; i < p; i++ {
		disp[i] = i * (count / p) * size
	}
	disp[p] = count * size
	return disp
}

// halvingSteps runs recursive-halving reduce-scatter steps, one per mask in
// masks, among the pof2 ranks left after the fold. Blocks [lo,hi) are those
// the caller is responsible for; each step halves them, keeping the lower
// half when the mask's bit of newrank is 0, and exchanges the other half
// with newrank^mask. It returns the blocks the caller ends with. src, where
// not nil, holds the rank's contribution in place of acc (whose content is
// then overwritten), for a commutative operation without a fold.
func (c *Comm) halvingSteps(src, acc []byte, disp []int, newrank int, masks []int, rd *reduction, tag int) (lo, hi int, err error) {
	rem := c.Size() - pof2Below(c.Size())
	lo, hi = 0, len(disp)-1
	var tmp []byte // receives the partner's copy of the kept half: the first is the largest
	var failed schedErr
	for _, m := range masks {
		partner := newrank ^ m
		mid := (lo + hi) / 2
		klo, khi, slo, shi := lo, mid, mid, hi
		if newrank&m != 0 {
			klo, khi, slo, shi = mid, hi, lo, mid
		}
		if src != nil {
			// The first step with the contribution in src (a commutative
			// operation, no fold): the half sent goes from src, and the
			// partner's copy of the half kept arrives in acc, where src's
			// is combined into it; nothing copies src into acc.
			keep := acc[disp[klo]:disp[khi]]
			failed.keep(c.exchange(src[disp[slo]:disp[shi]], oldRank(partner, rem), keep, oldRank(partner, rem), tag))
			rd.fn(src[disp[klo]:disp[khi]], keep)
			src = nil
			lo, hi = klo, khi
			continue
		}
		if tmp == nil {
			tmp = c.scratch(1, max(disp[mid]-disp[lo], disp[hi]-disp[mid]))
		}
		keep, in := acc[disp[klo]:disp[khi]], tmp[:disp[khi]-disp[klo]]
		failed.keep(c.exchange(acc[disp[slo]:disp[shi]], oldRank(partner, rem), in, oldRank(partner, rem), tag))
		if partner < newrank {
			rd.apply(in, keep)
		} else {
			rd.applyRev(keep, in)
		}
		lo, hi = klo, khi
	}
	return lo, hi, failed.err
}

// ascendingMasks is 1, 2, 4, ... below pof2.
func ascendingMasks(pof2 int) []int {
	var m []int
	for k := 1; k < pof2; k <<= 1 {
		m = append(m, k)
	}
	return m
}

// reduceRabenseifner: recursive-halving reduce-scatter, then a binomial
// gather of the reduced blocks to root (MPICH's reduce_scatter_gather).
func (c *Comm) reduceRabenseifner(acc []byte, rd *reduction, root int) error {
	n := c.Size()
	pof2 := pof2Below(n)
	rem := n - pof2
	var failed schedErr
	newrank, err := c.foldIn(acc, rd, tagReduce)
	failed.keep(err)
	// The root's result is gathered at newroot; a root that sat out gets it
	// from the odd rank above it.
	gatherAt := root
	if root < 2*rem && root%2 == 0 {
		gatherAt = root + 1
	}
	if newrank >= 0 {
		newroot := gatherAt - rem
		if gatherAt < 2*rem {
			newroot = gatherAt / 2
		}
		disp := blockDispls(len(acc)/rd.size, rd.size, pof2)
		masks := ascendingMasks(pof2)
		lo, hi, err := c.halvingSteps(nil, acc, disp, newrank, masks, rd, tagReduce)
		failed.keep(err)
		for i := len(masks) - 1; i >= 0; i-- {
			m := masks[i]
			partner := oldRank(newrank^m, rem)
			w := hi - lo
			if newrank&m != newroot&m {
				failed.keep(c.blockingSend(acc[disp[lo]:disp[hi]], partner, tagReduce))
				break
			}
			plo, phi := hi, hi+w
			if newrank&m != 0 {
				plo, phi = lo-w, lo
			}
			failed.keep(c.blockingRecv(acc[disp[plo]:disp[phi]], partner, tagReduce))
			lo, hi = min(lo, plo), max(hi, phi)
		}
	}
	if gatherAt != root {
		switch c.rank {
		case gatherAt:
			failed.keep(c.blockingSend(acc, root, tagReduce))
		case root:
			failed.keep(c.blockingRecv(acc, gatherAt, tagReduce))
		}
	}
	return failed.err
}

// allreduce combines data of every rank into out of every rank (out may
// alias data).
func (c *Comm) allreduce(data, out []byte, rd *reduction) error {
	if err := c.begin(); err != nil {
		return err
	}
	if len(data)%rd.size != 0 {
		return errorf(ClassCount, "Allreduce: buffer of %d bytes is not whole elements", len(data))
	}
	copy(out, data)
	return c.allreduceAcc(out, rd)
}

// allreduceAcc is allreduce once acc holds the rank's contribution, of
// whole elements, on a communicator begin has checked: it receives the
// result.
func (c *Comm) allreduceAcc(acc []byte, rd *reduction) error {
	return c.allreduceFrom(nil, acc, rd)
}

// allreduceFrom is allreduceAcc with the rank's contribution in src (as
// long as acc; nil: acc holds it). Rabenseifner's algorithm may read src
// in its first step (halvingSteps), where every other algorithm copies it
// into acc first: that copy is a pass over the whole buffer, a quarter of
// a 1 MiB Allreduce at two processes (docs/collectives.md).
func (c *Comm) allreduceFrom(src, acc []byte, rd *reduction) error {
	a, err := c.allreduceAlgo(len(acc), rd)
	if src != nil && (err != nil || a != algoRabenseifner || sameStart(src, acc)) {
		copy(acc, src)
		src = nil
	}
	if err != nil || a == algoAuto {
		return err
	}
	if g := c.bulkGateFor(); g != nil && a == algoRecDbl {
		// No defer: see Barrier.
		c.r.clock.EnterEngine() // for the message path too, if it falls back (coll_bulk.go)
		ok := g.meet(c.r, bulkAllreduce, g.allreduceArgs(c, acc, rd))
		g.accs[c.rank-c.r.w.base] = nil
		if !ok {
			err = c.allreduceRecDbl(acc, rd)
		}
		c.r.clock.LeaveEngine()
		return err
	}
	switch a {
	case algoRing:
		return c.allreduceRing(acc, rd)
	case algoRabenseifner:
		return c.allreduceRabenseifner(src, acc, rd)
	}
	return c.allreduceRecDbl(acc, rd)
}

// sameStart reports whether a and b, both non-empty, begin at the same
// address: a send buffer passed again as the receive buffer (which MPI
// calls erroneous, and which then works as in place).
func sameStart(a, b []byte) bool {
	return len(a) > 0 && len(b) > 0 && &a[0] == &b[0]
}

// allreduceAlgo returns the algorithm an Allreduce of size bytes runs,
// algoAuto when there is nothing to send (one rank, no elements), or the
// error of a forced algorithm (GOMPI_COLL_ALGO). Out of line: see
// Allreduce.
//
//go:noinline
func (c *Comm) allreduceAlgo(size int, rd *reduction) (algo, error) {
	n, count := c.Size(), size/rd.size
	if n == 1 || count == 0 {
		return algoAuto, nil
	}
	a, err := forced(collAllreduce)
	if err != nil {
		return algoAuto, err
	}
	if !rd.commute || a == algoRabenseifner && count < pof2Below(n) {
		a = algoRecDbl
	}
	if a == algoAuto {
		a = algoRecDbl
		if rd.builtin && size > AllreduceShortMsgSize && count >= pof2Below(n) &&
			!(c.realPair() && size <= allreduceTwoRankMax) {
			a = algoRabenseifner
		}
	}
	c.traceAlgo(a, size)
	return a, nil
}

// allreduceRecDbl: after the fold, log2(pof2) rounds in which rank swaps its
// whole partial result with newrank^2^k and combines (lower ranks' part on
// the left, so non-commutative operations keep rank order).
func (c *Comm) allreduceRecDbl(acc []byte, rd *reduction) error {
	n := c.Size()
	pof2 := pof2Below(n)
	rem := n - pof2
	var failed schedErr
	newrank, err := c.foldIn(acc, rd, tagAllreduce)
	failed.keep(err)
	if newrank >= 0 {
		tmp := c.scratch(1, len(acc))
		for mask := 1; mask < pof2; mask <<= 1 {
			dst := oldRank(newrank^mask, rem)
			failed.keep(c.exchange(acc, dst, tmp, dst, tagAllreduce))
			if dst < c.rank {
				rd.apply(tmp, acc)
			} else {
				rd.applyRev(acc, tmp)
			}
		}
	}
	failed.keep(c.foldOut(acc, tagAllreduce))
	return failed.err
}

// allreduceRabenseifner: recursive-halving reduce-scatter, then
// recursive-doubling allgather of the reduced blocks. src, where not nil,
// holds the contribution instead of acc: see halvingSteps.
func (c *Comm) allreduceRabenseifner(src, acc []byte, rd *reduction) error {
	n := c.Size()
	pof2 := pof2Below(n)
	rem := n - pof2
	if src != nil && rem > 0 {
		copy(acc, src) // the fold sends and combines acc whole
		src = nil
	}
	var failed schedErr
	newrank, err := c.foldIn(acc, rd, tagAllreduce)
	failed.keep(err)
	if newrank >= 0 {
		disp := blockDispls(len(acc)/rd.size, rd.size, pof2)
		masks := ascendingMasks(pof2)
		lo, hi, err := c.halvingSteps(src, acc, disp, newrank, masks, rd, tagAllreduce)
		failed.keep(err)
		for i := len(masks) - 1; i >= 0; i-- {
			m := masks[i]
			partner := oldRank(newrank^m, rem)
			w := hi - lo
			plo, phi := hi, hi+w
			if newrank&m != 0 {
				plo, phi = lo-w, lo
			}
			failed.keep(c.exchange(acc[disp[lo]:disp[hi]], partner, acc[disp[plo]:disp[phi]], partner, tagAllreduce))
			lo, hi = min(lo, plo), max(hi, phi)
		}
	}
	failed.keep(c.foldOut(acc, tagAllreduce))
	return failed.err
}

// allreduceRing: the buffer is cut into n chunks; n-1 ring steps
// reduce-scatter them (each rank ends owning one fully reduced chunk), and
// n-1 more circulate the reduced chunks. Commutative operations only.
func (c *Comm) allreduceRing(acc []byte, rd *reduction) error {
	n, me := c.Size(), c.rank
	count := len(acc) / rd.size
	chunk := func(i int) (int, int) { // MPICH's layout: the first count%n chunks one longer
		i = ((i % n) + n) % n
		q, r := count/n, count%n
		lo := i*q + min(i, r)
		hi := lo + q
		if i < r {
			hi++
		}
		return lo * rd.size, hi * rd.size
	}
	right, left := (me+1)%n, (me-1+n)%n
	tmp := c.scratch(1, (count/n+1)*rd.size)
	var failed schedErr
	for i := 0; i < n-1; i++ {
		slo, shi := chunk(me - i)
		rlo, rhi := chunk(me - i - 1)
		in := tmp[:rhi-rlo]
		failed.keep(c.exchange(acc[slo:shi], right, in, left, tagAllreduce))
		rd.apply(in, acc[rlo:rhi])
	}
	for i := 0; i < n-1; i++ {
		slo, shi := chunk(me + 1 - i)
		rlo, rhi := chunk(me - i)
		failed.keep(c.exchange(acc[slo:shi], right, acc[rlo:rhi], left, tagAllreduce))
	}
	return failed.err
}
