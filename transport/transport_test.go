package transport

import (
	"math"
	"sync"
	"testing"
	"time"
)

// Frames from each producer come out in the order that producer pushed
// them, however many producers race.
func TestInboxPerProducerFIFO(t *testing.T) {
	const producers, each = 6, 5000
	ib := NewInbox()
	var wg sync.WaitGroup
	for p := 0; p < producers; p++ {
		wg.Add(1)
		go func(p int) {
			defer wg.Done()
			for k := 0; k < each; k++ {
				f := NewFrame()
				f.Src, f.SendID = int32(p), uint64(k)
				ib.Deliver(f)
			}
		}(p)
	}
	next := make([]uint64, producers)
	never := func() bool { return false }
	for got := 0; got < producers*each; {
		f := ib.Next()
		if f == nil {
			ib.Park(never)
			continue
		}
		if f.SendID != next[f.Src] {
			t.Fatalf("producer %d: got %d, want %d", f.Src, f.SendID, next[f.Src])
		}
		next[f.Src]++
		got++
		f.Free()
	}
	wg.Wait()
	if ib.Next() != nil {
		t.Fatal("extra frame")
	}
}

// A sleeping owner is woken by Deliver and by Kick; no wake-up is lost
// however the two sides interleave.
func TestInboxSleepWake(t *testing.T) {
	ib := NewInbox()
	var flag sync.Mutex
	ready := false
	isReady := func() bool { flag.Lock(); defer flag.Unlock(); return ready }
	for round := 0; round < 200; round++ {
		done := make(chan struct{})
		go func() {
			if round%2 == 0 {
				ib.Deliver(NewFrame())
			} else {
				flag.Lock()
				ready = true
				flag.Unlock()
				ib.Kick()
			}
			close(done)
		}()
		deadline := time.After(10 * time.Second)
		for {
			if f := ib.Next(); f != nil {
				f.Free()
				break
			}
			if isReady() {
				break
			}
			woke := make(chan struct{})
			go func() { ib.Sleep(isReady); close(woke) }()
			select {
			case <-woke:
			case <-deadline:
				t.Fatalf("round %d: wake-up lost", round)
			}
		}
		<-done
		flag.Lock()
		ready = false
		flag.Unlock()
		// Drain a stale wake token so the next round starts clean.
		ib.wake.take()
	}
}

func TestAsleepReportsOnlyRealSleep(t *testing.T) {
	ib := NewInbox()
	if a, _ := ib.Asleep(); a {
		t.Fatal("fresh inbox reported asleep")
	}
	woke := make(chan struct{})
	go func() { ib.Sleep(func() bool { return false }); close(woke) }()
	deadline := time.Now().Add(5 * time.Second)
	for {
		if a, nap := ib.Asleep(); a && nap == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("owner never reported asleep")
		}
		time.Sleep(time.Millisecond)
	}
	ib.Deliver(NewFrame())
	<-woke
	if a, _ := ib.Asleep(); a {
		t.Fatal("asleep with a frame queued")
	}
}

func TestHeaderRoundTrip(t *testing.T) {
	h := Header{Kind: Ack, Flags: FlagSync, Context: 77, Src: 3, Dst: 1 << 20, Tag: 1 << 29,
		SendID: math.MaxUint64, RecvID: 12, Size: 1 << 33, Arrival: 1.25e-3}
	var b [HeaderSize]byte
	EncodeHeader(b[:], &h)
	got, err := DecodeHeader(b[:])
	if err != nil || got != h {
		t.Fatalf("round trip: %+v, %v", got, err)
	}
	if h.PayloadLen() != 0 {
		t.Fatal("ACK carries no payload")
	}
}

// TestEncodedPayloadLen: the payload length read from an encoded header
// without decoding it is the decoded header's, for every kind.
func TestEncodedPayloadLen(t *testing.T) {
	for _, k := range []Kind{Data, Req, Ack, Ctrl} {
		h := Header{Kind: k, Src: 1, Dst: 2, Size: 72}
		var b [HeaderSize]byte
		EncodeHeader(b[:], &h)
		if got, want := EncodedPayloadLen(b[:]), h.PayloadLen(); got != want {
			t.Errorf("%v: %d payload bytes from the encoded header, want %d", k, got, want)
		}
	}
}

// TestHeaderDecodeInPlace: Decode overwrites every field of the header it
// decodes into (a pooled frame's, say), so nothing of a previous frame
// survives; a short buffer leaves it zero.
func TestHeaderDecodeInPlace(t *testing.T) {
	want := Header{Kind: Data, Src: 1, Dst: 2, Size: 10}
	var b [HeaderSize]byte
	EncodeHeader(b[:], &want)
	stale := Header{Kind: Ack, Flags: FlagSync, Context: 9, Src: 7, Dst: 8, Tag: 5,
		SendID: 6, RecvID: 4, Size: 3, Arrival: 2.5}
	h := stale
	if err := h.Decode(b[:]); err != nil || h != want {
		t.Fatalf("decoded over a stale header: %+v, %v; want %+v", h, err, want)
	}
	h = stale
	if err := h.Decode(b[:HeaderSize-1]); err != ErrShortHeader || h != (Header{}) {
		t.Fatalf("short buffer: %+v, %v; want a zero header and ErrShortHeader", h, err)
	}
}

func TestDecodeHeaderRejectsBadInput(t *testing.T) {
	good := Header{Kind: Data, Src: 1, Dst: 2, Size: 10}
	mutate := map[string]func(b []byte){
		"kind 0":        func(b []byte) { b[0] = 0 },
		"kind 9":        func(b []byte) { b[0] = 9 },
		"reserved":      func(b []byte) { b[2] = 1 },
		"negative src":  func(b []byte) { b[11] = 0x80 },
		"negative size": func(b []byte) { b[43] = 0x80 },
		"huge size":     func(b []byte) { b[42] = 0x7f },
		"NaN arrival":   func(b []byte) { copy(b[44:], []byte{1, 0, 0, 0, 0, 0, 0xf8, 0x7f}) },
	}
	for name, m := range mutate {
		var b [HeaderSize]byte
		EncodeHeader(b[:], &good)
		m(b[:])
		if _, err := DecodeHeader(b[:]); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := DecodeHeader(make([]byte, HeaderSize-1)); err != ErrShortHeader {
		t.Errorf("short header: %v", err)
	}
}

func TestPayloadPoolsRecycle(t *testing.T) {
	for _, n := range []int{0, 1, InlinePayload, InlinePayload + 1, 4096, 1 << 20, 1<<20 + 1} {
		f := NewFrame()
		src := make([]byte, n)
		for i := range src {
			src[i] = byte(i)
		}
		f.CopyPayload(src)
		if len(f.Payload) != n {
			t.Fatalf("len %d, want %d", len(f.Payload), n)
		}
		for i := range src {
			if f.Payload[i] != src[i] {
				t.Fatalf("n=%d: byte %d", n, i)
			}
		}
		f.Free()
	}
}

// TestLargePayloadsReuseBuffers: a payload of several megabytes (read off
// a ring, or kept by a virtual rank) takes a recycled buffer, not a fresh
// one whose pages fault in on every message.
func TestLargePayloadsReuseBuffers(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops items at random under the race detector")
	}
	const n = 3 << 20
	allocs := testing.AllocsPerRun(20, func() {
		f := NewFrame()
		f.AllocPayload(n)
		f.Free()
	})
	if allocs >= 1 {
		t.Errorf("%.1f allocations per %d-byte payload, want its buffer reused", allocs, n)
	}
}

func TestTableRoutes(t *testing.T) {
	a, b := NewInbox(), NewInbox()
	tbl := &Table{Routes: []Transport{nil, &fakeTransport{ib: a}, &fakeTransport{ib: b}}}
	if err := tbl.Send(&Frame{Header: Header{Dst: 2}}); err != nil || b.Next() == nil {
		t.Fatal("route to 2 failed")
	}
	for _, d := range []int32{0, 3, -1} {
		if err := tbl.Send(&Frame{Header: Header{Dst: d}}); err == nil {
			t.Errorf("route to %d accepted", d)
		}
	}
}

type fakeTransport struct{ ib *Inbox }

func (f *fakeTransport) Send(fr *Frame) error { f.ib.Deliver(fr); return nil }
func (f *fakeTransport) Close() error         { return nil }
