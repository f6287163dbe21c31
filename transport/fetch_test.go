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
