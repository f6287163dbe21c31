package mpi

// Alltoall sends block j of send to rank j and receives rank j's block into
// block j of recv, on every rank (MPI_Alltoall). len(send) must be a
// multiple of Size(); recv must be at least as long.
func Alltoall[T Numeric](c *Comm, send, recv []T) error {
	c.enter(callAlltoall, 0, 0)
	defer c.leave()
	noteColl(c, false, send, recv)
	if err := c.begin(); err != nil {
		return err
	}
	n := c.Size()
	if len(send)%n != 0 {
		return errorf(ClassCount, "Alltoall: send buffer of %d elements is not %d equal blocks", len(send), n)
	}
	if len(recv) < len(send) {
		return errorf(ClassCount, "Alltoall: receive buffer of %d elements, need %d", len(recv), len(send))
	}
	if overlap(asBytes(send), asBytes(recv)) {
		return errorf(ClassBuffer, "Alltoall: send and receive buffers overlap (use AlltoallInPlace)")
	}
	return c.alltoall(asBytes(send), asBytes(recv[:len(send)]), len(send)/n*sizeOf[T]())
}

// AlltoallInPlace is Alltoall with MPI_IN_PLACE: buf holds the blocks to
// send and is replaced by the blocks received. As in MPICH it runs as
// pairwise exchanges, each replacing one block.
func AlltoallInPlace[T Numeric](c *Comm, buf []T) error {
	c.enter(callAlltoall, 0, 0)
	defer c.leave()
	noteColl(c, true, buf, nil)
	if err := c.begin(); err != nil {
		return err
	}
	n := c.Size()
	if len(buf)%n != 0 {
		return errorf(ClassCount, "AlltoallInPlace: buffer of %d elements is not %d equal blocks", len(buf), n)
	}
	b := asBytes(buf)
	bs := len(b) / n
	return c.alltoallReplace(func(j int) []byte { return b[j*bs : (j+1)*bs] }, bs)
}

func (c *Comm) alltoall(send, recv []byte, bs int) error {
	n, me := c.Size(), c.rank
	copy(recv[me*bs:(me+1)*bs], send[me*bs:(me+1)*bs])
	if n == 1 || bs == 0 {
		return nil
	}
	a, err := forced(collAlltoall)
	if err != nil {
		return err
	}
	if a == algoAuto {
		switch {
		case bs <= AlltoallShortMsgSize && n >= 8:
			a = algoBruck
		case bs < AlltoallMediumMsgSize:
			a = algoScattered
		default:
			a = algoPairwise
		}
	}
	c.traceAlgo(a, len(send))
	switch a {
	case algoBruck:
		return c.alltoallBruck(send, recv, bs)
	case algoScattered:
		return c.alltoallScattered(
			func(j int) []byte { return send[j*bs : (j+1)*bs] },
			func(j int) []byte { return recv[j*bs : (j+1)*bs] })
	}
	return c.alltoallPairwise(send, recv, bs)
}

// alltoallBruck: rotate so that block i is for rank+i; in round k every
// block whose index has bit k set moves to rank+2^k (one message packing
// them all); a final rotation puts the blocks in source order. ceil(log2 n)
// messages per rank, each about n/2 blocks.
func (c *Comm) alltoallBruck(send, recv []byte, bs int) error {
	n, me := c.Size(), c.rank
	tmp := make([]byte, n*bs)
	for i := 0; i < n; i++ {
		j := (me + i) % n
		copy(tmp[i*bs:(i+1)*bs], send[j*bs:(j+1)*bs])
	}
	pack := make([]byte, (n/2+1)*bs)
	unpack := make([]byte, (n/2+1)*bs)
	var failed schedErr
	for pow := 1; pow < n; pow <<= 1 {
		k := 0
		for i := 0; i < n; i++ {
			if i&pow != 0 {
				copy(pack[k*bs:(k+1)*bs], tmp[i*bs:(i+1)*bs])
				k++
			}
		}
		failed.keep(c.exchange(pack[:k*bs], (me+pow)%n, unpack[:k*bs], (me-pow+n)%n, tagAlltoall))
		k = 0
		for i := 0; i < n; i++ {
			if i&pow != 0 {
				copy(tmp[i*bs:(i+1)*bs], unpack[k*bs:(k+1)*bs])
				k++
			}
		}
	}
	// tmp[i] now came from rank me-i.
	for i := 0; i < n; i++ {
		j := (me - i + n) % n
		copy(recv[j*bs:(j+1)*bs], tmp[i*bs:(i+1)*bs])
	}
	return failed.err
}

// alltoallScattered posts every receive and send at once, in batches of
// AlltoallThrottle peers (rank+i for receives, rank-i for sends, so that
// not everyone hits the same rank first), and waits for each batch.
// sblk(j) and rblk(j) are the blocks for and from rank j.
func (c *Comm) alltoallScattered(sblk, rblk func(j int) []byte) error {
	n, me := c.Size(), c.rank
	window := min(AlltoallThrottle, n)
	spare := c.spareReqs(2 * window) // nil in a schedule: new requests
	var reqs []*Request
	if spare != nil {
		reqs = c.r.spare.ptrs[:0] // spareReqs made c.r.spare
	}
	next := func() *Request {
		if spare == nil {
			return nil
		}
		q := &spare[0]
		spare = spare[1:]
		return q
	}
	var failed schedErr
	for lo := 0; lo < n; lo += AlltoallThrottle {
		reqs = reqs[:0]
		if spare != nil {
			spare = c.spareReqs(2 * window)
		}
		hi := min(lo+AlltoallThrottle, n)
		for i := lo; i < hi; i++ {
			if src := (me + i) % n; src != me && len(rblk(src)) > 0 {
				reqs = append(reqs, c.crecvInto(next(), rblk(src), src, tagAlltoall))
			}
		}
		for i := lo; i < hi; i++ {
			if dst := (me - i + n) % n; dst != me && len(sblk(dst)) > 0 {
				if sent, err := c.csendSmall(sblk(dst), dst, tagAlltoall); sent { // p2p_small.go
					failed.keep(err)
					continue
				}
				reqs = append(reqs, c.csendInto(next(), sblk(dst), dst, tagAlltoall))
			}
		}
		if len(reqs) > 0 {
			failed.keep(c.waitColl(reqs...))
		}
	}
	if c.r.nbc.cur == nil {
		clear(reqs)
		c.r.spare.ptrs = reqs[:0] // kept for the next call
	}
	return failed.err
}

// alltoallPairwise: n-1 steps, one exchange each: with rank^i when n is a
// power of two, else send to rank+i and receive from rank-i.
func (c *Comm) alltoallPairwise(send, recv []byte, bs int) error {
	n, me := c.Size(), c.rank
	var failed schedErr
	for i := 1; i < n; i++ {
		src, dst := (me-i+n)%n, (me+i)%n
		if isPof2(n) {
			src, dst = me^i, me^i
		}
		failed.keep(c.exchange(send[dst*bs:(dst+1)*bs], dst, recv[src*bs:(src+1)*bs], src, tagAlltoall))
	}
	return failed.err
}

// alltoallReplace is the in-place algorithm: for every pair of ranks (i, j)
// in a fixed order, the two swap block j of i with block i of j through a
// temporary (MPICH's sendrecv_replace schedule). blk(j) is the block
// exchanged with rank j; maxb is the largest block.
func (c *Comm) alltoallReplace(blk func(j int) []byte, maxb int) error {
	n, me := c.Size(), c.rank
	tmp := make([]byte, maxb)
	var failed schedErr
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			peer := -1
			switch me {
			case i:
				peer = j
			case j:
				peer = i
			}
			if peer < 0 {
				continue
			}
			b := blk(peer)
			t := tmp[:len(b)]
			copy(t, b)
			failed.keep(c.exchange(t, peer, b, peer, tagAlltoall))
		}
	}
	return failed.err
}

// Alltoallv is Alltoall with a count and displacement per peer: rank sends
// send[sendDispls[j]:][:sendCounts[j]] to rank j and receives rank j's into
// recv[recvDispls[j]:][:recvCounts[j]] (MPI_Alltoallv). As in MPICH all
// sends and receives are posted at once, in batches.
func Alltoallv[T Numeric](c *Comm, send []T, sendCounts, sendDispls []int, recv []T, recvCounts, recvDispls []int) error {
	c.enter(callAlltoallv, 0, 0)
	defer c.leave()
	noteColl(c, false, send, recv)
	noteInts(c, sendCounts, sizeOf[T]())
	noteInts(c, sendDispls, sizeOf[T]())
	noteInts(c, recvCounts, sizeOf[T]())
	noteInts(c, recvDispls, sizeOf[T]())
	if err := c.begin(); err != nil {
		return err
	}
	n, me := c.Size(), c.rank
	if err := checkV("Alltoallv (send)", n, sendCounts, sendDispls, len(send)); err != nil {
		return err
	}
	if err := checkV("Alltoallv (receive)", n, recvCounts, recvDispls, len(recv)); err != nil {
		return err
	}
	if sendCounts[me] != recvCounts[me] {
		return errorf(ClassCount, "Alltoallv: rank %d sends itself %d elements but receives %d", me, sendCounts[me], recvCounts[me])
	}
	if overlap(asBytes(send), asBytes(recv)) {
		return errorf(ClassBuffer, "Alltoallv: send and receive buffers overlap (use AlltoallvInPlace)")
	}
	copy(recv[recvDispls[me]:recvDispls[me]+recvCounts[me]], send[sendDispls[me]:])
	if n == 1 {
		return nil
	}
	sb, rb := asBytes(send), asBytes(recv)
	size := sizeOf[T]()
	return c.alltoallScattered(
		func(j int) []byte { return sb[sendDispls[j]*size : (sendDispls[j]+sendCounts[j])*size] },
		func(j int) []byte { return rb[recvDispls[j]*size : (recvDispls[j]+recvCounts[j])*size] })
}

// AlltoallvInPlace is Alltoallv with MPI_IN_PLACE: buf holds the blocks to
// send, counts[j] elements at displs[j] for rank j, and each is replaced by
// the block rank j sends (which must have the same count).
func AlltoallvInPlace[T Numeric](c *Comm, buf []T, counts, displs []int) error {
	c.enter(callAlltoallv, 0, 0)
	defer c.leave()
	noteColl(c, true, buf, nil)
	noteInts(c, counts, sizeOf[T]())
	noteInts(c, displs, sizeOf[T]())
	if err := c.begin(); err != nil {
		return err
	}
	n := c.Size()
	if err := checkV("AlltoallvInPlace", n, counts, displs, len(buf)); err != nil {
		return err
	}
	size := sizeOf[T]()
	b := asBytes(buf)
	maxb := 0
	for j := 0; j < n; j++ {
		maxb = max(maxb, counts[j]*size)
	}
	return c.alltoallReplace(func(j int) []byte { return b[displs[j]*size : (displs[j]+counts[j])*size] }, maxb)
}
