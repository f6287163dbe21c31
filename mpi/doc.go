// Package mpi is gompi's MPI library: communicators, typed point-to-point
// and collective calls, error classes, and the protocol engine that runs
// them over a transport, in real time or in virtual time.
//
// A program calls Main (under gompirun) or Run (an in-process world of
// goroutines, for tests and tools); every rank gets a *Comm for
// MPI_COMM_WORLD. Buffers are slices of any Numeric type; Object messages
// carry any Go value (msgpack), as mpi4py's lower-case calls do.
//
// Imports: transport and its inproc, shm and tcp implementations, vtime
// (the prediction model, driven through the eventClock adapter in virtual.go),
// internal/launch (the contract with gompirun) and internal/wireup (which
// builds a launched process's transports and routes: mpi calls its Wire
// once and knows nothing of hosts, listeners or segments). Nothing in this
// repository but commands, samples and npb-go imports mpi; transport and
// vtime must not.
//
// Where things are:
//
//	p2p.go, wait.go        point-to-point calls; Wait, Test and their any, some and all forms
//	progress.go            the waiting activity (Algorithm 1, or 2 in virtual time)
//	engine.go              the protocol engine: starting phases, eager and rendezvous, dealing frames
//	coll*.go               collectives as schedules of the engine's sends (MPICH's algorithms, coll_algo.go)
//	op*.go                 reduction operations and their typed kernels
//	comm.go, group.go      communicators and groups
//	topo*.go               process topologies: DimsCreate, Cartesian grids, distributed graphs
//	coll_neighbor.go       neighbour collectives over a communicator's topology
//	coll_neighbor_nonblocking.go  their nonblocking forms (Ineighbor...)
//	world.go, calls.go     a process's ranks; the user-level call each is in (deadlock reports)
//	clock.go, virtual.go   the engine's event points and their virtual-time clock (vtime)
//	virtual_stall.go,      Algorithm 2's stalls, within a process and job-wide through gompirun
//	virtual_quiesce.go
//	main.go, launch*.go    a process of a gompirun job: its settings, world, wiring (wireup.Wire), watcher, end
//	settings.go            the GOMPI_* variables a user may set, checked
//	errors.go, types.go    error classes; special ranks and tags
package mpi
