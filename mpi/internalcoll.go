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
	q := c.r.irecv(c, buf, c.group.worldRank(src), tag, c.ctx+1)
	_, err = q.wait()
	return buf, err
}

// allreduceBytes combines buf over all ranks of c with combine (which must
// be commutative and associative) and leaves the result in buf everywhere.
func (c *Comm) allreduceBytes(buf []byte, tag int, combine func(acc, in []byte)) error {
	n, me, ctx := c.Size(), c.rank, c.ctx+1
	tmp := make([]byte, len(buf))
	for mask := 1; mask < n; mask <<= 1 { // binomial reduce to 0
		if me&mask != 0 {
			if _, err := c.r.isend(c, buf, c.group.worldRank(me-mask), tag, ctx, false).wait(); err != nil {
				return err
			}
			break
		}
		if me+mask < n {
			if _, err := c.r.irecv(c, tmp, c.group.worldRank(me+mask), tag, ctx).wait(); err != nil {
				return err
			}
			combine(buf, tmp)
		}
	}
	return c.bcastBytes(buf, tag)
}

// bcastBytes broadcasts buf from rank 0 along a binomial tree.
func (c *Comm) bcastBytes(buf []byte, tag int) error {
	n, me, ctx := c.Size(), c.rank, c.ctx+1
	mask := 1
	for mask < n {
		if me&mask != 0 {
			if _, err := c.r.irecv(c, buf, c.group.worldRank(me-mask), tag, ctx).wait(); err != nil {
				return err
			}
			break
		}
		mask <<= 1
	}
	for mask >>= 1; mask > 0; mask >>= 1 {
		if me+mask < n {
			if _, err := c.r.isend(c, buf, c.group.worldRank(me+mask), tag, ctx, false).wait(); err != nil {
				return err
			}
		}
	}
	return nil
}

// gatherBytes gathers equal-size blocks to rank 0 along a binomial tree;
// rank 0 gets all blocks in rank order, the others nil.
func (c *Comm) gatherBytes(mine []byte, tag int) ([]byte, error) {
	n, me, ctx := c.Size(), c.rank, c.ctx+1
	bs := len(mine)
	// A rank owns the blocks of ranks [me, me+subtree).
	acc := append([]byte(nil), mine...)
	for mask := 1; mask < n; mask <<= 1 {
		if me&mask != 0 {
			if _, err := c.r.isend(c, acc, c.group.worldRank(me-mask), tag, ctx, false).wait(); err != nil {
				return nil, err
			}
			return nil, nil
		}
		if me+mask < n {
			cnt := min(mask, n-me-mask)
			part := make([]byte, cnt*bs)
			if _, err := c.r.irecv(c, part, c.group.worldRank(me+mask), tag, ctx).wait(); err != nil {
				return nil, err
			}
			acc = append(acc, part...)
		}
	}
	return acc, nil
}
