package mpi

import "math"

// The lookahead window of the conservative protocol (virtual time).
//
// When the job settles (every rank parked, nothing in flight) the rank with
// the earliest pending event is told to act on it (virtual_stall.go). With
// the order it learns the earliest pending event of every other rank
// (rank.until: in one process from resolveStall, over processes from
// gompirun, launch.Order.Until). Until this rank sends a message, no other
// rank can do anything before that time: each is parked, and only a
// message or its own pending event can wake it. So no message can reach
// this rank, or any other, earlier; the rank may act on its own pending
// events before that time, and answer its polls for times before it,
// without the job settling again. A rank polling in a loop while the others
// wait thus pays one round for the whole stretch of polls instead of one
// per poll. A frame the rank sends ends the window at its arrival time
// t_a at the latest (sendFrame): what it sets off, the receiver's dealing
// with it and whatever follows, happens at t_a or later, so nothing can
// reach a rank before t_a that did not already have to wait for the
// window's end.

// takeWindow takes the window an order carried, once the park that
// received the order is over.
func (r *rank) takeWindow() {
	if !r.ordered {
		return
	}
	if b := r.until.Swap(0); b != 0 {
		r.window = max(r.window, math.Float64frombits(b))
	}
}

// inWindow reports whether the rank's earliest pending event comes before
// its window closes: it may act on it now, exactly.
func (r *rank) inWindow() bool {
	if r.window == 0 {
		return false
	}
	t, ok := r.pendingTime()
	return ok && t < r.window
}
