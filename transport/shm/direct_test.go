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
// it, whole, while nothing is queued; one it refuses is queued, and every
// later frame then goes to the queue behind it, so none overtakes it.
func TestDirectFramesKeepTheirOrder(t *testing.T) {
	exercised := false
	// The waiter goroutine's first drain may, on a loaded host, take the
	// frames before the owner polls (and queue them all): try again.
	for attempt := 0; attempt < 5 && !exercised; attempt++ {
		took, queued := directRound(t, fmt.Sprintf("direct%d", attempt))
		// 0 and 1 are taken; 2 is refused and queued, so 3-5 queue behind it.
		k := len(took)
		if k > 2 || !slices.Equal(took, []int32{0, 1}[:k]) || !slices.Equal(queued, []int32{0, 1, 2, 3, 4, 5}[k:]) {
			t.Fatalf("taken straight from the ring %v, queued %v: want [0 1] and [2 3 4 5]", took, queued)
		}
		exercised = k == 2
	}
	if !exercised {
		t.Fatal("the owner was never offered a frame in 5 attempts")
	}
}

// directRound sends six frames to an inbox whose owner takes those with
// tags 0 and 1 (and refuses 2) and reports what it took and what was queued.
func directRound(t *testing.T, job string) (took, queued []int32) {
	trs, ibs := openPair(t, job, false)
	ibs[1].SetDirect(func(h *transport.Header, payload []byte) bool {
		if !bytes.Equal(payload, pattern(int(h.Tag), int(h.Size))) {
			t.Errorf("frame %d offered with a wrong payload", h.Tag)
		}
		if h.Tag > 2 {
			t.Errorf("frame %d offered while frame 2 waits in the queue", h.Tag)
		}
		if h.Tag >= 2 {
			return false
		}
		took = append(took, h.Tag)
		return true
	})
	for seq := range 6 {
		if err := trs[0].Send(dataFrame(0, 1, seq, pattern(seq, 8+seq))); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(took)+len(queued) < 6 && time.Now().Before(deadline) {
		if f := ibs[1].Next(); f != nil {
			queued = append(queued, f.Tag)
			f.Free()
		}
	}
	return took, queued
}
