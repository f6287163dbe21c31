package tcp

import (
	"bytes"
	"testing"

	"github.com/gompi/gompi/transport"
)

// TestRendezvousDataLandsInTheReceiveBuffer: a large rendezvous DATA whose
// receive registered its buffer (Inbox.ExpectPayload) is read straight
// into that buffer, kept whole when it fits and cut to the buffer when it
// does not, and the frames after it on the connection still arrive
// intact. A payload read into an allocation of the reader's own would
// leave the registered buffer untouched.
func TestRendezvousDataLandsInTheReceiveBuffer(t *testing.T) {
	a, _, ib := pair(t, make(chan error, 1))
	const size = 3<<20 + 5
	cases := []struct {
		name string
		buf  int // receive buffer length
	}{
		{"fits", size},
		{"larger buffer", size + 100},
		{"truncated", 1 << 20},
		{"truncated to nothing", 0},
	}
	for i, c := range cases {
		recv := make([]byte, c.buf)
		id := uint64(100 + i)
		ib[2].ExpectPayload(id, recv)
		payload := bytes.Repeat([]byte{byte(i + 1), 7, 9}, size/3+1)[:size]
		f := transport.NewFrame()
		f.Header = transport.Header{Kind: transport.Data, Flags: transport.FlagRendezvous,
			Src: 0, Dst: 2, RecvID: id, Size: size}
		f.Payload = payload
		if err := a.Send(f); err != nil {
			t.Fatal(err)
		}
		sendTagged(t, a, 0, 2, i) // a small frame right behind it
		g := next(t, ib[2])
		want := min(c.buf, size)
		if g.Size != size || len(g.Payload) != want {
			t.Fatalf("%s: frame of size %d with %d payload bytes, want %d and %d", c.name, g.Size, len(g.Payload), size, want)
		}
		if want > 0 && &g.Payload[0] != &recv[0] {
			t.Fatalf("%s: payload not read into the registered buffer", c.name)
		}
		if !bytes.Equal(recv[:want], payload[:want]) {
			t.Fatalf("%s: wrong bytes in the receive buffer", c.name)
		}
		if n, err := g.ReadPayload(recv); n != want || err != nil {
			t.Fatalf("%s: ReadPayload into the buffer it landed in: %d, %v", c.name, n, err)
		}
		g.Free()
		if h := next(t, ib[2]); h.Tag != int32(i) || h.Payload[0] != byte(i) {
			t.Fatalf("%s: the frame behind it arrived as %v", c.name, h)
		}
		if _, ok := ib[2].TakePayloadDest(id); ok {
			t.Fatalf("%s: registration left behind", c.name)
		}
	}
}
