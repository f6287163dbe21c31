package mpi

// The nonblocking collectives (MPI-3 MPI_Ibarrier ... MPI_Iexscan): each
// runs the blocking collective's own code as a schedule (schedule.go) and
// returns a request that completes when the collective has, usable with
// every Wait and Test call. Arguments are checked at the start, with the
// blocking call's errors; the buffers (and the counts and displacements of
// the v forms) belong to the collective until the request completes and
// must not be touched before. Several may be outstanding on one
// communicator; every rank must start them in the same order.

// Ibarrier is the nonblocking Barrier (MPI_Ibarrier): the request
// completes once every rank of c has started the Ibarrier.
func (c *Comm) Ibarrier() (*Request, error) {
	return c.nonblocking(func(c *Comm) error { return c.Barrier() })
}

// Ibcast is the nonblocking Bcast (MPI_Ibcast).
func Ibcast[T Numeric](c *Comm, buf []T, root int) (*Request, error) {
	return c.nonblocking(func(c *Comm) error { return Bcast(c, buf, root) })
}

// Ireduce is the nonblocking Reduce (MPI_Ireduce).
func Ireduce[T Numeric](c *Comm, send, recv []T, op Op, root int) (*Request, error) {
	return c.nonblocking(func(c *Comm) error { return Reduce(c, send, recv, op, root) })
}

// IreduceInPlace is the nonblocking ReduceInPlace.
func IreduceInPlace[T Numeric](c *Comm, buf []T, op Op, root int) (*Request, error) {
	return c.nonblocking(func(c *Comm) error { return ReduceInPlace(c, buf, op, root) })
}

// Iallreduce is the nonblocking Allreduce (MPI_Iallreduce).
func Iallreduce[T Numeric](c *Comm, send, recv []T, op Op) (*Request, error) {
	return c.nonblocking(func(c *Comm) error { return Allreduce(c, send, recv, op) })
}

// IallreduceInPlace is the nonblocking AllreduceInPlace.
func IallreduceInPlace[T Numeric](c *Comm, buf []T, op Op) (*Request, error) {
	return c.nonblocking(func(c *Comm) error { return AllreduceInPlace(c, buf, op) })
}

// Igather is the nonblocking Gather (MPI_Igather).
func Igather[T Numeric](c *Comm, send, recv []T, root int) (*Request, error) {
	return c.nonblocking(func(c *Comm) error { return Gather(c, send, recv, root) })
}

// IgatherInPlace is the nonblocking GatherInPlace.
func IgatherInPlace[T Numeric](c *Comm, buf []T, root int) (*Request, error) {
	return c.nonblocking(func(c *Comm) error { return GatherInPlace(c, buf, root) })
}

// Igatherv is the nonblocking Gatherv (MPI_Igatherv).
func Igatherv[T Numeric](c *Comm, send, recv []T, counts, displs []int, root int) (*Request, error) {
	return c.nonblocking(func(c *Comm) error { return Gatherv(c, send, recv, counts, displs, root) })
}

// IgathervInPlace is the nonblocking GathervInPlace.
func IgathervInPlace[T Numeric](c *Comm, buf []T, counts, displs []int, root int) (*Request, error) {
	return c.nonblocking(func(c *Comm) error { return GathervInPlace(c, buf, counts, displs, root) })
}

// Iscatter is the nonblocking Scatter (MPI_Iscatter).
func Iscatter[T Numeric](c *Comm, send, recv []T, root int) (*Request, error) {
	return c.nonblocking(func(c *Comm) error { return Scatter(c, send, recv, root) })
}

// IscatterInPlace is the nonblocking ScatterInPlace.
func IscatterInPlace[T Numeric](c *Comm, buf []T, root int) (*Request, error) {
	return c.nonblocking(func(c *Comm) error { return ScatterInPlace(c, buf, root) })
}

// Iscatterv is the nonblocking Scatterv (MPI_Iscatterv).
func Iscatterv[T Numeric](c *Comm, send []T, counts, displs []int, recv []T, root int) (*Request, error) {
	return c.nonblocking(func(c *Comm) error { return Scatterv(c, send, counts, displs, recv, root) })
}

// IscattervInPlace is the nonblocking ScattervInPlace.
func IscattervInPlace[T Numeric](c *Comm, buf []T, counts, displs []int, root int) (*Request, error) {
	return c.nonblocking(func(c *Comm) error { return ScattervInPlace(c, buf, counts, displs, root) })
}

// Iallgather is the nonblocking Allgather (MPI_Iallgather).
func Iallgather[T Numeric](c *Comm, send, recv []T) (*Request, error) {
	return c.nonblocking(func(c *Comm) error { return Allgather(c, send, recv) })
}

// IallgatherInPlace is the nonblocking AllgatherInPlace.
func IallgatherInPlace[T Numeric](c *Comm, buf []T) (*Request, error) {
	return c.nonblocking(func(c *Comm) error { return AllgatherInPlace(c, buf) })
}

// Iallgatherv is the nonblocking Allgatherv (MPI_Iallgatherv).
func Iallgatherv[T Numeric](c *Comm, send, recv []T, counts, displs []int) (*Request, error) {
	return c.nonblocking(func(c *Comm) error { return Allgatherv(c, send, recv, counts, displs) })
}

// IallgathervInPlace is the nonblocking AllgathervInPlace.
func IallgathervInPlace[T Numeric](c *Comm, buf []T, counts, displs []int) (*Request, error) {
	return c.nonblocking(func(c *Comm) error { return AllgathervInPlace(c, buf, counts, displs) })
}

// Ialltoall is the nonblocking Alltoall (MPI_Ialltoall).
func Ialltoall[T Numeric](c *Comm, send, recv []T) (*Request, error) {
	return c.nonblocking(func(c *Comm) error { return Alltoall(c, send, recv) })
}

// IalltoallInPlace is the nonblocking AlltoallInPlace.
func IalltoallInPlace[T Numeric](c *Comm, buf []T) (*Request, error) {
	return c.nonblocking(func(c *Comm) error { return AlltoallInPlace(c, buf) })
}

// Ialltoallv is the nonblocking Alltoallv (MPI_Ialltoallv).
func Ialltoallv[T Numeric](c *Comm, send []T, sendCounts, sendDispls []int, recv []T, recvCounts, recvDispls []int) (*Request, error) {
	return c.nonblocking(func(c *Comm) error {
		return Alltoallv(c, send, sendCounts, sendDispls, recv, recvCounts, recvDispls)
	})
}

// IalltoallvInPlace is the nonblocking AlltoallvInPlace.
func IalltoallvInPlace[T Numeric](c *Comm, buf []T, counts, displs []int) (*Request, error) {
	return c.nonblocking(func(c *Comm) error { return AlltoallvInPlace(c, buf, counts, displs) })
}

// IreduceScatter is the nonblocking ReduceScatter (MPI_Ireduce_scatter).
func IreduceScatter[T Numeric](c *Comm, send, recv []T, counts []int, op Op) (*Request, error) {
	return c.nonblocking(func(c *Comm) error { return ReduceScatter(c, send, recv, counts, op) })
}

// IreduceScatterInPlace is the nonblocking ReduceScatterInPlace.
func IreduceScatterInPlace[T Numeric](c *Comm, buf []T, counts []int, op Op) (*Request, error) {
	return c.nonblocking(func(c *Comm) error { return ReduceScatterInPlace(c, buf, counts, op) })
}

// IreduceScatterBlock is the nonblocking ReduceScatterBlock
// (MPI_Ireduce_scatter_block).
func IreduceScatterBlock[T Numeric](c *Comm, send, recv []T, op Op) (*Request, error) {
	return c.nonblocking(func(c *Comm) error { return ReduceScatterBlock(c, send, recv, op) })
}

// IreduceScatterBlockInPlace is the nonblocking ReduceScatterBlockInPlace.
func IreduceScatterBlockInPlace[T Numeric](c *Comm, buf []T, op Op) (*Request, error) {
	return c.nonblocking(func(c *Comm) error { return ReduceScatterBlockInPlace(c, buf, op) })
}

// Iscan is the nonblocking Scan (MPI_Iscan).
func Iscan[T Numeric](c *Comm, send, recv []T, op Op) (*Request, error) {
	return c.nonblocking(func(c *Comm) error { return Scan(c, send, recv, op) })
}

// IscanInPlace is the nonblocking ScanInPlace.
func IscanInPlace[T Numeric](c *Comm, buf []T, op Op) (*Request, error) {
	return c.nonblocking(func(c *Comm) error { return ScanInPlace(c, buf, op) })
}

// Iexscan is the nonblocking Exscan (MPI_Iexscan).
func Iexscan[T Numeric](c *Comm, send, recv []T, op Op) (*Request, error) {
	return c.nonblocking(func(c *Comm) error { return Exscan(c, send, recv, op) })
}

// IexscanInPlace is the nonblocking ExscanInPlace.
func IexscanInPlace[T Numeric](c *Comm, buf []T, op Op) (*Request, error) {
	return c.nonblocking(func(c *Comm) error { return ExscanInPlace(c, buf, op) })
}
