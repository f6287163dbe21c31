package vtime

import (
	"math"
	"sort"
)

// This file is the virtual simulation of the waiting activity A_WT:
// Algorithm 2 (the early queue) and Algorithm 3 (DealMessage) of VACED-SIM
// Sect. 4.4. The loop of Algorithm 2 itself runs in the protocol engine
// (package mpi, progress.go), which owns the message buffer and the early
// queue; it asks this Rank the algorithm's time questions in the
// algorithm's order:
//
//	line 1, 3     WaitStart(done)
//	line 6        DueNow(t_a)       early-queue message due before the wait began
//	line 13       Early(t_a)        message from the buffer that arrives later on the target
//	lines 7,18,24 Deal(m, related)  Algorithm 3
//	line 23       DueInWait(t_a)    early-queue message due before the wait ended
//	line 28       WaitEnd()         num++, and E_end^WT: t_V = A_WT_end[num-1]
//
// During a waiting activity t_V stays at t(E_start^WT) = A_WT_start[num].

// MsgKind is the kind of a message in the model: the paper's DATA, REQ
// and ACK (Table 1), spelt as transport's frame kinds are.
type MsgKind uint8

const (
	Data MsgKind = iota + 1
	Req
	Ack
)

// Message is what Algorithm 3 needs to know about a message it deals with.
type Message struct {
	Kind    MsgKind
	Arrival float64 // t_a(m), stamped by the sender
	// Size is the size of the DATA the message carries (DATA), announces
	// (REQ) or asks for (ACK). REQ and ACK themselves are zero-byte.
	Size int64
	// Peer is the rank the reply goes to (the message's sender).
	Peer int
	// Started is the virtual time the operation m belongs to (c' of line
	// 15) began its starting phase, when that is later than t_a(m) can be
	// (a receive posted after a REQ or eager DATA for it arrived); 0 if
	// unknown. See dealTime.
	Started float64
}

// historyCap bounds the completed waits a rank remembers; see waitState.
const historyCap = 4096

// span is one completed waiting activity [A_WT_start[i], A_WT_end[i]].
type span struct{ start, end float64 }

// waitState is Algorithm 2's per-rank state: num, and A_WT_start[] /
// A_WT_end[] for the completed waits (hist) and the current one (cur).
//
// What is kept. Algorithm 3 lines 4-12 look up, for a message whose t_a
// lies before the current wait, the last wait that started at or before
// t_a and the one after it. Two reductions keep the history short:
//
//   - Merging (exact). A wait that starts when the previous one ended (no
//     computation between them) is merged with it: for every t_a the lookup
//     answers the same for [s1, e1] [e1, e2] as for [s1, e2]. With cpu-scale
//     0 and no Elapse between calls, the history stays one span long.
//   - Capping (bounded). Which waits a future message can still reach
//     depends on the smallest t_a that can still arrive, and that is a
//     global quantity: any rank may still deliver a message stamped far in
//     the past (it may be in flight on the host). Without a global lower
//     bound the rank keeps the last historyCap waits; a message older than
//     all of them (its host delivery lagging by more than historyCap of the
//     receiver's waits) is a history miss: it is dealt at t_temp = t_a, as
//     if a wait was in progress when it arrived (within [t_a, oldest kept
//     start] of the exact answer), and counted in the report. ForgetBefore
//     drops exactly what a known lower bound makes unreachable.
type waitState struct {
	num     int // waits completed (Algorithm 2's num)
	hist    []span
	cur     span  // the wait in progress: A_WT_start[num], A_WT_end[num]
	misses  int32 // lookups that fell before the oldest kept entry (at most math.MaxInt32)
	dropped bool  // entries were dropped by the cap
}

// WaitStart is Algorithm 2 line 1, A_WT_start[num] = t_V, and line 3,
// A_WT_end[num] = t_V. Line 3 applies whether or not c is complete: when
// it is not, the end only moves later as Algorithm 3 deals with messages
// related to c (so a wait that completes nothing ends where it began).
func (r *Rank) WaitStart(done bool) {
	r.wait.cur = span{r.tv, r.tv}
}

// Early is line 13's test for a message not related to c: t_a(m) > t_V,
// the message arrives on the target after the wait began, so it goes to the
// early queue (the problem of Fig. 4 (b)).
func (r *Rank) Early(ta float64) bool { return ta > r.tv }

// DueNow is line 6's test for an early-queue message not related to c:
// t_a(m) <= t_V, it arrived on the target before this wait began.
func (r *Rank) DueNow(ta float64) bool { return ta <= r.tv }

// DueInWait is line 23's test: t_a(m) <= A_WT_end[num], the early-queue
// message arrived on the target while this wait was in progress.
func (r *Rank) DueInWait(ta float64) bool { return ta <= r.wait.cur.end }

// Deal is Algorithm 3, DealMessage(c, m). It computes t_temp, the time the
// target deals with m (lines 1-13), and returns reply, the arrival time of
// the reply it sends: the ACK answering a REQ (line 15) or the DATA
// answering an ACK (line 18); 0 for a DATA, which has no reply. done is the
// time the operation m belongs to completes here once m is dealt with: for
// an ACK the time its DATA has left (t_r, line 21), for a DATA the time its
// copy into the user buffer completes, t_temp + size/B_mem (line 26); 0 for
// a REQ, whose receive still waits for its DATA. When m is related to c the
// wait ends no earlier than done; otherwise the caller keeps done for the
// wait to come (a message dealt before its operation is waited for, as the
// resolution of a stall or a Waitany does). A wait for several requests
// (Waitall) ends at the latest of them, so the end is a running maximum.
//
// The paper's assumption, kept here: messages dealt with in the same A_WT
// do not interact on the target. A message found late (Fig. 4 (c)) is dealt
// at the t_temp it had on the target, but the replies and wait ends already
// computed in that earlier wait are not revised (VACED-SIM would need
// checkpointing and rollback for that); the paper notes this makes
// predictions err on the short side.
func (r *Rank) Deal(m Message, related bool) (reply, done float64) {
	w := &r.wait
	// Beyond the paper: a message cannot be dealt with before its
	// operation started. On the target, a REQ or DATA that arrives before
	// its receive is posted waits in the unexpected queue and is answered
	// by that receive's starting phase (AS or DR) at the posting time; on
	// the host it may instead arrive after the posting and be dealt here.
	// So m is dealt at the posting time whenever it arrived no later, which
	// makes both host orders give the same t_temp, as repeatability needs.
	// (Algorithm 3 alone can answer later than the posting, for a message
	// that arrived exactly at the end of a wait or between waits: the next
	// wait's start, after whatever the call did between posting and waiting,
	// such as a Sendrecv's send; the starting phase copied m at the posting.)
	ttemp := m.Started
	if m.Arrival > m.Started {
		ttemp = max(w.dealTime(m.Arrival), m.Started)
	}
	switch m.Kind {
	case Req:
		_, reply = r.t.Transfer(ttemp, 0, r.id, m.Peer, &r.nic)
	case Ack:
		done, reply = r.t.Transfer(ttemp, m.Size, r.id, m.Peer, &r.nic)
	case Data:
		done = ttemp + r.t.CopyTime(m.Size)
	}
	if related && m.Kind != Req {
		w.cur.end = max(w.cur.end, w.cur.start, done)
	}
	return reply, done
}

// Found is for a waiting activity that looks for a message without dealing
// with it (MPI_Probe): m is related to c, and the wait ends no earlier than
// the target sees m (Algorithm 3's t_temp). Not in the paper, which has no
// probe.
func (r *Rank) Found(ta float64) {
	w := &r.wait
	w.cur.end = max(w.cur.end, w.cur.start, w.dealTime(ta))
}

// Ready is for a receive that DR completed in its starting phase (EndRecv
// returned copied) and that this wait observes: the wait ends no earlier
// than the copy, as it would had Deal copied the message in this wait.
func (r *Rank) Ready(copied float64) {
	w := &r.wait
	w.cur.end = max(w.cur.end, w.cur.start, copied)
}

// dealTime is Algorithm 3 lines 1-13: a message that arrived (on the
// target) during the current wait is dealt at its arrival; one that arrived
// earlier is dealt by the wait in progress when it arrived, or, if it
// arrived between waits, by the first wait after it. Before the first wait
// of all, that is A_WT_start[0] (the paper's loop would run off the array).
//
// A past wait includes its end (line 8 reads A_WT_end[i] >= t_a here, > in
// the paper): Algorithm 2 deals with a message that arrives exactly at the
// end of the wait in progress in that wait (line 23 is t_a <= A_WT_end), so
// the history must answer the same when the message reaches the host only
// after the wait, or the prediction depends on the host's order.
func (w *waitState) dealTime(ta float64) float64 {
	if ta >= w.cur.start {
		return ta
	}
	h := w.hist
	i := sort.Search(len(h), func(i int) bool { return h[i].start > ta }) - 1
	if i < 0 {
		if w.dropped {
			if w.misses < math.MaxInt32 {
				w.misses++
			}
			return ta
		}
		if len(h) > 0 {
			return h[0].start
		}
		return w.cur.start
	}
	if h[i].end >= ta {
		return ta
	}
	if i+1 < len(h) {
		return h[i+1].start
	}
	return w.cur.start
}

// WaitEnd is line 28, num++, and E_end^WT: t_V = A_WT_end[num-1].
func (r *Rank) WaitEnd() {
	w := &r.wait
	r.waiting += w.cur.end - w.cur.start
	r.tv = w.cur.end
	w.push(w.cur)
	w.num++
	r.resume()
}

func (w *waitState) push(s span) {
	if n := len(w.hist); n > 0 && w.hist[n-1].end >= s.start {
		w.hist[n-1].end = max(w.hist[n-1].end, s.end)
		return
	}
	if len(w.hist) == historyCap {
		k := copy(w.hist, w.hist[historyCap/2:])
		w.hist = w.hist[:k]
		w.dropped = true
	}
	if w.hist == nil {
		// Two spans to start with: merging keeps most histories that
		// short, and a million ranks each holding room for eight took
		// a tenth of a gigabyte (docs/model.md, "Fewer bytes per rank").
		w.hist = make([]span, 0, 2)
	}
	w.hist = append(w.hist, s)
}

// ForgetBefore drops the waits no message can reach once every message
// still to come has t_a >= t: all but the last wait that started at or
// before t. It is for a caller that knows such a bound (a global lower bound
// on virtual time); dropping this way is exact.
func (r *Rank) ForgetBefore(t float64) {
	r.forgot = max(r.forgot, t)
	h := r.wait.hist
	i := sort.Search(len(h), func(i int) bool { return h[i].start > t }) - 1
	if i > 0 {
		r.wait.hist = append(h[:0], h[i:]...)
	}
}

// Forgot is the latest t ForgetBefore has been given, 0 before the first.
// Forgetting again before a time no later can drop only what the waits
// begun since have made unreachable, so a caller whose bound takes work to
// compute may skip it then, keeping a few waits more (forgetting is never
// needed for the answers, only for the history's length).
func (r *Rank) Forgot() float64 { return r.forgot }

// HistoryLen is how many waits the rank keeps for Algorithm 3's lookup.
func (r *Rank) HistoryLen() int { return len(r.wait.hist) }
