package vtime

import "testing"

// A message that reaches the target exactly when a wait ends, or between
// two waits, before its receive is posted, is dealt at the posting time
// whichever order the host sees (the receive's starting phase, DR, or a
// later wait, Algorithm 3 with Started). Before this rule the late deal
// answered the next wait's start, after the send a Sendrecv makes between
// posting and waiting: 8 B / B_mem later, which made ranks' ends depend on
// host order in a skeleton of rendezvous halos and 8-byte Allreduces on a
// one-node machine (docs/model.md, "Repeatability").
func TestDealAtPostingWhenArrivedBefore(t *testing.T) {
	const s, sent = 8, 8
	post := 1e-3
	for _, ta := range []float64{post / 2, 3 * post / 4, post} { // wait's end, between waits, at the posting
		viaDR := NewRank(tianhe(t, 2), 0, nil, 0)
		late := NewRank(tianhe(t, 2), 0, nil, 0)
		for _, r := range []*Rank{viaDR, late} {
			r.SimStart()
			r.Elapse(post / 2)
			r.Begin()
			r.WaitStart(true) // a wait that ends at post / 2
			r.WaitEnd()
			r.Elapse(post / 2)
		}
		viaDR.Begin()
		copied := viaDR.EndRecv(s)
		viaDR.Begin()
		viaDR.EndSend(sent)
		viaDR.Begin()
		viaDR.WaitStart(true)
		viaDR.Ready(copied)
		viaDR.WaitEnd()

		late.Begin()
		late.EndSend(sent)
		late.Begin()
		late.WaitStart(false)
		late.Deal(Message{Kind: Data, Size: s, Arrival: ta, Peer: 1, Started: post}, true)
		late.WaitEnd()
		if viaDR.tv != late.tv {
			t.Errorf("t_a = %g: DR path ends at %.17g, late deal at %.17g", ta, viaDR.tv, late.tv)
		}
	}
}
