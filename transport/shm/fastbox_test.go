//go:build linux

package shm

import (
	"encoding/binary"
	"testing"
	"time"

	"github.com/gompi/gompi/transport"
)

// TestFastboxKeepsSendOrder: frames of every size from one process to
// another arrive in the order they were sent, whether each went through a
// fastbox cell or the ring, with the receiver reading after every frame,
// never, or now and then, and at the default and the smallest ring size
// (one cell).
func TestFastboxKeepsSendOrder(t *testing.T) {
	sizes := []int{0, 8, cellPayload, cellPayload + 1, shortMax, shortMax + 1, 1000, 8, 0, 70000, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
	for _, ring := range []string{"", "1024"} {
		for _, every := range []int{1, 3, 0} {
			if ring != "" {
				t.Setenv(RingEnv, ring)
			}
			g := openGroup(t, "fbox-order", 1, 1)
			out, pr := g.trs[0], g.peerOf(t, 0, 1)
			seq := 0
			for round := 0; round < 3; round++ {
				for _, n := range sizes {
					if err := out.Send(dataFrame(0, 1, seq, pattern(seq, n))); err != nil {
						t.Fatal(err)
					}
					seq++
					if every > 0 && seq%every == 0 {
						g.trs[1].Poll(g.inbox(1))
					}
				}
			}
			for i := 0; i < seq; i++ {
				n := sizes[i%len(sizes)]
				if err := checkFrame(recvFrame(g.inbox(1), 5*time.Second), 0, i, n); err != nil {
					t.Fatalf("ring %q, reading every %d: %v", ring, every, err)
				}
			}
			pr.out.mu.Lock()
			cells, recs := pr.out.cellNext, pr.out.pos
			pr.out.mu.Unlock()
			if cells == 0 || recs == 0 {
				t.Errorf("ring %q, reading every %d: %d frames through cells, %d ring bytes: want both paths used", ring, every, cells, recs)
			}
		}
	}
}

// TestFastboxOnlyAfterTheRing: a small frame sent while the ring holds
// records the receiver has not taken goes through the ring too, behind
// them; once the receiver took them, the next goes through a cell.
func TestFastboxOnlyAfterTheRing(t *testing.T) {
	g := openGroup(t, "fbox-after", 1, 1)
	out, pr := g.trs[0], g.peerOf(t, 0, 1)
	// The receiver's waiter drains the ring when the first send wakes it:
	// holding the ring's lock keeps the first record untaken for the
	// second send, as a receiver busy elsewhere would.
	r := g.trs[1].in[0]
	if !r.tryLock() {
		t.Fatal("the receiving ring is locked")
	}
	for i, n := range []int{1000, 8} {
		if err := out.Send(dataFrame(0, 1, i, pattern(i, n))); err != nil {
			r.unlock()
			t.Fatal(err)
		}
	}
	r.unlock()
	if pr.out.cellNext != 0 {
		t.Fatalf("a small frame went through a cell while the ring held a record before it")
	}
	for i, n := range []int{1000, 8} {
		if err := checkFrame(recvFrame(g.inbox(1), 5*time.Second), 0, i, n); err != nil {
			t.Fatal(err)
		}
	}
	if err := out.Send(dataFrame(0, 1, 2, pattern(2, 8))); err != nil {
		t.Fatal(err)
	}
	if pr.out.cellNext != 1 {
		t.Fatalf("%d cells used after the ring drained: want the small frame in one", pr.out.cellNext)
	}
	if err := checkFrame(recvFrame(g.inbox(1), 5*time.Second), 0, 2, 8); err != nil {
		t.Fatal(err)
	}
}

// TestFastboxStaleStamp: a cell keeps the stamp of the frame it held a lap
// ago, which must not pass for the next frame.
func TestFastboxStaleStamp(t *testing.T) {
	g := openGroup(t, "fbox-stale", 1, 1)
	out, in := g.trs[0], g.trs[1]
	r := in.in[0]
	k := int(r.cells.n())
	for i := 0; i < k; i++ {
		if err := out.Send(dataFrame(0, 1, i, pattern(i, 8))); err != nil {
			t.Fatal(err)
		}
		if err := checkFrame(recvFrame(g.inbox(1), 5*time.Second), 0, i, 8); err != nil {
			t.Fatal(err)
		}
	}
	if got := stampOf(r.cells.cell(0)).Load(); got != 1 {
		t.Fatalf("cell 0 holds stamp %d, want 1 from the first lap", got)
	}
	if in.drain(g.inbox(1), true) || g.inbox(1).Next() != nil {
		t.Fatal("a cell from the last lap was delivered again")
	}
	if r.cellPos != uint64(k) {
		t.Fatalf("consumer at cell %d, want %d", r.cellPos, k)
	}
}

// TestCorruptFastbox: a cell that announces more payload than a cell
// holds, a cell with a bad header, and a ring record that says a cell
// came before it when none did are reported, never delivered.
func TestCorruptFastbox(t *testing.T) {
	for name, corrupt := range map[string]func(r *inRing){
		"size": func(r *inRing) {
			c := r.cells.cell(0)
			transport.EncodeHeader(c[cellStamp:], &transport.Header{Kind: transport.Data, Dst: 1, Size: cellPayload + 1})
			stampOf(c).Store(1)
		},
		"header": func(r *inRing) {
			c := r.cells.cell(0)
			c[cellStamp] = 99
			stampOf(c).Store(1)
		},
		"short size": func(r *inRing) {
			c := r.cells.cell(0)
			putShortHeader(c[cellStamp:], &dataFrame(0, 1, 0, nil).Header, 0)
			c[cellStamp+2] = shortMax + 1
			stampOf(c).Store(1)
		},
		"short kind": func(r *inRing) {
			c := r.cells.cell(0)
			putShortHeader(c[cellStamp:], &dataFrame(0, 1, 0, nil).Header, 0)
			c[cellStamp] = byte(transport.Req) | shortKind
			stampOf(c).Store(1)
		},
		"missing": func(r *inRing) {
			b := misrouted()
			transport.EncodeHeader(b[recHdr:], &transport.Header{Kind: transport.Req, Dst: 1})
			copy(r.data, b)
			binary.LittleEndian.PutUint32(r.data[recCells:], 1)
			r.tail.Store(uint64(len(b)))
		},
	} {
		t.Run(name, func(t *testing.T) {
			g := openGroup(t, "fbox-corrupt-"+name, 1, 1)
			corrupt(g.trs[1].in[0])
			// Waiting for the ring's lock, as TestCorruptRing does.
			if g.trs[1].drain(g.inbox(1), true) || g.inbox(1).Next() != nil {
				t.Fatal("a corrupt record was delivered")
			}
			if g.trs[1].Err() == nil {
				t.Fatal("corrupt record not reported")
			}
			t.Log(g.trs[1].Err())
		})
	}
}

// TestFastboxShortHeader: an eager DATA of real mode goes into a cell with
// a short header, up to shortMax payload bytes, and arrives with every
// header field it was sent with; a frame whose header has a receive id or
// an arrival time (a virtual run's) keeps the whole header, and a payload
// over shortMax goes through the ring.
func TestFastboxShortHeader(t *testing.T) {
	g := openGroup(t, "fbox-short", 1, 1)
	out, pr := g.trs[0], g.peerOf(t, 0, 1)
	r := g.trs[1].in[0]
	virtual := func(f *transport.Frame) *transport.Frame { f.Arrival = 1.5e-6; return f }
	withRecvID := func(f *transport.Frame) *transport.Frame { f.RecvID = 7; return f }
	same := func(f *transport.Frame) *transport.Frame { return f }
	for i, c := range []struct {
		n     int
		edit  func(*transport.Frame) *transport.Frame
		short bool // sent in a cell with a short header
		cell  bool // sent in a cell
	}{
		{0, same, true, true},
		{8, same, true, true},
		{32, same, true, true},
		{shortMax, same, true, true},
		{8, virtual, false, true},
		{8, withRecvID, false, true},
		{shortMax + 1, same, false, false},
	} {
		f := c.edit(dataFrame(0, 1, i, pattern(i, c.n)))
		f.Context, f.Tag = 3, -2 // any tag, MPI_ANY_TAG's among them, travels
		want := f.Header
		before := pr.out.cellNext
		if err := out.Send(f); err != nil {
			t.Fatal(err)
		}
		if cell := pr.out.cellNext != before; cell != c.cell {
			t.Fatalf("frame %d (%d bytes): in a cell %v, want %v", i, c.n, cell, c.cell)
		}
		if c.cell {
			if short := r.cells.cell(before)[cellStamp]&shortKind != 0; short != c.short {
				t.Fatalf("frame %d (%d bytes): short header %v, want %v", i, c.n, short, c.short)
			}
		}
		got := recvFrame(g.inbox(1), 5*time.Second)
		if got == nil {
			t.Fatalf("frame %d never arrived", i)
		}
		if got.Header != want {
			t.Fatalf("frame %d arrived as %+v, want %+v", i, got.Header, want)
		}
		if err := checkFrame(got, 0, i, c.n); err != nil {
			t.Fatal(err)
		}
	}
}

// TestDecodeShortHeader: a short header decodes into every field it was
// written from, zeroing those it does not carry, and a bad one leaves the
// header it was to fill as it was.
func TestDecodeShortHeader(t *testing.T) {
	want := transport.Header{Kind: transport.Data, Context: 5, Src: 3, Dst: 4, Tag: -2, SendID: 1 << 40, Size: 8}
	b := make([]byte, shortHeader+8)
	putShortHeader(b, &want, 8)
	h := transport.Header{RecvID: 9, Arrival: 2.5, Flags: 1}
	data, err := decodeShortHeader(b, &h)
	if err != nil || h != want || len(data) != 8 {
		t.Fatalf("decoded %+v (%d payload bytes, %v), want %+v", h, len(data), err, want)
	}
	b[1] = 1 // flags a short header never has
	kept := transport.Header{Tag: 77}
	h = kept
	if _, err := decodeShortHeader(b, &h); err == nil || h != kept {
		t.Fatalf("a bad short header decoded without error (%v) or changed the header: %+v", err, h)
	}
}
