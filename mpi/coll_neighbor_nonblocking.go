package mpi

// The nonblocking neighbour collectives (MPI_Ineighbor_*): each runs its
// blocking form's schedule as a nonblocking collective (schedule.go), so
// it sends the same messages, which a virtual run prices the same way.
// The topology is read when the call starts. Bad arguments are reported by
// the call, with no request.

// IneighborAllgather is the nonblocking NeighborAllgather
// (MPI_Ineighbor_allgather).
func IneighborAllgather[T Numeric](c *Comm, send, recv []T) (*Request, error) {
	return c.nonblocking(func(c *Comm) error { return NeighborAllgather(c, send, recv) })
}

// IneighborAllgatherv is the nonblocking NeighborAllgatherv
// (MPI_Ineighbor_allgatherv).
func IneighborAllgatherv[T Numeric](c *Comm, send, recv []T, recvCounts, recvDispls []int) (*Request, error) {
	return c.nonblocking(func(c *Comm) error { return NeighborAllgatherv(c, send, recv, recvCounts, recvDispls) })
}

// IneighborAlltoall is the nonblocking NeighborAlltoall
// (MPI_Ineighbor_alltoall).
func IneighborAlltoall[T Numeric](c *Comm, send, recv []T) (*Request, error) {
	return c.nonblocking(func(c *Comm) error { return NeighborAlltoall(c, send, recv) })
}

// IneighborAlltoallv is the nonblocking NeighborAlltoallv
// (MPI_Ineighbor_alltoallv).
func IneighborAlltoallv[T Numeric](c *Comm, send []T, sendCounts, sendDispls []int, recv []T, recvCounts, recvDispls []int) (*Request, error) {
	return c.nonblocking(func(c *Comm) error {
		return NeighborAlltoallv(c, send, sendCounts, sendDispls, recv, recvCounts, recvDispls)
	})
}
