package mpi

import (
	"math"
	"strconv"

	"github.com/gompi/gompi/transport"
)

// activity is one of VACED-SIM's five communication activities (Table 2 of
// the paper): the starting phases DS, RS (sender), DR, AS (receiver) and the
// waiting phase WT.
type activity uint8

const (
	actDS activity = iota // send an eager DATA message
	actRS                 // send a rendezvous REQ message
	actDR                 // receive an eager DATA message found in the unexpected queue
	actAS                 // send an ACK for a REQ found in the unexpected queue
	actWT                 // the waiting phase (Algorithm 1; Algorithm 2 in virtual mode)
)

func (a activity) String() string {
	if a > actWT {
		return "Activity(" + strconv.Itoa(int(a)) + ")"
	}
	return [...]string{"DS", "RS", "DR", "AS", "WT"}[a]
}

// eventClock receives the 12 event points of VACED-SIM Sect. 3.1.2 from the
// protocol engine: the start and end of the simulation, and the start and
// end of each activity, and besides them only the brackets of its own work
// (EnterEngine, LeaveEngine), which the paper does not have. Real runs use
// nopClock; virtual runs implement the update rules of Sect. 3.2 and the
// virtual simulation of Sect. 4.
//
// The waiting activity is structured as Algorithm 2 whatever the clock: in
// real mode Early always reports false, the early queue stays empty and the
// loop is exactly Algorithm 1.
type eventClock interface {
	// End returns, for DR, the model time at which the copy of the message
	// into the user buffer completes (t_V + size/B_mem); the engine hands it
	// to Ready in the waiting activity that completes the receive. DR does
	// not advance t_V itself (see Ready). Other activities return 0.
	//
	// SimStart is E_Start, called when the rank begins; SimEnd is E_End,
	// called when its function returns.
	SimStart()
	SimEnd()

	// Begin is E_start of activity a (t_V += the computation burst since the
	// last end event). End is E_end of DS, RS, DR or AS: size is the message
	// size in bytes the activity copied (0 for REQ and ACK).
	Begin(a activity)
	End(a activity, size int) (copied float64)

	// Stamp sets h.Arrival, the target arrival time t_a of a message sent now
	// by DS, RS or AS (Eq. 3 with t_s = t_V).
	Stamp(h *transport.Header)

	// WaitStart is Algorithm 2 line 1 (and line 3 when done is true).
	WaitStart(done bool)
	// Early is line 13's test t_a(m) > t_V for a message not related to c.
	Early(m *transport.Header) bool
	// DueNow is line 6's test t_a(m) <= t_V for a message in the early queue.
	DueNow(m *transport.Header) bool
	// DueInWait is line 23's test t_a(m) <= A_WT_end[num].
	DueInWait(m *transport.Header) bool
	// Deal is Algorithm 3 for message m: it computes t_temp, stamps reply
	// (the ACK answering a REQ, or the DATA answering an ACK; nil for DATA)
	// and, for ACK or DATA related to c, sets A_WT_end[num]. dataSize is the
	// size of the DATA that m answers or carries. started is the virtual
	// time the operation m belongs to was posted (a receive matched by a
	// REQ or eager DATA; 0 otherwise): the target cannot deal with m before
	// its operation exists. It returns the model time the operation
	// completes once m is dealt with (vtime.Rank.Deal's done: an ACK's send
	// when its DATA has left, a DATA's receive when the copy into the user
	// buffer completes; 0 for a REQ): a wait that observes the operation
	// later, or a Waitany choosing among operations, uses it (Ready).
	Deal(m *transport.Header, related bool, reply *transport.Header, dataSize int, started float64) (done float64)
	// Found is called when a Probe's waiting phase finds m, the message it
	// looks for, and leaves it in the unexpected queue undealt: the wait
	// ends no earlier than the target would see m.
	Found(m *transport.Header)
	// Ready is for a receive completed by DR in its starting phase and
	// waited for now: the wait ends no earlier than the copy completes
	// (copied, from End). This makes an eager message that reached the
	// target before its receive was posted cost the same whether the host
	// saw it before the posting (DR) or after it (Algorithm 3 with t_temp =
	// the posting time), which repeatability needs; the paper's DR instead
	// adds the copy to t_V at once (Sect. 4.3), which differs only when the
	// rank computes between the receive and its wait.
	Ready(copied float64)
	// WaitEnd is E_end of WT: num++ and t_V = A_WT_end[num-1].
	WaitEnd()
	// ForgetBefore tells the clock that every message still to reach the
	// rank has t_a >= t, so that it can drop the waits none can reach
	// (vtime.Rank.ForgetBefore).
	ForgetBefore(t float64)
	// Forgot is the latest t ForgetBefore has been given
	// (vtime.Rank.Forgot).
	Forgot() float64

	// EnterEngine and LeaveEngine bracket the engine's own work inside an
	// MPI call (posting an operation, a waiting phase): no computation is
	// measured between them, whatever event points come between. They
	// nest. Beyond the paper's event points: see vtime.Rank.EnterEngine.
	EnterEngine()
	LeaveEngine()

	// Now is the rank's current time for Wtime: virtual seconds in virtual
	// mode. ok is false in real mode (Wtime then reads the host clock).
	Now() (t float64, ok bool)
	// Bound is, for another goroutine, a lower bound on the rank's time
	// while it computes between MPI calls (vtime.Rank.Bound); ok is false
	// otherwise, and always in real mode.
	Bound() (t float64, ok bool)
	// Elapse adds d seconds of computation without using the host CPU.
	Elapse(d float64)
	// Overhead adds d seconds of the call's own time, charged as
	// communication (a poll's cost).
	Overhead(d float64)
}

// nopClock is the real-mode clock: every event point is free.
type nopClock struct{}

func (nopClock) SimStart()                                                             {}
func (nopClock) SimEnd()                                                               {}
func (nopClock) Begin(activity)                                                        {}
func (nopClock) End(activity, int) float64                                             { return 0 }
func (nopClock) Stamp(*transport.Header)                                               {}
func (nopClock) WaitStart(bool)                                                        {}
func (nopClock) Early(*transport.Header) bool                                          { return false }
func (nopClock) DueNow(*transport.Header) bool                                         { return true }
func (nopClock) DueInWait(*transport.Header) bool                                      { return true }
func (nopClock) Deal(*transport.Header, bool, *transport.Header, int, float64) float64 { return 0 }
func (nopClock) Found(*transport.Header)                                               {}
func (nopClock) Ready(float64)                                                         {}
func (nopClock) WaitEnd()                                                              {}
func (nopClock) ForgetBefore(float64)                                                  {}
func (nopClock) Forgot() float64                                                       { return math.Inf(1) }
func (nopClock) EnterEngine()                                                          {}
func (nopClock) LeaveEngine()                                                          {}
func (nopClock) Now() (float64, bool)                                                  { return 0, false }
func (nopClock) Bound() (float64, bool)                                                { return 0, false }
func (nopClock) Elapse(float64)                                                        {}
func (nopClock) Overhead(float64)                                                      {}
