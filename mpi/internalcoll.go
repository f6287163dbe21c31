package mpi

// Tags of the library's own messages on a communicator's collective context.
// User traffic uses the point-to-point context, so these never meet it.
const (
	tagContext = 1<<30 + iota
	tagSplit
)

// The few collectives communicator management needs, written directly on the
// engine (binomial trees rooted at rank 0). They use the collective context.

// recvAlloc receives a message of unknown size from comm rank src on the
// collective context.
func (c *Comm) recvAlloc(src, tag int) ([]byte, error) {
	st, err := c.probeCtx(c.group.worldRank(src), tag, c.ctx+1, true)
	if err != nil {
		return nil, err
	}
	buf := make([]byte, st.Bytes)
	return buf, c.blockingRecv(buf, src, tag)
}

// allreduceBytes combines buf over all ranks of c with combine (which must
// be commutative and associative) and leaves the result in buf everywhere.
// Like the collectives, it runs its whole schedule after a failed step.
func (c *Comm) allreduceBytes(buf []byte, tag int, combine func(acc, in []byte)) error {
	n, me := c.Size(), c.rank
	tmp := make([]byte, len(buf))
	var failed schedErr
	for mask := 1; mask < n; mask <<= 1 { // binomial reduce to 0
		if me&mask != 0 {
			failed.keep(c.blockingSend(buf, me-mask, tag))
			break
		}
		if me+mask < n {
			failed.keep(c.blockingRecv(tmp, me+mask, tag))
			combine(buf, tmp)
		}
	}
	failed.keep(c.bcastBytes(buf, tag))
	return failed.err
}

// bcastBytes broadcasts buf from rank 0 along a binomial tree.
func (c *Comm) bcastBytes(buf []byte, tag int) error { return c.binomialBcast(buf, 0, tag) }

// gatherBytes gathers equal-size blocks to rank 0 along a binomial tree;
// rank 0 gets all blocks in rank order, the others nil.
func (c *Comm) gatherBytes(mine []byte, tag int) ([]byte, error) {
	n, me := c.Size(), c.rank
	bs := len(mine)
	// A rank owns the blocks of ranks [me, me+subtree).
	acc := append([]byte(nil), mine...)
	var failed schedErr
	for mask := 1; mask < n; mask <<= 1 {
		if me&mask != 0 {
			failed.keep(c.blockingSend(acc, me-mask, tag))
			return nil, failed.err
		}
		if me+mask < n {
			cnt := min(mask, n-me-mask)
			part := make([]byte, cnt*bs)
			failed.keep(c.blockingRecv(part, me+mask, tag))
			acc = append(acc, part...)
		}
	}
	return acc, failed.err
}
