//go:build linux

package shm

import (
	"slices"
	"testing"

	"github.com/gompi/gompi/transport"
)

// TestTakeCells: a rank polling a ring that holds no records takes every
// filled cell in one poll (takeCells), in the order they were filled:
// straight into its receives while it takes them (SetDirect), then, once
// it refuses one, into the queue behind it. A corrupt cell found so is
// reported and nothing of it delivered.
func TestTakeCells(t *testing.T) {
	g := openGroup(t, "takecells", 1, 1)
	out, ib, r := g.trs[0], g.inbox(1), g.trs[1].in[0]
	g.peerOf(t, 0, 1) // attached: SendSmall takes only attached peers
	var took []int32
	ib.SetDirect(func(h *transport.Header, payload []byte) bool {
		if h.Tag >= 2 {
			return false
		}
		if err := checkFrame(&transport.Frame{Header: *h, Payload: payload}, 0, int(h.Tag), 8); err != nil {
			t.Error(err)
		}
		took = append(took, h.Tag)
		return true
	})
	for seq := range 4 {
		h := dataFrame(0, 1, seq, nil).Header
		h.Size = 8
		if sent, err := out.SendSmall(&h, pattern(seq, 8)); !sent || err != nil {
			t.Fatalf("frame %d: SendSmall sent %v, err %v", seq, sent, err)
		}
	}
	if r.tail.Load() != r.head.Load() {
		t.Fatal("the ring holds records: the poll would not take cells only")
	}
	// The waiter only drains when woken, and nothing woke it: the poll
	// below finds the four cells filled.
	if !g.trs[1].Poll(ib) {
		t.Fatal("the poll delivered nothing to the polling rank")
	}
	if !slices.Equal(took, []int32{0, 1}) {
		t.Fatalf("taken straight into receives: %v, want [0 1]", took)
	}
	if r.cellPos != 4 || r.cells.head.Load() != 4 {
		t.Fatalf("after the poll: %d cells taken, %d shown to the producer; want 4 and 4", r.cellPos, r.cells.head.Load())
	}
	for seq := 2; seq < 4; seq++ {
		f := ib.Next()
		if err := checkFrame(f, 0, seq, 8); err != nil {
			t.Fatal(err)
		}
		f.Free()
	}

	c := r.cells.cell(r.cellPos)
	putShortHeader(c[cellStamp:], &dataFrame(0, 1, 9, nil).Header, 0)
	c[cellStamp] = byte(transport.Req) | shortKind
	stampOf(c).Store(uint32(r.cellPos + 1))
	if g.trs[1].Poll(ib) || ib.Next() != nil {
		t.Fatal("a corrupt cell was delivered")
	}
	if g.trs[1].Err() == nil {
		t.Fatal("a corrupt cell found by a poll was not reported")
	}
}
