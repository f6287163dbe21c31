package mpi

// Allgather collects send of every rank, in rank order, into recv of every
// rank (MPI_Allgather). Every rank sends len(send) elements; recv must hold
// Size()*len(send).
func Allgather[T Numeric](c *Comm, send, recv []T) error {
	c.enter(callAllgather, 0, 0)
	defer c.leave()
	noteColl(c, false, send, recv)
	if err := c.begin(); err != nil {
		return err
	}
	n, k := c.Size(), len(send)
	if len(recv) < n*k {
		return errorf(ClassCount, "Allgather: receive buffer of %d elements, need %d", len(recv), n*k)
	}
	copy(recv[c.rank*k:], send)
	return c.allgather(asBytes(recv[:n*k]), uniformOffsets(n, k*sizeOf[T]()))
}

// AllgatherInPlace is Allgather with MPI_IN_PLACE: buf holds Size() equal
// blocks, the caller's own already at its position.
func AllgatherInPlace[T Numeric](c *Comm, buf []T) error {
	c.enter(callAllgather, 0, 0)
	defer c.leave()
	noteColl(c, true, buf, nil)
	if err := c.begin(); err != nil {
		return err
	}
	n := c.Size()
	if len(buf)%n != 0 {
		return errorf(ClassCount, "AllgatherInPlace: buffer of %d elements is not %d equal blocks", len(buf), n)
	}
	return c.allgather(asBytes(buf), uniformOffsets(n, len(buf)/n*sizeOf[T]()))
}

// Allgatherv is Allgather with a count per rank: rank i's len(send) elements
// land at recv[displs[i]:displs[i]+counts[i]] on every rank
// (MPI_Allgatherv).
func Allgatherv[T Numeric](c *Comm, send, recv []T, counts, displs []int) error {
	c.enter(callAllgatherv, 0, 0)
	defer c.leave()
	noteColl(c, false, send, recv)
	noteInts(c, counts, sizeOf[T]())
	noteInts(c, displs, sizeOf[T]())
	return allgatherv(c, send, recv, counts, displs, false)
}

// AllgathervInPlace is Allgatherv with MPI_IN_PLACE: the caller's block is
// already at buf[displs[rank]:].
func AllgathervInPlace[T Numeric](c *Comm, buf []T, counts, displs []int) error {
	c.enter(callAllgatherv, 0, 0)
	defer c.leave()
	noteColl(c, true, buf, nil)
	noteInts(c, counts, sizeOf[T]())
	noteInts(c, displs, sizeOf[T]())
	return allgatherv(c, nil, buf, counts, displs, true)
}

func allgatherv[T Numeric](c *Comm, send, recv []T, counts, displs []int, inPlace bool) error {
	if err := c.begin(); err != nil {
		return err
	}
	n, me := c.Size(), c.rank
	if err := checkV("Allgatherv", n, counts, displs, len(recv)); err != nil {
		return err
	}
	if !inPlace {
		if len(send) != counts[me] {
			return errorf(ClassCount, "Allgatherv: rank %d sends %d elements but counts[%d] is %d", me, len(send), me, counts[me])
		}
		copy(recv[displs[me]:], send)
	}
	size := sizeOf[T]()
	off := make([]int, n+1)
	packed := true
	for i := 0; i < n; i++ {
		packed = packed && displs[i] == off[i]/size
		off[i+1] = off[i] + counts[i]*size
	}
	if packed {
		return c.allgather(asBytes(recv)[:off[n]], off)
	}
	// Blocks not laid out back to back: run the algorithm on a packed copy.
	buf := make([]byte, off[n])
	rb := asBytes(recv)
	copy(buf[off[me]:off[me+1]], rb[displs[me]*size:])
	err := c.allgather(buf, off)
	for i := 0; i < n; i++ {
		copy(rb[displs[i]*size:], buf[off[i]:off[i+1]])
	}
	return err
}

func uniformOffsets(n, bs int) []int {
	off := make([]int, n+1)
	for i := range off {
		off[i] = i * bs
	}
	return off
}

// allgather completes buf, whose block i is [off[i], off[i+1]) and whose
// caller's block is already in place.
func (c *Comm) allgather(buf []byte, off []int) error {
	n := c.Size()
	if n == 1 || off[n] == 0 {
		return nil
	}
	a, err := forced(collAllgather)
	if err != nil {
		return err
	}
	if a == algoAuto {
		total := off[n]
		switch {
		case total < AllgatherLongMsgSize && isPof2(n):
			a = algoRecDbl
		case total < AllgatherShortMsgSize:
			a = algoBruck
		default:
			a = algoRing
		}
	}
	c.traceAlgo(a, len(buf))
	switch a {
	case algoRecDbl:
		return c.allgatherRecDbl(buf, off, c.rank, func(x int) int { return x }, tagAllgather)
	case algoBruck:
		return c.allgatherBruck(buf, off)
	}
	return c.allgatherRing(buf, off)
}

// allgatherRing: n-1 steps; in step i a rank passes block rank-i to its
// right neighbour and receives block rank-i-1 from its left.
func (c *Comm) allgatherRing(buf []byte, off []int) error {
	n, me := c.Size(), c.rank
	right, left := (me+1)%n, (me-1+n)%n
	var failed schedErr
	for i := 0; i < n-1; i++ {
		s, r := (me-i+n)%n, (me-i-1+n)%n
		failed.keep(c.exchange(buf[off[s]:off[s+1]], right, buf[off[r]:off[r+1]], left, tagAllgather))
	}
	return failed.err
}

// allgatherRecDbl is MPICH's recursive doubling: in round k a rank swaps
// the blocks of its subtree of 2^k ranks with rank^2^k. When n is not a
// power of two some partners do not exist; the ranks of a subtree that did
// have one then pass the blocks they got down to those that did not, by
// recursive halving inside the subtree (MPICH's fix-up; by default this
// algorithm is chosen only for powers of two, where no fix-up happens).
// me is the caller's position in the block order and peer maps a position
// to a communicator rank (Bcast runs this on ranks relative to its root).
func (c *Comm) allgatherRecDbl(buf []byte, off []int, me int, peer func(int) int, tag int) error {
	n := c.Size()
	blocks := func(lo, hi int) []byte { return buf[off[min(lo, n)]:off[min(hi, n)]] }
	var failed schedErr
	for i, mask := 0, 1; mask < n; i, mask = i+1, mask<<1 {
		dst := me ^ mask
		myRoot, dstRoot := me>>i<<i, dst>>i<<i
		if dst < n {
			failed.keep(c.exchange(blocks(myRoot, myRoot+mask), peer(dst), blocks(dstRoot, dstRoot+mask), peer(dst), tag))
		}
		if dstRoot+mask <= n {
			continue
		}
		// The sibling subtree is cut short by n: only the first `have`
		// ranks of this subtree got its blocks (have <= 0: it has none).
		have := n - myRoot - mask
		missing := blocks(myRoot+mask, n)
		k := i
		for tm := mask >> 1; tm > 0; tm >>= 1 {
			d := me ^ tm
			root := me >> k << k
			switch {
			case d > me && me < root+have && d >= root+have:
				failed.keep(c.blockingSend(missing, peer(d), tag))
			case d < me && d < root+have && me >= root+have:
				failed.keep(c.blockingRecv(missing, peer(d), tag))
			}
			k--
		}
	}
	return failed.err
}

// allgatherBruck: ceil(log2 n) rounds on a copy rotated so that the
// caller's block comes first; in round k a rank sends the first
// min(2^k, n-2^k) blocks it holds to rank-2^k and appends those of
// rank+2^k. A final rotation puts the blocks in rank order.
func (c *Comm) allgatherBruck(buf []byte, off []int) error {
	n, me := c.Size(), c.rank
	rot := make([]int, n+1) // rot[j]: offset of block (me+j)%n in tmp
	for j := 0; j < n; j++ {
		b := (me + j) % n
		rot[j+1] = rot[j] + off[b+1] - off[b]
	}
	tmp := make([]byte, rot[n])
	copy(tmp, buf[off[me]:off[me+1]])
	var failed schedErr
	for pow := 1; pow < n; pow <<= 1 {
		cnt := min(pow, n-pow)
		failed.keep(c.exchange(tmp[:rot[cnt]], (me-pow+n)%n, tmp[rot[pow]:rot[pow+cnt]], (me+pow)%n, tagAllgather))
	}
	for j := 0; j < n; j++ {
		b := (me + j) % n
		copy(buf[off[b]:off[b+1]], tmp[rot[j]:rot[j+1]])
	}
	return failed.err
}
