package transport

import (
	"errors"
	"testing"
)

// A fetched payload is read on demand into the receiver's buffer, clipped
// to the frame's size and to the buffer; its error reaches the caller; Free
// forgets the fetch so a recycled frame reads its own payload again.
func TestReadPayloadFetch(t *testing.T) {
	f := NewFrame()
	f.Size = 5
	var asked int
	f.SetFetch(func(dst []byte) (int, error) {
		asked = len(dst)
		return copy(dst, "hello"), nil
	})
	buf := make([]byte, 8)
	if n, err := f.ReadPayload(buf); err != nil || n != 5 || string(buf[:n]) != "hello" || asked != 5 {
		t.Fatalf("ReadPayload = %d, %v, %q; fetch asked for %d", n, err, buf[:n], asked)
	}
	if n, _ := f.ReadPayload(buf[:3]); n != 3 || asked != 3 {
		t.Fatalf("truncated ReadPayload = %d, fetch asked for %d", n, asked)
	}
	boom := errors.New("boom")
	f.SetFetch(func([]byte) (int, error) { return 0, boom })
	if _, err := f.ReadPayload(buf); !errors.Is(err, boom) {
		t.Fatalf("fetch error lost: %v", err)
	}
	f.Free()
	g := NewFrame()
	g.CopyPayload([]byte("abc"))
	g.Size = 3
	if n, err := g.ReadPayload(buf); err != nil || string(buf[:n]) != "abc" {
		t.Fatalf("plain ReadPayload = %q, %v", buf[:n], err)
	}
}

// Own copies a borrowed or fetched payload into the frame and releases the
// sender's buffer once; a frame that owns its payload is left alone, and a
// failed fetch leaves the frame as it was.
func TestFrameOwn(t *testing.T) {
	src := []byte("borrowed payload that is longer than the inline store of a frame, 80 bytes")
	f := NewFrame()
	f.Size = int64(len(src))
	f.Payload = src
	released := 0
	f.Borrow(func() { released++ })
	if err := f.Own(); err != nil || released != 1 || f.Borrowed() {
		t.Fatalf("Own of a borrowed payload: err %v, released %d times, still borrowed %v", err, released, f.Borrowed())
	}
	src[0] = 'X' // the sender reuses its buffer
	buf := make([]byte, len(src))
	if n, _ := f.ReadPayload(buf); string(buf[:n]) != "borrowed payload that is longer than the inline store of a frame, 80 bytes" {
		t.Fatalf("owned payload reads %q", buf[:n])
	}
	if err := f.Own(); err != nil || released != 1 {
		t.Fatalf("second Own: err %v, released %d times", err, released)
	}
	f.Free()

	g := NewFrame()
	g.Size = 5
	done := 0
	g.SetFetch(func(dst []byte) (int, error) { return copy(dst, "hello"), nil })
	g.Borrow(func() { done++ })
	if err := g.Own(); err != nil || done != 1 {
		t.Fatalf("Own of a fetched payload: err %v, completions %d", err, done)
	}
	if n, _ := g.ReadPayload(buf); string(buf[:n]) != "hello" {
		t.Fatalf("fetched then owned payload reads %q", buf[:n])
	}
	g.Free()

	h := NewFrame()
	h.Size = 5
	boom := errors.New("boom")
	h.SetFetch(func([]byte) (int, error) { return 0, boom })
	h.Borrow(func() { done++ })
	if err := h.Own(); !errors.Is(err, boom) || done != 1 || !h.Borrowed() {
		t.Fatalf("failed fetch: err %v, completions %d, borrowed %v", err, done, h.Borrowed())
	}
	if _, err := h.ReadPayload(buf); !errors.Is(err, boom) {
		t.Fatalf("after a failed Own the fetch is gone: %v", err)
	}
	h.Free()
}
