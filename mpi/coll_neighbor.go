package mpi

// Neighbour collectives (MPI_Neighbor_*): each rank exchanges blocks with
// the neighbours its communicator's topology names, not with every rank.
// Receive block i comes from sources[i] and send block k goes to
// destinations[k]: for a Cartesian grid, per dimension the -1 then the +1
// neighbour; for a distributed graph, the lists given at creation. A
// ProcNull neighbour (off a non-periodic edge) is skipped, its receive
// block left as it was.
//
// As in MPICH's linear algorithms, each rank posts every receive and every
// send at once and waits for all: one message per edge, which is what a
// virtual run prices. Each collective has its own tag on the collective
// context; within one call, messages between a pair of ranks match in
// posting order, which topology.recvSlot arranges to be the order MPI
// prescribes.
const (
	tagNeighborAllgather = 1<<29 + iota
	tagNeighborAllgatherv
	tagNeighborAlltoall
	tagNeighborAlltoallv
)

// neighborTopo validates c for a neighbour collective and returns its
// topology.
func (c *Comm) neighborTopo(what string) (topology, error) {
	if err := c.begin(); err != nil {
		return nil, err
	}
	if c.topology() == nil {
		return nil, errorf(ClassTopology, "%s: the communicator has no topology", what)
	}
	return c.topology(), nil
}

// neighborExchange receives block i from source i of t into rblk(i) and
// sends sblk(k) to destination k, all at once, and waits for every one.
func (c *Comm) neighborExchange(t topology, sblk, rblk func(i int) []byte, tag int) error {
	srcs, dsts := t.sources(), t.destinations()
	reqs := make([]*Request, 0, len(srcs)+len(dsts))
	for j := range srcs {
		if i := t.recvSlot(j); srcs[i] != ProcNull {
			reqs = append(reqs, c.crecv(rblk(i), srcs[i], tag))
		}
	}
	for k, d := range dsts {
		if d != ProcNull {
			reqs = append(reqs, c.csend(sblk(k), d, tag))
		}
	}
	if len(reqs) == 0 {
		return nil
	}
	return c.waitColl(reqs...)
}

// The schedules work on bytes; the typed wrappers below validate and
// convert. Each is a plain function of its arguments, blocking until its
// part is done. The topology is an argument, read when the call starts, so
// that a nonblocking form keeps working if the communicator is freed (which
// drops its topology) before the operation completes.

// neighborAllgather sends send to every destination and receives source
// i's block into recv[i*len(send):].
func (c *Comm) neighborAllgather(t topology, send, recv []byte) error {
	bs := len(send)
	return c.neighborExchange(t,
		func(int) []byte { return send },
		func(i int) []byte { return recv[i*bs : (i+1)*bs] },
		tagNeighborAllgather)
}

// neighborAllgatherv sends send to every destination and receives source
// i's block into recv[displs[i]:][:counts[i]] (byte counts).
func (c *Comm) neighborAllgatherv(t topology, send, recv []byte, counts, displs []int) error {
	return c.neighborExchange(t,
		func(int) []byte { return send },
		func(i int) []byte { return recv[displs[i] : displs[i]+counts[i]] },
		tagNeighborAllgatherv)
}

// neighborAlltoall sends block k of send to destination k and receives
// source i's block into block i of recv, blocks of bs bytes.
func (c *Comm) neighborAlltoall(t topology, send, recv []byte, bs int) error {
	return c.neighborExchange(t,
		func(k int) []byte { return send[k*bs : (k+1)*bs] },
		func(i int) []byte { return recv[i*bs : (i+1)*bs] },
		tagNeighborAlltoall)
}

// neighborAlltoallv is neighborAlltoall with a byte count and displacement
// per destination and per source.
func (c *Comm) neighborAlltoallv(t topology, send []byte, scounts, sdispls []int, recv []byte, rcounts, rdispls []int) error {
	return c.neighborExchange(t,
		func(k int) []byte { return send[sdispls[k] : sdispls[k]+scounts[k]] },
		func(i int) []byte { return recv[rdispls[i] : rdispls[i]+rcounts[i]] },
		tagNeighborAlltoallv)
}

// byteLayout converts element counts and displacements to bytes.
func byteLayout(counts, displs []int, n, size int) (bc, bd []int) {
	bc, bd = make([]int, n), make([]int, n)
	for i := 0; i < n; i++ {
		bc[i], bd[i] = counts[i]*size, displs[i]*size
	}
	return bc, bd
}

// NeighborAllgather sends send to every neighbour of c's topology and
// receives neighbour i's block into recv[i*len(send):(i+1)*len(send)]
// (MPI_Neighbor_allgather). recv must hold one block per source; blocks of
// ProcNull neighbours are left untouched.
func NeighborAllgather[T Numeric](c *Comm, send, recv []T) error {
	c.unrecordable(unrecNeighbor) // a record cannot hold it yet (record.go)
	c.enter(callNeighborAllgather, 0, 0)
	defer c.leave()
	t, err := c.neighborTopo("NeighborAllgather")
	if err != nil {
		return err
	}
	in, k := len(t.sources()), len(send)
	if len(recv) < in*k {
		return errorf(ClassCount, "NeighborAllgather: receive buffer of %d elements, need %d (%d sources)", len(recv), in*k, in)
	}
	if overlap(asBytes(send), asBytes(recv[:in*k])) {
		return errorf(ClassBuffer, "NeighborAllgather: send and receive buffers overlap")
	}
	return c.neighborAllgather(t, asBytes(send), asBytes(recv[:in*k]))
}

// NeighborAllgatherv is NeighborAllgather with a count and displacement per
// source: neighbour i's block goes to recv[recvDispls[i]:][:recvCounts[i]]
// (MPI_Neighbor_allgatherv).
func NeighborAllgatherv[T Numeric](c *Comm, send, recv []T, recvCounts, recvDispls []int) error {
	c.unrecordable(unrecNeighbor) // a record cannot hold it yet (record.go)
	c.enter(callNeighborAllgatherv, 0, 0)
	defer c.leave()
	t, err := c.neighborTopo("NeighborAllgatherv")
	if err != nil {
		return err
	}
	in := len(t.sources())
	if err := checkV("NeighborAllgatherv", in, recvCounts, recvDispls, len(recv)); err != nil {
		return err
	}
	if overlap(asBytes(send), asBytes(recv)) {
		return errorf(ClassBuffer, "NeighborAllgatherv: send and receive buffers overlap")
	}
	bc, bd := byteLayout(recvCounts, recvDispls, in, sizeOf[T]())
	return c.neighborAllgatherv(t, asBytes(send), asBytes(recv), bc, bd)
}

// NeighborAlltoall sends block k of send to destination k and receives
// source i's block into block i of recv (MPI_Neighbor_alltoall). send holds
// one block per destination, all the same size, which is also the size of
// the receive blocks; recv must hold one block per source. With no
// destinations the block size is len(recv) / (number of sources). Blocks of
// ProcNull neighbours are neither sent nor touched.
func NeighborAlltoall[T Numeric](c *Comm, send, recv []T) error {
	c.unrecordable(unrecNeighbor) // a record cannot hold it yet (record.go)
	c.enter(callNeighborAlltoall, 0, 0)
	defer c.leave()
	t, err := c.neighborTopo("NeighborAlltoall")
	if err != nil {
		return err
	}
	in, out := len(t.sources()), len(t.destinations())
	var k int
	switch {
	case out > 0:
		if len(send)%out != 0 {
			return errorf(ClassCount, "NeighborAlltoall: send buffer of %d elements is not %d equal blocks", len(send), out)
		}
		k = len(send) / out
	case in > 0:
		if len(recv)%in != 0 {
			return errorf(ClassCount, "NeighborAlltoall: receive buffer of %d elements is not %d equal blocks", len(recv), in)
		}
		k = len(recv) / in
	}
	if len(recv) < in*k {
		return errorf(ClassCount, "NeighborAlltoall: receive buffer of %d elements, need %d (%d sources)", len(recv), in*k, in)
	}
	if overlap(asBytes(send), asBytes(recv[:in*k])) {
		return errorf(ClassBuffer, "NeighborAlltoall: send and receive buffers overlap")
	}
	return c.neighborAlltoall(t, asBytes(send), asBytes(recv[:in*k]), k*sizeOf[T]())
}

// NeighborAlltoallv is NeighborAlltoall with a count and displacement per
// neighbour: block k is send[sendDispls[k]:][:sendCounts[k]] for
// destination k, and source i's block goes to
// recv[recvDispls[i]:][:recvCounts[i]] (MPI_Neighbor_alltoallv).
func NeighborAlltoallv[T Numeric](c *Comm, send []T, sendCounts, sendDispls []int, recv []T, recvCounts, recvDispls []int) error {
	c.unrecordable(unrecNeighbor) // a record cannot hold it yet (record.go)
	c.enter(callNeighborAlltoallv, 0, 0)
	defer c.leave()
	t, err := c.neighborTopo("NeighborAlltoallv")
	if err != nil {
		return err
	}
	in, out := len(t.sources()), len(t.destinations())
	if err := checkV("NeighborAlltoallv (send)", out, sendCounts, sendDispls, len(send)); err != nil {
		return err
	}
	if err := checkV("NeighborAlltoallv (receive)", in, recvCounts, recvDispls, len(recv)); err != nil {
		return err
	}
	if overlap(asBytes(send), asBytes(recv)) {
		return errorf(ClassBuffer, "NeighborAlltoallv: send and receive buffers overlap")
	}
	size := sizeOf[T]()
	sc, sd := byteLayout(sendCounts, sendDispls, out, size)
	rc, rd := byteLayout(recvCounts, recvDispls, in, size)
	return c.neighborAlltoallv(t, asBytes(send), sc, sd, asBytes(recv), rc, rd)
}
