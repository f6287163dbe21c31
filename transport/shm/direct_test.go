//go:build linux

package shm

import (
	"bytes"
	"fmt"
	"runtime"
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
// (TestDirectFramesKeepTheirOrder), and so does one under leaveMin bytes.
func TestPollLeavesAFrameNoReceiveTakes(t *testing.T) {
	var took []int32
	for attempt := range 5 {
		trs, ibs := openPair(t, fmt.Sprintf("leave%d", attempt), false)
		posted := int32(0) // frames up to this tag have a posted receive
		took = nil
		ibs[1].SetDirect(func(h *transport.Header, payload []byte) bool {
			if h.Tag > posted {
				return false
			}
			took = append(took, h.Tag)
			return true
		})
		send := func(seq, size int) {
			if err := trs[0].Send(dataFrame(0, 1, seq, pattern(seq, size))); err != nil {
				t.Fatal(err)
			}
		}
		// poll polls as the owner until it has taken n frames straight,
		// and reports whether nothing went to the queue meanwhile. A
		// poll skips a ring the waiter goroutine is reading, and the
		// waiter queues what it takes: then this attempt proves nothing.
		poll := func(n int) bool {
			for range 1000 {
				trs[1].Poll(ibs[1])
				if len(took) >= n || !ibs[1].Empty() {
					break
				}
				runtime.Gosched()
			}
			return len(took) == n && ibs[1].Empty()
		}
		send(0, leaveMin)
		send(1, leaveMin)
		if !poll(1) {
			continue
		}
		r := trs[1].in[0]
		if r.tail.Load() == r.head.Load() {
			t.Fatal("the frame no receive took left the ring")
		}
		posted = 1
		if !poll(2) {
			continue
		}
		// A small frame behind a taken one goes to the queue at once.
		posted = 2
		send(2, leaveMin)
		send(3, leaveMin-1)
		if poll(3); len(took) != 3 {
			continue
		}
		if ibs[1].Empty() {
			t.Fatal("a frame under leaveMin bytes behind a taken one stayed in the ring")
		}
		var f *transport.Frame
		for range 1000 { // a poll skips the ring while the waiter reads it
			if f = ibs[1].NextNow(); f != nil {
				break
			}
			runtime.Gosched()
		}
		if f == nil || f.Tag != 3 {
			t.Fatalf("a frame under leaveMin bytes behind a taken one was not queued: took %v, queued %v", took, f)
		}
		return
	}
	t.Fatalf("in 5 attempts the owner's polls never took frames 0-2 straight, leaving frame 1 in the ring until its receive was posted (last attempt took %v)", took)
}
