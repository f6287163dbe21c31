//go:build linux

package shm

import (
	"testing"
	"time"

	"github.com/gompi/gompi/transport"
)

// TestSendSmall: SendSmall writes an eager DATA into a fastbox cell, as
// Send writes the same frame, and the receiver gets the same frame; it
// declines, sending nothing, whatever Send would send another way or must
// prepare first (the ring's first frame attaches the peer), and it keeps
// the order of frames sent either way to one receiver.
func TestSendSmall(t *testing.T) {
	g := openGroup(t, "small", 1, 1)
	tr, ib := g.trs[0], g.inbox(1)
	h := func(seq, size int) *transport.Header { return &dataFrame(0, 1, seq, pattern(seq, size)).Header }
	expect := func(seq, size int) {
		t.Helper()
		f := recvFrame(ib, 10*time.Second)
		if err := checkFrame(f, 0, seq, size); err != nil {
			t.Fatal(err)
		}
		if f.Kind != transport.Data || f.Tag != int32(seq) || f.Flags != 0 {
			t.Fatalf("frame %d arrived as %v", seq, f)
		}
		f.Free()
	}

	if sent, err := tr.SendSmall(h(1, 8), pattern(1, 8)); sent || err != nil {
		t.Fatalf("SendSmall before the peer is attached: sent %v, err %v", sent, err)
	}
	if err := tr.Send(dataFrame(0, 1, 1, pattern(1, 8))); err != nil {
		t.Fatal(err)
	}
	expect(1, 8)
	for _, size := range []int{0, 8, shortMax} {
		if sent, err := tr.SendSmall(h(2, size), pattern(2, size)); !sent || err != nil {
			t.Fatalf("SendSmall of %d bytes to an attached peer: sent %v, err %v", size, sent, err)
		}
		expect(2, size)
	}

	// Declined: too long, not an eager DATA, a header a short one drops,
	// a size that is not the payload's, a rank of this process.
	decline := map[string]func(*transport.Header) []byte{
		"too long":   func(h *transport.Header) []byte { h.Size = shortMax + 1; return pattern(3, shortMax+1) },
		"REQ":        func(h *transport.Header) []byte { h.Kind = transport.Req; return pattern(3, 8) },
		"flags":      func(h *transport.Header) []byte { h.Flags = transport.FlagRendezvous; return pattern(3, 8) },
		"receive id": func(h *transport.Header) []byte { h.RecvID = 9; return pattern(3, 8) },
		"arrival":    func(h *transport.Header) []byte { h.Arrival = 1e-6; return pattern(3, 8) },
		"size":       func(h *transport.Header) []byte { h.Size = 4; return pattern(3, 8) },
		"local rank": func(h *transport.Header) []byte { h.Dst = 0; return pattern(3, 8) },
		"no rank":    func(h *transport.Header) []byte { h.Dst = 7; return pattern(3, 8) },
	}
	for name, change := range decline {
		hd := h(3, 8)
		p := change(hd)
		if sent, err := tr.SendSmall(hd, p); sent || err != nil {
			t.Errorf("%s: SendSmall sent %v, err %v; want it declined", name, sent, err)
		}
	}

	// Order: a frame in the ring, unread, keeps the next from a cell;
	// Send then puts it behind the first.
	if err := tr.Send(dataFrame(0, 1, 4, pattern(4, 1000))); err != nil {
		t.Fatal(err)
	}
	if sent, err := tr.SendSmall(h(5, 8), pattern(5, 8)); sent || err != nil {
		t.Fatalf("SendSmall behind an unread ring record: sent %v, err %v", sent, err)
	}
	if err := tr.Send(dataFrame(0, 1, 5, pattern(5, 8))); err != nil {
		t.Fatal(err)
	}
	expect(4, 1000)
	expect(5, 8)

	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	if sent, err := tr.SendSmall(h(6, 8), pattern(6, 8)); sent || err != nil {
		t.Fatalf("SendSmall after Close: sent %v, err %v", sent, err)
	}
	if ib.Next() != nil {
		t.Fatal("a declined frame arrived")
	}
}
