// Package shm is the transport between processes of one host.
//
// Each process creates one receive segment, a file in /dev/shm mapped by
// every local process. It holds one lock-free single-producer
// single-consumer ring per sending process: rings are per process pair, not
// per rank pair, so that a -virtual run with thousands of ranks per process
// still needs only one ring per pair of processes; with one rank per
// process (a real run) the two are the same thing. Rings shrink as the
// processes of a host grow in number, so that a segment stays within a
// fixed size (SegmentBytes): the host's shared memory grows linearly with
// its processes, as MPICH's fixed pool of cells per process does. The
// goroutines of one process that send to the same peer serialise on an
// in-process mutex; those that consume (the ranks polling their inboxes,
// and the waiter goroutine) take a per-ring try-lock, so one rank never
// waits behind another to poll.
//
// A segment's file lives only while the job starts: once every process of
// the host has mapped it (Join), it is unlinked, as MPICH does, so that the
// memory goes with the last process that maps it whatever kills the job.
// Files of jobs killed during start-up are removed by RemoveStale.
//
// Receiving ranks poll the rings themselves (transport.Poller) while they
// spin, which gives the lowest latency; a frame found by one rank for
// another rank of the process is delivered to that rank's inbox. Only while
// some rank sleeps do senders pay for a wake-up: a byte written to the
// owner's wake-up pipe (see wake.go).
//
// Payloads: a frame with at most 72 payload bytes goes into one of the
// ring's fastbox cells, which a polling consumer finds by reading one
// cache line (fastbox.go). Other eager DATA is copied into the ring (split
// into chunks when larger than a quarter of the ring). A rendezvous DATA carries the
// sender's own buffer (a borrowed frame); the ring then carries only its
// address and length, and the receiving engine's Frame.ReadPayload reads it
// with process_vm_readv (Linux cross-memory attach) straight from the
// sender's buffer into the user's receive buffer: one copy. Freeing that
// frame sends a completion record back, upon which the sender releases its
// frame. A large payload's copy is split where the kernel allows the write
// too: the receiver reads its head while the sender writes its tail into
// the receive buffer (split.go). With Config.LendCopies (virtual-time runs) the sender does not wait
// for that: it writes the payload into the receive buffer its ACK named,
// with process_vm_writev, or, where it cannot, copies a large payload
// first and lends the copy (landing.go). A DATA streaming through the ring
// is copied straight into the receive buffer. Where process_vm_readv is not permitted (GOMPI_SHM_CMA=0, a Yama
// ptrace_scope above 1, a seccomp filter, or a refusal at run time) the
// payload streams through the ring in chunks instead; Transport.Path says
// which path is in use.
//
// A sender never waits on a receiving rank's progress: when a ring is full
// it wakes the receiver's waiter goroutine, which drains the rings into the
// inboxes; it gives up with an error when the receiving process has exited
// or closed. A corrupt record is reported by Err and stops that ring, never
// a panic.
package shm

import "github.com/gompi/gompi/transport"

// Config describes this process's place among the processes of its host.
type Config struct {
	JobID string // names the segment files; unique per job, no '/'
	Dir   string // segment directory; /dev/shm when empty

	// Procs are the processes of this host that share memory, in
	// ascending order of their ranks; LocalProc is this process's index
	// among them. Processes of other hosts are not in the list: every one
	// listed costs a ring in every segment.
	Procs     []Proc
	LocalProc int

	// Inboxes are this process's ranks' inboxes, in world-rank order.
	Inboxes []*transport.Inbox
	// LendCopies makes a sender never wait for its receiver's progress
	// to get a borrowed buffer back: it writes a rendezvous payload
	// straight into the receive buffer the ACK named (landing.go), and
	// where it cannot, lends the receiver a copy of a large payload (one
	// that would take several ring records) rather than its own buffer,
	// which the receiver reads with one copy (cma.go). Virtual-time runs
	// need the sender not to wait: the receiver may hold the DATA back
	// until its clock reaches it (Algorithm 2), a dependency of the
	// host's, not of the target's.
	LendCopies bool
}

// Proc is one process of the host: its index in the job (which names its
// segment, unique even where several "hosts" share one /dev/shm) and the
// block of world ranks it hosts, [Base, Base+N).
type Proc struct {
	ID, Base, N int
}
