package tcp

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gompi/gompi/transport"
)

// pair makes two transports standing for processes 0 (rank 0) and 1
// (ranks 1, 2), wired to each other.
func pair(t testing.TB, errs chan error) (a, b *Transport, ib [3]*transport.Inbox) {
	t.Helper()
	for i := range ib {
		ib[i] = transport.NewInbox()
	}
	onErr := func(err error) { errs <- err }
	var err error
	a, err = Listen(Config{Token: "secret", Proc: 0, Base: 0, Inboxes: ib[:1], OnError: onErr})
	if err != nil {
		t.Fatal(err)
	}
	b, err = Listen(Config{Token: "secret", Proc: 1, Base: 1, Inboxes: ib[1:], OnError: onErr})
	if err != nil {
		t.Fatal(err)
	}
	peers := []Peer{{Addr: a.Addr(), Base: 0, N: 1}, {Addr: b.Addr(), Base: 1, N: 2}}
	a.SetPeers(peers)
	b.SetPeers(peers)
	t.Cleanup(func() { a.Close(); b.Close() })
	return a, b, ib
}

// next waits (bounded) for a frame in ib.
func next(t *testing.T, ib *transport.Inbox) *transport.Frame {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if f := ib.Next(); f != nil {
			return f
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatal("no frame arrived within 5s")
	return nil
}

func TestFramesArriveInOrderWithPayloads(t *testing.T) {
	a, b, ib := pair(t, make(chan error, 1))
	sizes := []int{0, 1, 64, 65, 4096, 5 << 20}
	for i, n := range sizes {
		f := transport.NewFrame()
		f.Header = transport.Header{Kind: transport.Data, Src: 0, Dst: 2, Tag: int32(i), Size: int64(n)}
		f.Payload = bytes.Repeat([]byte{byte(i + 1)}, n)
		released := false
		if n > 0 {
			f.Borrow(func() { released = true })
		}
		if err := a.Send(f); err != nil {
			t.Fatal(err)
		}
		if n > 0 && !released {
			t.Fatalf("size %d: borrowed payload not released after Send", n)
		}
	}
	for i, n := range sizes {
		f := next(t, ib[2])
		if int(f.Tag) != i || len(f.Payload) != n || (n > 0 && f.Payload[n-1] != byte(i+1)) {
			t.Fatalf("frame %d: got tag %d with %d bytes", i, f.Tag, len(f.Payload))
		}
	}
	// REQ carries a size but no payload; the reverse direction works too.
	f := transport.NewFrame()
	f.Header = transport.Header{Kind: transport.Req, Src: 1, Dst: 0, Size: 1 << 30}
	if err := b.Send(f); err != nil {
		t.Fatal(err)
	}
	if g := next(t, ib[0]); g.Kind != transport.Req || g.Size != 1<<30 || len(g.Payload) != 0 {
		t.Fatalf("got %v", g)
	}
}

// TestSendCopiesPayload: the transport.SendCopier promise. A frame's
// payload, overwritten as soon as Send returns, arrives as it was, small
// (copied with the header) or large (written from the frame).
func TestSendCopiesPayload(t *testing.T) {
	a, _, ib := pair(t, make(chan error, 1))
	if !a.CopiesOnSend(1) || !a.CopiesOnSend(2) || a.CopiesOnSend(0) || a.CopiesOnSend(3) {
		t.Fatal("CopiesOnSend: want true for ranks 1 and 2 only")
	}
	sizes := []int{100, 1 << 20}
	for i, n := range sizes {
		buf := bytes.Repeat([]byte{byte(i + 1)}, n)
		f := transport.NewFrame()
		f.Header = transport.Header{Kind: transport.Data, Src: 0, Dst: 2, Tag: int32(i), Size: int64(n)}
		f.Payload = buf
		if err := a.Send(f); err != nil {
			t.Fatal(err)
		}
		clear(buf)
	}
	for i, n := range sizes {
		f := next(t, ib[2])
		if int(f.Tag) != i || !bytes.Equal(f.Payload, bytes.Repeat([]byte{byte(i + 1)}, n)) {
			t.Fatalf("frame %d: tag %d, %d bytes, not the payload sent", i, f.Tag, len(f.Payload))
		}
	}
}

func TestSendToUnknownRankFails(t *testing.T) {
	a, _, _ := pair(t, make(chan error, 1))
	f := transport.NewFrame()
	f.Header = transport.Header{Kind: transport.Data, Src: 0, Dst: 9}
	var ue *transport.UnreachableError
	if err := a.Send(f); !errors.As(err, &ue) {
		t.Fatalf("send to rank 9: got %v, want UnreachableError", err)
	}
}

// hello builds a handshake with the given token.
func hello(token string, proc uint32) []byte {
	b := []byte(magic)
	b = binary.LittleEndian.AppendUint16(b, uint16(len(token)))
	b = append(b, token...)
	return binary.LittleEndian.AppendUint32(b, proc)
}

func TestConnectionWithoutTokenIsRejected(t *testing.T) {
	a, _, ib := pair(t, make(chan error, 1))
	for _, h := range [][]byte{hello("wrong!", 1), []byte("GET / HTTP/1.0\r\n\r\n"), {}} {
		c, err := net.Dial("tcp", a.Addr())
		if err != nil {
			t.Fatal(err)
		}
		c.Write(h)
		if len(h) == 0 {
			c.(*net.TCPConn).CloseWrite()
		}
		// Then a well-formed frame, which must never be delivered.
		var hdr [transport.HeaderSize]byte
		transport.EncodeHeader(hdr[:], &transport.Header{Kind: transport.Data, Src: 1, Dst: 0})
		c.Write(hdr[:])
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		// Closed by the server: end of stream, or a reset when it closed
		// with our frame unread.
		if _, err := io.ReadAll(c); err != nil && !errors.Is(err, syscall.ECONNRESET) {
			t.Fatalf("handshake %q: connection not closed by the server: %v", h, err)
		}
		c.Close()
	}
	if n := a.Rejected(); n != 3 {
		t.Fatalf("rejected %d connections, want 3", n)
	}
	if f := ib[0].Next(); f != nil {
		t.Fatalf("unauthenticated frame delivered: %v", f)
	}
}

func TestMalformedFrameClosesConnectionWithError(t *testing.T) {
	errs := make(chan error, 4)
	a, _, ib := pair(t, errs)
	cases := map[string][]byte{
		"bad kind":    append([]byte{99}, make([]byte, transport.HeaderSize-1)...),
		"misrouted":   encode(transport.Header{Kind: transport.Data, Src: 0, Dst: 0}),
		"cut payload": append(encode(transport.Header{Kind: transport.Data, Src: 1, Dst: 0, Size: 100}), 1, 2, 3),
	}
	for name, frame := range cases {
		c, err := net.Dial("tcp", a.Addr())
		if err != nil {
			t.Fatal(err)
		}
		c.Write(hello("secret", 1))
		var ok [1]byte
		if _, err := io.ReadFull(c, ok[:]); err != nil || ok[0] != 1 {
			t.Fatalf("%s: handshake with the right token failed: %v", name, err)
		}
		c.Write(frame)
		c.(*net.TCPConn).CloseWrite()
		select {
		case err := <-errs:
			if !strings.Contains(err.Error(), "process 1") {
				t.Errorf("%s: error %q does not name the peer", name, err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: no error reported", name)
		}
		c.Close()
	}
	if f := ib[0].Next(); f != nil {
		t.Fatalf("malformed frame delivered: %v", f)
	}
}

func encode(h transport.Header) []byte {
	b := make([]byte, transport.HeaderSize)
	transport.EncodeHeader(b, &h)
	return b
}

// FuzzReadFrame feeds arbitrary bytes, in small reads, to the connection
// decoder: it must deliver well-formed frames or stop with an error, never
// panic, and never allocate far beyond the input.
func FuzzReadFrame(f *testing.F) {
	f.Add(encode(transport.Header{Kind: transport.Data, Src: 1, Dst: 2, Size: 3}))
	f.Add(append(encode(transport.Header{Kind: transport.Data, Size: 3}), 1, 2, 3))
	f.Add(encode(transport.Header{Kind: transport.Req, Size: 1 << 40}))
	f.Add(encode(transport.Header{Kind: transport.Data, Size: 1 << 39}))
	f.Add([]byte{1, 0, 0})
	// A frame between the harness's old 1 KiB buffer and smallFrame: it is
	// assembled in the connection buffer, which must hold it whole.
	f.Add(append(encode(transport.Header{Kind: transport.Data, Src: 0, Dst: 1, Size: 2000}), make([]byte, 2000)...))
	f.Fuzz(func(t *testing.T, data []byte) {
		ib := []*transport.Inbox{transport.NewInbox(), transport.NewInbox()}
		tr := &Transport{cfg: Config{Inboxes: ib}}
		// The buffer newInConn gives a real connection: frames up to
		// smallFrame are assembled in it, so a smaller one would stall on
		// a well-formed frame and read as a decoder that never ends.
		ic := &inConn{t: tr, peer: Peer{Base: 0, N: 1 << 30}, buf: make([]byte, 256<<10)}
		src := bytes.NewReader(data)
		ic.read = func(p []byte) (int, error) { return src.Read(p[:min(len(p), 7)]) }
		// A read shorter than asked makes drain stop at a frame boundary
		// (the socket looked empty); call it again as the poller would.
		_, err := ic.drain()
		for i := 0; err == nil && i <= len(data); i++ {
			_, err = ic.drain()
		}
		if err == nil {
			t.Fatal("drain ended without an error at the end of the input")
		}
		for _, b := range ib {
			for fr := b.Next(); fr != nil; fr = b.Next() {
				if int64(len(fr.Payload)) != fr.PayloadLen() {
					t.Fatalf("payload %d bytes, header says %d", len(fr.Payload), fr.PayloadLen())
				}
				fr.Free()
			}
		}
	})
}

// TestSendToDeadPeerFails: once the peer process is gone, sends fail with
// an error naming it instead of blocking.
func TestSendToDeadPeerFails(t *testing.T) {
	a, b, _ := pair(t, make(chan error, 4))
	send := func() error {
		f := transport.NewFrame()
		f.Header = transport.Header{Kind: transport.Data, Src: 0, Dst: 1, Size: 1024}
		f.Payload = make([]byte, 1024)
		return a.Send(f)
	}
	if err := send(); err != nil {
		t.Fatal(err)
	}
	b.Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		err := send()
		if err != nil {
			if !strings.Contains(err.Error(), "process 1") {
				t.Fatalf("error %q does not name the peer", err)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("sends to a closed peer still succeed after 5s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}
