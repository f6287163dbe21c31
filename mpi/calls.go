package mpi

import "fmt"

// The user-level call a rank is in, for deadlock and timeout reports: the
// call the application made (Allreduce, Recv from 3 tag 7), never the
// library's own waits inside it (a collective's Waitall).
//
// Each exported call that can block records itself in the rank (enter): a
// few plain stores, so real runs pay nothing measurable. Internal code
// waits with the unexported forms (wait, waitall), which leave the record
// alone. When the rank parks, the record is published in one atomic word
// (rank.blockedIn), which other goroutines read (blockedCall).

// callOp is a blocking MPI call.
type callOp uint8

const (
	callUnknown callOp = iota
	callSend
	callSsend
	callRecv
	callSendrecv
	callProbe
	callWait
	callWaitall
	callWaitany
	callWaitsome
	callBarrier
	callBcast
	callReduce
	callAllreduce
	callGather
	callGatherv
	callScatter
	callScatterv
	callAllgather
	callAllgatherv
	callAlltoall
	callAlltoallv
	callReduceScatter
	callReduceScatterBlock
	callScan
	callExscan
	callDup
	callCreate
	callSplit
	callCartCreate
	callCartSub
	callDistGraphCreate
	callNeighborAllgather
	callNeighborAllgatherv
	callNeighborAlltoall
	callNeighborAlltoallv
	// Nonblocking calls: never blocked in, only traced (trace.go).
	callIsend
	callIssend
	callIrecv
	callIprobe
	callTest
	callTestany
	callTestsome
	callTestall
	callsEnd
)

var callNames = [callsEnd]string{
	"an MPI call", "Send", "Ssend", "Recv", "Sendrecv", "Probe",
	"Wait", "Waitall", "Waitany", "Waitsome",
	"Barrier", "Bcast", "Reduce", "Allreduce", "Gather", "Gatherv", "Scatter", "Scatterv",
	"Allgather", "Allgatherv", "Alltoall", "Alltoallv", "ReduceScatter", "ReduceScatterBlock",
	"Scan", "Exscan", "Comm.Dup", "Comm.Create", "Comm.Split",
	"Comm.CartCreate", "Comm.CartSub", "Comm.DistGraphCreateAdjacent",
	"NeighborAllgather", "NeighborAllgatherv", "NeighborAlltoall", "NeighborAlltoallv",
	"Isend", "Issend", "Irecv", "Iprobe", "Test", "Testany", "Testsome", "Testall",
}

// userCall is a rank's current user-level call: its operation and the
// ranks and tag the user gave (communicator ranks). What a and b hold
// depends on op:
//
//	Send, Ssend: destination, tag      Recv, Probe: source, tag
//	Sendrecv: destination, source      rooted collectives: root
type userCall struct {
	op   callOp
	a, b int32
}

// enter records the user-level call c's rank is now in (nil-safe: the
// call itself reports a null communicator).
func (c *Comm) enter(op callOp, a, b int) {
	if c != nil && c.r != nil && c.r.nbc.cur == nil { // a nonblocking collective's schedule is no user call
		c.r.call = userCall{op: op, a: int32(a), b: int32(b)}
		if c.r.trace != nil {
			c.r.traceEnter(c.r.call) // its end: the leave deferred after every enter (trace.go)
		}
		if c.r.rec != nil {
			c.r.rec.enter(op, c, int32(a), int32(b)) // the record reads the same stream (record.go)
		}
	}
}

// packed is u as rank.blockedIn holds it: bit 0 set (parked), op in bits
// 1-7, a+3 in bits 8-31 (0 when it does not fit; a >= ProcNull), b in
// bits 32-63.
func (u userCall) packed() uint64 {
	a := uint64(0)
	if v := int64(u.a) + 3; v > 0 && v < 1<<24 {
		a = uint64(v)
	}
	return 1 | uint64(u.op&0x7f)<<1 | a<<8 | uint64(uint32(u.b))<<32
}

// unpack is the inverse of packed; ok is false when a did not fit.
func unpack(p uint64) (u userCall, ok bool) {
	u.op = callOp(p >> 1 & 0x7f)
	a := int64(p >> 8 & (1<<24 - 1))
	u.a, u.b = int32(a-3), int32(uint32(p>>32))
	return u, a != 0
}

func peerName(p int32) string {
	switch p {
	case AnySource:
		return "any source"
	case ProcNull:
		return "no process"
	}
	return fmt.Sprint(p)
}

func tagName(t int32) string {
	if t == AnyTag {
		return "any tag"
	}
	return fmt.Sprintf("tag %d", t)
}

// describe names the call as a report line shows it: "Recv from 3 tag 7".
func (u userCall) describe(aFits bool) string {
	if u.op >= callsEnd {
		u.op = callUnknown
	}
	name := callNames[u.op]
	a := "a rank"
	if aFits {
		a = peerName(u.a)
	}
	switch u.op {
	case callSend, callSsend:
		return fmt.Sprintf("%s to %s %s", name, a, tagName(u.b))
	case callRecv, callProbe:
		return fmt.Sprintf("%s from %s %s", name, a, tagName(u.b))
	case callSendrecv:
		return fmt.Sprintf("%s to %s from %s", name, a, peerName(u.b))
	case callBcast, callReduce, callGather, callGatherv, callScatter, callScatterv:
		return fmt.Sprintf("%s (root %s)", name, a)
	}
	return name
}

// blockedCall names the call the rank is parked in, "" when it is not
// parked.
func (r *rank) blockedCall() string {
	p := r.blockedIn.Load()
	if p == 0 {
		return ""
	}
	u, fits := unpack(p)
	return u.describe(fits)
}

// state is the rank's line in a timeout report.
func (r *rank) state() string {
	switch {
	case r.finished.Load():
		return fmt.Sprintf("rank %d finished", r.id)
	case r.blockedIn.Load() != 0:
		return fmt.Sprintf("rank %d in %s", r.id, r.blockedCall())
	}
	return fmt.Sprintf("rank %d not blocked in MPI (computing, polling or between waits)", r.id)
}
