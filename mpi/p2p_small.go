package mpi

import (
	"strconv"

	"github.com/gompi/gompi/transport"
)

// The short path of a small blocking Send in real mode. An eager send of
// a few bytes to a rank of another process through shared memory is, in
// the end, a header and the payload written into one fastbox cell; the
// general path (startSend) wraps that in a request, a frame from the pool,
// the clock's event points and three layers of routing, which together
// cost more than the cell's crossing between cores (docs/gompirun.md,
// BENCHMARKS). sendSmall writes the cell from the call's arguments
// (transport.SmallSender) and completes the call; whatever it declines
// takes the general path, which also reports every error. On the other
// side, a real rank waits with Algorithm 1's loop alone (waitReal).

// quick reports whether r's blocking point-to-point calls may take the
// short paths: a real rank whose calls nobody traces or records.
func (r *rank) quick() bool { return !r.virtual && r.trace == nil && r.rec == nil }

// sendSmall sends buf to dest with tag as Send would, if it can without a
// request: buf is at most a cell's worth, dest a valid rank of another
// process that the route's SmallSender takes, the comm and tag valid. It
// reports false, having sent nothing, otherwise.
func (c *Comm) sendSmall(buf []byte, dest, tag int) (bool, error) {
	r := c.r
	if r == nil || len(buf) > r.w.smallMax || c.freed || c.idup || uint(dest) >= uint(c.group.n) || uint(tag) > TagUB {
		return false, nil
	}
	return r.sendSmall(buf, c.group.worldRank(dest), int32(tag), c.ctx)
}

// csendSmall is a blocking collective's send step (blockingSend,
// exchange) by the short path, outside nonblocking schedules, whose steps
// are requests.
func (c *Comm) csendSmall(buf []byte, to, tag int) (bool, error) {
	r := c.r
	if len(buf) > r.w.smallMax || r.nbc.cur != nil {
		return false, nil
	}
	return r.sendSmall(buf, c.group.worldRank(to), int32(tag+r.nbc.tagOffset()), c.ctx+1)
}

// sendSmall sends an eager DATA of buf to world rank d with tag on context
// ctx through d's SmallSender, if r is quick and buf within the eager
// limit, and reports whether it did. Not while nonblocking collectives
// are under way: the general path's wait, empty as it is, progresses
// them (nbc_progress.go), and a rank that only sends while its peers
// wait for its schedule's messages must still send them.
func (r *rank) sendSmall(buf []byte, d int, tag int32, ctx uint32) (bool, error) {
	if r.w.small == nil { // an empty message gets here without smallMax's check
		return false, nil
	}
	route := r.w.small[d]
	if route == nil || len(buf) > r.w.eagerRemote || !r.quick() || len(r.nbc.active) > 0 {
		return false, nil
	}
	r.checkAbort()
	// Field by field into a header that stays put: a literal would be
	// built on the stack and copied with wide loads, which wait for its
	// narrow stores to reach the cache (decodeShortHeader, package shm).
	h := &r.rareState().smallHdr // real ranks only: no virtual rank pays for it
	h.Kind, h.Flags, h.Context = transport.Data, 0, ctx
	h.Src, h.Dst, h.Tag = int32(r.id), int32(d), tag
	h.SendID, h.RecvID, h.Size, h.Arrival = r.nextID+1, 0, int64(len(buf)), 0
	sent, err := route.SendSmall(h, buf)
	if err != nil {
		return true, &Error{Class: ClassOther, Msg: "send to rank " + strconv.Itoa(d) + " failed", Err: err}
	}
	if !sent {
		return false, nil
	}
	r.nextID++
	r.stats.sent++
	r.stats.sentBytes += int64(len(buf))
	return true, nil
}

// waitReal is waitOnly for a quick rank (real mode, no trace, no record):
// Algorithm 1's loop alone, without the event points, marks and folds
// that virtual time and the trace add to it (waitPhase), all of them
// empty or idle for such a rank. It deals with the
// inbox's frames until cond holds, parking while there are none (block),
// or until the inbox is empty (a test). Before it parks it polls
// quickPolls times where Park would spin: a small message's answer
// usually comes within them, and park's bookkeeping for the detectors
// that look for sleeping ranks (blockedIn, two locked stores) and Park's
// spin cost a ping-pong's round trip more than the polls
// (docs/gompirun.md, BENCHMARKS). A rank that polls is not asleep to those
// detectors, as one in the first checks of Park's spin is not.
func (r *rank) waitReal(cond func() bool, block bool) {
	r.checkAbort()
	polls := 0
	for !cond() {
		var f *transport.Frame
		if block {
			f = r.inbox.Next()
		} else {
			f = r.inbox.NextNow() // no park follows to let the transports' goroutines deliver
		}
		if f != nil {
			r.dispatch(f)
			continue
		}
		if !block || cond() { // a poll may complete it (takeDirect)
			return
		}
		if polls < quickPolls && r.inbox.SpinsNow() {
			polls++
			continue
		}
		r.park(cond)
	}
}

// quickPolls is how many times waitReal polls before it parks: as many as
// Park's spin checks between two looks at its Handoff sources
// (transport's handoffEvery), so frames from those (TCP) wait at most that
// many checks longer, about a microsecond.
const quickPolls = 32

// smallRoutes lists the routes of t that take small sends
// (transport.SmallSender) by world rank, or returns nil when none does,
// and the longest payload any of them takes (0 when none does). The
// engine asks none of them with a longer one: a medium message would
// otherwise pass through every layer's refusal on its way to the general
// path.
func smallRoutes(t *transport.Table) (small []transport.SmallSender, most int) {
	for i, tr := range t.Routes {
		s, ok := tr.(transport.SmallSender)
		if !ok || s.SmallMax() <= 0 {
			continue
		}
		if small == nil {
			small = make([]transport.SmallSender, len(t.Routes))
		}
		small[i] = s
		most = max(most, s.SmallMax())
	}
	return small, most
}
