package mpi

// Gather collects send of every rank, in rank order, into recv of rank root
// (MPI_Gather). Every rank sends len(send) elements (the same on all); recv
// is used only at root, where it must hold Size()*len(send) elements.
func Gather[T Numeric](c *Comm, send, recv []T, root int) error {
	c.enter(callGather, root, 0)
	defer c.leave()
	noteColl(c, false, send, recv)
	var out []byte
	if c != nil && c.rank == root {
		need := c.Size() * len(send)
		if len(recv) < need {
			return errorf(ClassCount, "Gather: receive buffer of %d elements, need %d", len(recv), need)
		}
		out = asBytes(recv[:need])
	}
	return c.gather(asBytes(send), out, root)
}

// GatherInPlace is Gather with MPI_IN_PLACE at the root: root passes the
// whole receive buffer with its own block already at its position; the
// other ranks pass their block. The block size is len(buf)/Size() at root.
func GatherInPlace[T Numeric](c *Comm, buf []T, root int) error {
	c.enter(callGather, root, 0)
	defer c.leave()
	noteColl(c, true, buf, nil)
	if c != nil && c.rank == root {
		if err := c.begin(); err != nil {
			return err
		}
		n := c.Size()
		if len(buf)%n != 0 {
			return errorf(ClassCount, "GatherInPlace: root buffer of %d elements is not %d equal blocks", len(buf), n)
		}
		b := asBytes(buf)
		bs := len(b) / n
		return c.gather(b[root*bs:(root+1)*bs], b, root)
	}
	return c.gather(asBytes(buf), nil, root)
}

// gather is the binomial gather (MPICH's): over ranks relative to root, each
// rank receives the blocks of its subtree from its children, largest last,
// and passes all it holds to its parent.
func (c *Comm) gather(data, out []byte, root int) error {
	if err := c.begin(); err != nil {
		return err
	}
	if err := c.checkRoot(root, "Gather"); err != nil {
		return err
	}
	n, bs := c.Size(), len(data)
	if bs == 0 {
		return nil
	}
	rel := (c.rank - root + n) % n
	sub := subtree(rel, n)
	var tmp []byte
	if rel == 0 && root == 0 {
		tmp = out
	} else {
		tmp = make([]byte, sub*bs)
	}
	copy(tmp[:bs], data)
	var failed schedErr
	for mask := 1; mask < n; mask <<= 1 {
		if rel&mask != 0 {
			failed.keep(c.blockingSend(tmp[:sub*bs], (rel&^mask+root)%n, tagGather))
			return failed.err
		}
		if src := rel | mask; src < n {
			cnt := min(mask, n-src)
			failed.keep(c.blockingRecv(tmp[mask*bs:(mask+cnt)*bs], (src+root)%n, tagGather))
		}
	}
	if root != 0 {
		for j := 0; j < n; j++ {
			k := (j + root) % n
			copy(out[k*bs:(k+1)*bs], tmp[j*bs:(j+1)*bs])
		}
	}
	return failed.err
}

// subtree is the number of ranks in the binomial subtree of relative rank
// rel: its lowest set bit (all n for the root), clipped to the ranks that
// exist.
func subtree(rel, n int) int {
	if rel == 0 {
		return n
	}
	return min(rel&-rel, n-rel)
}

// Scatter sends block i of send at rank root to rank i, which receives it
// into recv (MPI_Scatter). The block size is len(recv) (the same on all);
// send is used only at root, where it must hold Size()*len(recv) elements.
func Scatter[T Numeric](c *Comm, send, recv []T, root int) error {
	c.enter(callScatter, root, 0)
	defer c.leave()
	noteColl(c, false, send, recv)
	var in []byte
	if c != nil && c.rank == root {
		need := c.Size() * len(recv)
		if len(send) < need {
			return errorf(ClassCount, "Scatter: send buffer of %d elements, need %d", len(send), need)
		}
		in = asBytes(send[:need])
	}
	return c.scatter(in, asBytes(recv), root)
}

// ScatterInPlace is Scatter with MPI_IN_PLACE at the root: root passes the
// whole send buffer and keeps its own block where it is; the other ranks
// pass their receive block.
func ScatterInPlace[T Numeric](c *Comm, buf []T, root int) error {
	c.enter(callScatter, root, 0)
	defer c.leave()
	noteColl(c, true, buf, nil)
	if c != nil && c.rank == root {
		if err := c.begin(); err != nil {
			return err
		}
		n := c.Size()
		if len(buf)%n != 0 {
			return errorf(ClassCount, "ScatterInPlace: root buffer of %d elements is not %d equal blocks", len(buf), n)
		}
		b := asBytes(buf)
		bs := len(b) / n
		return c.scatter(b, b[root*bs:(root+1)*bs], root)
	}
	return c.scatter(nil, asBytes(buf), root)
}

// scatter is the binomial scatter (MPICH's): the root holds all blocks in
// relative order, and every rank passes the upper halves of what it holds
// to its children, one blocking send after another.
func (c *Comm) scatter(in, out []byte, root int) error {
	if err := c.begin(); err != nil {
		return err
	}
	if err := c.checkRoot(root, "Scatter"); err != nil {
		return err
	}
	n, bs := c.Size(), len(out)
	if bs == 0 {
		return nil
	}
	rel := (c.rank - root + n) % n
	sub := subtree(rel, n)
	var tmp []byte
	var failed schedErr
	mask := 1
	switch {
	case rel == 0 && root == 0:
		tmp = in
	case rel == 0:
		tmp = make([]byte, n*bs)
		for j := 0; j < n; j++ {
			k := (j + root) % n
			copy(tmp[j*bs:(j+1)*bs], in[k*bs:(k+1)*bs])
		}
	default:
		tmp = make([]byte, sub*bs)
		mask = rel & -rel
		failed.keep(c.blockingRecv(tmp, (rel-mask+root)%n, tagScatter))
	}
	if rel == 0 {
		mask = pof2Below(n)
		if mask < n {
			mask <<= 1
		}
	}
	for mask >>= 1; mask > 0; mask >>= 1 {
		if rel+mask < n {
			cnt := min(mask, n-rel-mask)
			failed.keep(c.blockingSend(tmp[mask*bs:(mask+cnt)*bs], (rel+mask+root)%n, tagScatter))
		}
	}
	copy(out, tmp[:bs])
	return failed.err
}

// checkV validates the counts and displacements of a v-collective against a
// buffer of blen elements.
func checkV(what string, n int, counts, displs []int, blen int) error {
	if len(counts) < n || len(displs) < n {
		return errorf(ClassCount, "%s: need %d counts and displacements, got %d and %d", what, n, len(counts), len(displs))
	}
	for i := 0; i < n; i++ {
		if counts[i] < 0 || displs[i] < 0 {
			return errorf(ClassCount, "%s: negative count or displacement for rank %d", what, i)
		}
		if displs[i]+counts[i] > blen {
			return errorf(ClassCount, "%s: block of rank %d (displacement %d, count %d) overruns the %d-element buffer",
				what, i, displs[i], counts[i], blen)
		}
	}
	return nil
}

// Gatherv is Gather with a count per rank: rank i sends len(send) elements,
// which root stores at recv[displs[i]:displs[i]+counts[i]] (MPI_Gatherv);
// len(send) must equal counts[i]. counts and displs are used only at root.
// The root receives from every rank directly, as MPICH does.
func Gatherv[T Numeric](c *Comm, send, recv []T, counts, displs []int, root int) error {
	c.enter(callGatherv, root, 0)
	defer c.leave()
	noteColl(c, false, send, recv)
	noteInts(c, counts, sizeOf[T]())
	noteInts(c, displs, sizeOf[T]())
	return gatherv(c, send, recv, counts, displs, root, false)
}

// GathervInPlace is Gatherv with MPI_IN_PLACE at the root: root's own block
// is already at recv[displs[root]:]; the other ranks pass their block in buf.
func GathervInPlace[T Numeric](c *Comm, buf []T, counts, displs []int, root int) error {
	c.enter(callGatherv, root, 0)
	defer c.leave()
	noteColl(c, true, buf, nil)
	noteInts(c, counts, sizeOf[T]())
	noteInts(c, displs, sizeOf[T]())
	return gatherv(c, buf, buf, counts, displs, root, true)
}

func gatherv[T Numeric](c *Comm, send, recv []T, counts, displs []int, root int, inPlace bool) error {
	if err := c.begin(); err != nil {
		return err
	}
	if err := c.checkRoot(root, "Gatherv"); err != nil {
		return err
	}
	if c.rank != root {
		if len(send) == 0 {
			return nil
		}
		// MPICH sends synchronously from communicators of at least
		// GathervSsendMinProcs ranks, so the root is not flooded.
		sync := c.Size() >= GathervSsendMinProcs
		return c.waitColl(c.r.isend(c, asBytes(send), c.group.worldRank(root), tagGather+c.r.nbc.tagOffset(), c.ctx+1, sync))
	}
	n := c.Size()
	if err := checkV("Gatherv", n, counts, displs, len(recv)); err != nil {
		return err
	}
	if !inPlace {
		if len(send) != counts[root] {
			return errorf(ClassCount, "Gatherv: root sends %d elements but counts[%d] is %d", len(send), root, counts[root])
		}
		copy(recv[displs[root]:], send)
	}
	reqs := make([]*Request, 0, n-1)
	for i := 0; i < n; i++ {
		if i != root && counts[i] > 0 {
			reqs = append(reqs, c.crecv(asBytes(recv[displs[i]:displs[i]+counts[i]]), i, tagGather))
		}
	}
	if len(reqs) == 0 {
		return nil
	}
	return c.waitColl(reqs...)
}

// Scatterv is Scatter with a count per rank: root sends
// send[displs[i]:displs[i]+counts[i]] to rank i, which receives it into recv
// (MPI_Scatterv). len(recv) must equal counts[i] (it is the receive count;
// as in MPICH an empty block is not sent at all). counts and displs are used
// only at root, which sends to every rank directly, as MPICH does.
func Scatterv[T Numeric](c *Comm, send []T, counts, displs []int, recv []T, root int) error {
	c.enter(callScatterv, root, 0)
	defer c.leave()
	noteColl(c, false, send, recv)
	noteInts(c, counts, sizeOf[T]())
	noteInts(c, displs, sizeOf[T]())
	return scatterv(c, send, counts, displs, recv, root, false)
}

// ScattervInPlace is Scatterv with MPI_IN_PLACE at the root: root passes the
// send buffer and keeps its own block where it is; the others pass their
// receive buffer.
func ScattervInPlace[T Numeric](c *Comm, buf []T, counts, displs []int, root int) error {
	c.enter(callScatterv, root, 0)
	defer c.leave()
	noteColl(c, true, buf, nil)
	noteInts(c, counts, sizeOf[T]())
	noteInts(c, displs, sizeOf[T]())
	return scatterv(c, buf, counts, displs, buf, root, true)
}

func scatterv[T Numeric](c *Comm, send []T, counts, displs []int, recv []T, root int, inPlace bool) error {
	if err := c.begin(); err != nil {
		return err
	}
	if err := c.checkRoot(root, "Scatterv"); err != nil {
		return err
	}
	if c.rank != root {
		if len(recv) == 0 {
			return nil
		}
		return c.blockingRecv(asBytes(recv), root, tagScatter)
	}
	n := c.Size()
	if err := checkV("Scatterv", n, counts, displs, len(send)); err != nil {
		return err
	}
	if !inPlace {
		if len(recv) < counts[root] {
			return errorf(ClassCount, "Scatterv: root receives %d elements into a buffer of %d", counts[root], len(recv))
		}
		copy(recv, send[displs[root]:displs[root]+counts[root]])
	}
	reqs := make([]*Request, 0, n-1)
	for i := 0; i < n; i++ {
		if i != root && counts[i] > 0 {
			reqs = append(reqs, c.csend(asBytes(send[displs[i]:displs[i]+counts[i]]), i, tagScatter))
		}
	}
	if len(reqs) == 0 {
		return nil
	}
	return c.waitColl(reqs...)
}
