//go:build linux

package shm

import (
	"bytes"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/gompi/gompi/transport"
)

// TestDirectFramesKeepTheirOrder: frames for an inbox whose owner takes
// frames straight from the ring (transport.Inbox.SetDirect) are offered to
// it, whole, only while nothing is queued; one it refuses is queued, and
// later frames go to the queue behind it until the owner has taken it, so
// none overtakes another: the owner gets them in the order sent, whichever
// of its poll and the waiter's drain handled each.
func TestDirectFramesKeepTheirOrder(t *testing.T) {
	exercised := false
	// The waiter goroutine's drains may, on a loaded host, take frames
	// before the owner polls (and queue them): try again until the owner
	// took one and refused frame 2 itself.
	for attempt := 0; attempt < 5 && !exercised; attempt++ {
		r := directRound(t, fmt.Sprintf("direct%d", attempt))
		if !slices.Equal(r.order, []int32{0, 1, 2, 3, 4, 5}) {
			t.Fatalf("frames reached the owner in the order %v (taken straight from the ring %v)", r.order, r.took)
		}
		exercised = len(r.took) > 0 && r.refused
	}
	if !exercised {
		t.Fatal("the owner never took a frame and refused frame 2 in 5 attempts")
	}
}

type directResult struct {
	took, order []int32 // taken straight from the ring; every frame, as the owner got it
	refused     bool    // the owner was offered frame 2 (and refused it)
}

// directRound sends six frames to an inbox whose owner takes those with
// tags 0 and 1 (and refuses 2) and reports what it got, in order.
func directRound(t *testing.T, job string) (r directResult) {
	trs, ibs := openPair(t, job, false)
	ibs[1].SetDirect(func(h *transport.Header, payload []byte) bool {
		if !bytes.Equal(payload, pattern(int(h.Tag), int(h.Size))) {
			t.Errorf("frame %d offered with a wrong payload", h.Tag)
		}
		if int(h.Tag) != len(r.order) {
			t.Errorf("frame %d offered when the owner had %v: an earlier frame waits in the queue", h.Tag, r.order)
		}
		if h.Tag >= 2 {
			r.refused = r.refused || h.Tag == 2
			return false
		}
		r.took = append(r.took, h.Tag)
		r.order = append(r.order, h.Tag)
		return true
	})
	for seq := range 6 {
		if err := trs[0].Send(dataFrame(0, 1, seq, pattern(seq, 8+seq))); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(r.order) < 6 && time.Now().Before(deadline) {
		if f := ibs[1].Next(); f != nil {
			r.order = append(r.order, f.Tag)
			f.Free()
		}
	}
	return r
}

// TestPollLeavesAFrameNoReceiveTakes: once a poll has taken a frame
// straight into its owner's receive, a frame behind it that no posted
// receive takes stays in the ring rather than going to the queue, and the
// next poll, after its receive is posted, takes it straight too: one copy
// instead of two for the messages of a sender that runs ahead. A poll that
// has taken nothing queues such a frame, so later frames still come
// (TestDirectFramesKeepTheirOrder).
func TestPollLeavesAFrameNoReceiveTakes(t *testing.T) {
	for attempt := range 5 {
		trs, ibs := openPair(t, fmt.Sprintf("leave%d", attempt), false)
		posted := int32(0) // frames up to this tag have a posted receive
		var took []int32
		ibs[1].SetDirect(func(h *transport.Header, payload []byte) bool {
			if h.Tag > posted {
				return false
			}
			took = append(took, h.Tag)
			return true
		})
		for seq := range 2 {
			if err := trs[0].Send(dataFrame(0, 1, seq, pattern(seq, 100))); err != nil {
				t.Fatal(err)
			}
		}
		trs[1].Poll(ibs[1])
		if len(took) != 1 || !ibs[1].Empty() {
			continue // the waiter's drain took them first (a loaded host): again
		}
		r := trs[1].in[0]
		if r.tail.Load() == r.head.Load() && !r.cellReady() {
			t.Fatal("the frame no receive took left the ring")
		}
		posted = 1
		trs[1].Poll(ibs[1])
		if !slices.Equal(took, []int32{0, 1}) || !ibs[1].Empty() {
			t.Fatalf("after its receive was posted the frame left in the ring was not taken straight: took %v, queue empty %v", took, ibs[1].Empty())
		}
		return
	}
	t.Fatal("the waiter took the frames before the owner polled in 5 attempts")
}
