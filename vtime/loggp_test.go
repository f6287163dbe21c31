package vtime

import (
	"math"
	"testing"
)

// The machine field nic_queue: LogGP's gap g (per byte, G; Phantom's
// simulator, seeds/002) on the sending rank's injection link. Tests are
// named after what of the model they check.

// nicTianhe is Tianhe-1A with nic_queue on, placed for 24 ranks: ranks 0
// and 12 are h = 3 apart, ranks 0 and 1 share a node.
func nicTianhe(t *testing.T, queue bool) *Target {
	t.Helper()
	m, err := Preset("tianhe1a")
	if err != nil {
		t.Fatal(err)
	}
	m.NICQueue = queue
	tg, err := m.Place(24)
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

// send runs one starting phase of a send (DS or RS) on r and returns t_a.
func send(r *Rank, size int64, dst int) float64 {
	r.Begin()
	ta := r.Stamp(size, dst)
	r.EndSend(size)
	return ta
}

// Two back-to-back network messages of one rank: the second's transfer
// starts when the first has left the link, so it arrives s / B_net after
// the first; without the queue each is charged s / B_net on its own and
// the second arrives only s / B_mem (its extra copy) after the first.
func TestLogGPGapSerializesInjection(t *testing.T) {
	const s = 1 << 20
	for _, queue := range []bool{false, true} {
		r := NewRank(nicTianhe(t, queue), 0, nil, 0)
		r.SimStart()
		ta1 := send(r, s, 12)
		ta2 := send(r, s, 12)
		if want := s/bMem + s/bNet + lh(3); !near(ta1, want) {
			t.Errorf("queue %v: first message t_a = %g, want Eq. 4's %g", queue, ta1, want)
		}
		gap := s / bMem
		if queue {
			gap = s / bNet
		}
		if !near(ta2-ta1, gap) {
			t.Errorf("queue %v: second message arrives %g after the first, want %g", queue, ta2-ta1, gap)
		}
		if want := 2 * s / bMem; !near(r.Now(), want) {
			t.Errorf("queue %v: sender free at %g, want 2 s/B_mem = %g (the link is not the sender's time)", queue, r.Now(), want)
		}
	}
}

// REQ and ACK are zero-byte: they neither wait for the link nor occupy it.
func TestLogGPGapZeroByteMessagesDoNotWait(t *testing.T) {
	r := NewRank(nicTianhe(t, true), 0, nil, 0)
	r.SimStart()
	const s = 1 << 20
	send(r, s, 12)
	if ta, want := send(r, 0, 12), s/bMem+lh(3); !near(ta, want) {
		t.Errorf("REQ behind a busy link: t_a = %g, want t_r + l = %g", ta, want)
	}
	// The REQ left the link's free time alone: the next DATA queues
	// behind the first only.
	if ta, want := send(r, s, 12), s/bMem+2*s/bNet+lh(3); !near(ta, want) {
		t.Errorf("DATA after the REQ: t_a = %g, want %g", ta, want)
	}
}

// A message sent after the link went idle starts at once: Eq. 4 as without
// the queue.
func TestLogGPGapIdleLinkDoesNotDelay(t *testing.T) {
	r := NewRank(nicTianhe(t, true), 0, nil, 0)
	r.SimStart()
	const s = 1 << 20
	send(r, s, 12)
	r.Elapse(1e-3) // far longer than s / B_net = 0.25 ms
	t0 := r.Now()
	if ta, want := send(r, s, 12), t0+s/bMem+s/bNet+lh(3); !near(ta, want) {
		t.Errorf("after an idle link: t_a = %g, want %g", ta, want)
	}
}

// Within a node (h = 0) messages do not use the network link: Eq. 4's
// L = s / B_mem, queue or not.
func TestLogGPGapNotOnNode(t *testing.T) {
	r := NewRank(nicTianhe(t, true), 0, nil, 0)
	r.SimStart()
	const s = 1 << 20
	send(r, s, 12)
	if ta, want := send(r, s, 1), 2*s/bMem+s/bMem; !near(ta, want) {
		t.Errorf("on node behind a busy network link: t_a = %g, want %g", ta, want)
	}
}

// The rendezvous DATA that answers an ACK (Algorithm 3 line 18) queues on
// the link too, from t_temp: here behind an eager message the rank sent
// while the DATA was being copied.
func TestLogGPGapReplyQueuesFromTtemp(t *testing.T) {
	r := NewRank(nicTianhe(t, true), 0, nil, 0)
	r.SimStart()
	const s = 1 << 20
	send(r, 0, 12) // REQ of message A
	taB := send(r, s, 12)
	r.Begin()
	r.WaitStart(false)
	// The ACK reached rank 0 before the wait (2 l, while B was still
	// being copied): t_temp is the wait's start, s/B_mem, and A's DATA is
	// in the buffer at 2 s/B_mem, before B has left the link.
	ttemp := s / bMem
	dataA, _ := r.Deal(Message{Kind: Ack, Arrival: 2 * lh(3), Size: s, Peer: 12}, true)
	r.WaitEnd()
	linkFree := s/bMem + s/bNet // B's transfer ends
	if want := linkFree + s/bNet + lh(3); !near(dataA, want) {
		t.Errorf("DATA of A: t_a = %g, want B's end on the link (B arrives %g) + s/B_net + l = %g", dataA, taB, want)
	}
	if want := ttemp + s/bMem; !near(r.Now(), want) {
		t.Errorf("the send's wait ends at %g, want t_temp + s/B_mem = %g (once in the buffer)", r.Now(), want)
	}
}

// An ACK found late (Fig. 4 (c)) is dealt with after the rank sent another
// message that leaves later in virtual time: the DATA it answers takes the
// gap before that message, as it would had the host seen the ACK in time
// (dealt in the earlier wait, before the other message was stamped).
func TestLogGPGapLateReplyTakesEarlierGap(t *testing.T) {
	const s = 1 << 20
	ack := Message{Kind: Ack, Arrival: 2 * lh(3), Size: s, Peer: 12}
	run := func(lateAck bool) (dataA, taB float64) {
		r := NewRank(nicTianhe(t, true), 0, nil, 0)
		r.SimStart()
		send(r, 0, 12) // REQ of A
		r.Begin()      // a receive's wait, complete at 0.5 ms
		r.WaitStart(false)
		if !lateAck {
			dataA, _ = r.Deal(ack, false)
		}
		r.Deal(Message{Kind: Data, Arrival: 0.5e-3, Peer: 13}, true)
		r.WaitEnd()
		r.Elapse(0.5e-3)
		taB = send(r, s, 12) // B, eager, at 1 ms
		r.Begin()            // the wait for A
		r.WaitStart(false)
		if lateAck {
			dataA, _ = r.Deal(ack, true)
		}
		r.WaitEnd()
		return dataA, taB
	}
	inTime, taB := run(false)
	late, taB2 := run(true)
	if want := ack.Arrival + s/bMem + s/bNet + lh(3); !near(inTime, want) || !near(late, want) {
		t.Errorf("DATA of A: t_a %g (ACK in time), %g (ACK late), want Eq. 4's %g for both", inTime, late, want)
	}
	if want := 1e-3 + s/bMem + s/bNet + lh(3); !near(taB, want) || !near(taB2, want) {
		t.Errorf("B: t_a %g, %g; want %g (the link was free again at 1 ms)", taB, taB2, want)
	}
}

// Where transfers overlap on the link, the order in which the rank deals
// with ACKs (host arrival order, in one Waitall) decides which DATA goes
// first. Each DATA then arrives within the sum of the overlapping
// transfer times s / B_net of where the other order puts it: the bound
// docs/model.md states.
func TestLogGPGapOverlappingRepliesDependOnDealOrderBoundedly(t *testing.T) {
	const s = 1 << 20
	d := s / bNet
	acks := []Message{
		{Kind: Ack, Arrival: 100e-6, Size: s, Peer: 12},
		{Kind: Ack, Arrival: 150e-6, Size: s, Peer: 13}, // 50 us later: the DATAs overlap
	}
	deal := func(order []int) []float64 {
		r := NewRank(nicTianhe(t, true), 0, nil, 0)
		r.SimStart()
		send(r, 0, 12)
		send(r, 0, 13)
		r.Begin()
		r.WaitStart(false)
		ta := make([]float64, 2)
		for _, i := range order {
			ta[i], _ = r.Deal(acks[i], true)
		}
		r.WaitEnd()
		return ta
	}
	inOrder, reversed := deal([]int{0, 1}), deal([]int{1, 0})
	// In t_temp order the target's FIFO link is modelled exactly.
	tr := func(i int) float64 { return acks[i].Arrival + s/bMem }
	if want := tr(0) + d + lh(3); !near(inOrder[0], want) {
		t.Errorf("first DATA: t_a %g, want %g", inOrder[0], want)
	}
	if want := tr(0) + 2*d + lh(3); !near(inOrder[1], want) {
		t.Errorf("second DATA: t_a %g, want behind the first, %g", inOrder[1], want)
	}
	// Dealt the other way round, the later one leaves first.
	if want := tr(1) + d + lh(3); !near(reversed[1], want) {
		t.Errorf("reversed: later DATA: t_a %g, want %g", reversed[1], want)
	}
	for i := range acks {
		if diff := math.Abs(reversed[i] - inOrder[i]); !(diff > 0 && diff < 2*d) {
			t.Errorf("DATA %d: the orders differ by %g, want in (0, 2 s/B_net = %g)", i, diff, 2*d)
		}
	}
}

// The link remembers a bounded number of busy intervals; transfers that
// leave gaps between them still find their place among the recent ones.
func TestLogGPGapLinkForgetsOldIntervals(t *testing.T) {
	var l Link
	for i := 0; i < 10*linkCap; i++ {
		if got := l.occupy(float64(i), 0.5); got != float64(i) {
			t.Fatalf("transfer %d on an idle link starts at %g", i, got)
		}
	}
	if len(l.busy) > linkCap {
		t.Errorf("%d intervals kept, cap %d", len(l.busy), linkCap)
	}
	last := float64(10*linkCap - 1)
	if got := l.occupy(last-2.25, 0.5); got != last-1.5 {
		t.Errorf("a transfer overlapping the third-last interval starts at %g, want after it at %g", got, last-1.5)
	}
	if got := l.occupy(last-2.4, 0.4); got != last-2.4 {
		t.Errorf("a transfer that fits the gap before the third-last interval starts at %g, want %g", got, last-2.4)
	}
	// The first transfers are forgotten: one stamped that early finds the
	// link free (at worst it leaves earlier than on the target).
	if got := l.occupy(0, 0.5); got != 0 {
		t.Errorf("a transfer older than every interval kept starts at %g, want 0", got)
	}
}
