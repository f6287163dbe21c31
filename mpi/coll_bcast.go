package mpi

// Bcast sends buf of rank root to every rank of c, which receive it into
// their buf (MPI_Bcast). Every rank passes a buffer of the same length.
func Bcast[T Numeric](c *Comm, buf []T, root int) error {
	c.enter(callBcast, root, 0)
	defer c.leave()
	noteBytes(c, buf)
	return c.bcast(asBytes(buf), root)
}

func (c *Comm) bcast(buf []byte, root int) error {
	if err := c.begin(); err != nil {
		return err
	}
	if err := c.checkRoot(root, "Bcast"); err != nil {
		return err
	}
	n, nb := c.Size(), len(buf)
	if n == 1 || nb == 0 {
		return nil
	}
	a, err := forced(collBcast)
	if err != nil {
		return err
	}
	if a == algoAuto {
		switch {
		case nb < BcastShortMsgSize || n < BcastMinProcs:
			a = algoBinomial
		case nb < BcastLongMsgSize && isPof2(n):
			a = algoScatterRecDbl
		default:
			a = algoScatterRing
		}
	}
	c.traceAlgo(a, nb)
	if a == algoBinomial {
		return c.bcastBinomial(buf, root)
	}
	var failed schedErr
	failed.keep(c.scatterForBcast(buf, root))
	if a == algoScatterRecDbl {
		failed.keep(c.bcastRecDblAllgather(buf, root))
	} else {
		failed.keep(c.bcastRingAllgather(buf, root))
	}
	return failed.err
}

// bcastBinomial: ranks relative to root form a binomial tree; a rank
// receives from its parent, then sends to its children, farthest first,
// one blocking send after another as MPICH does (above the eager limit the
// next child's handshake starts only when the previous transfer is done,
// and predictions must see that).
func (c *Comm) bcastBinomial(buf []byte, root int) error {
	return c.binomialBcast(buf, root, tagBcast)
}

// binomialBcast is the binomial tree from root with the given tag, for the
// public Bcast and the library's own broadcasts (bcastBytes).
func (c *Comm) binomialBcast(buf []byte, root, tag int) error {
	n := c.Size()
	rel := (c.rank - root + n) % n
	var failed schedErr
	mask := 1
	for mask < n {
		if rel&mask != 0 {
			failed.keep(c.blockingRecv(buf, (rel-mask+root)%n, tag))
			break
		}
		mask <<= 1
	}
	for mask >>= 1; mask > 0; mask >>= 1 {
		if rel+mask < n {
			failed.keep(c.blockingSend(buf, (rel+mask+root)%n, tag))
		}
	}
	return failed.err
}

// bcastChunk is the byte range of relative rank j's chunk when buf is cut
// into n chunks of ceil(len/n) bytes (the last ones may be short or empty).
func bcastChunk(nb, n, j, k int) (lo, hi int) {
	ss := (nb + n - 1) / n
	lo, hi = min(j*ss, nb), min((j+k)*ss, nb)
	return lo, hi
}

// scatterForBcast is a binomial scatter of root's buffer: afterwards
// relative rank j holds (at least) chunk j in place.
func (c *Comm) scatterForBcast(buf []byte, root int) error {
	n, nb := c.Size(), len(buf)
	rel := (c.rank - root + n) % n
	var failed schedErr
	mask := 1
	for mask < n {
		if rel&mask != 0 {
			lo, hi := bcastChunk(nb, n, rel, mask)
			if hi > lo {
				failed.keep(c.blockingRecv(buf[lo:hi], (rel-mask+root)%n, tagBcast))
			}
			break
		}
		mask <<= 1
	}
	for mask >>= 1; mask > 0; mask >>= 1 {
		if rel+mask < n {
			lo, hi := bcastChunk(nb, n, rel+mask, mask)
			if hi > lo {
				failed.keep(c.blockingSend(buf[lo:hi], (rel+mask+root)%n, tagBcast))
			}
		}
	}
	return failed.err
}

// bcastRingAllgather circulates the chunks around the ring of relative
// ranks: n-1 steps, each passing one chunk to the right.
func (c *Comm) bcastRingAllgather(buf []byte, root int) error {
	n, nb := c.Size(), len(buf)
	rel := (c.rank - root + n) % n
	right, left := (c.rank+1)%n, (c.rank-1+n)%n
	j, jnext := rel, (rel-1+n)%n
	var failed schedErr
	for i := 1; i < n; i++ {
		slo, shi := bcastChunk(nb, n, j, 1)
		rlo, rhi := bcastChunk(nb, n, jnext, 1)
		failed.keep(c.exchange(buf[slo:shi], right, buf[rlo:rhi], left, tagBcast))
		j, jnext = jnext, (jnext-1+n)%n
	}
	return failed.err
}

// bcastRecDblAllgather gathers the chunks by recursive doubling over ranks
// relative to root (with MPICH's fix-up when n is not a power of two).
func (c *Comm) bcastRecDblAllgather(buf []byte, root int) error {
	n, nb := c.Size(), len(buf)
	off := make([]int, n+1)
	for j := range off {
		off[j], _ = bcastChunk(nb, n, j, 0)
	}
	rel := (c.rank - root + n) % n
	return c.allgatherRecDbl(buf, off, rel, func(x int) int { return (x + root) % n }, tagBcast)
}
