//go:build linux

package shm

import (
	"math/bits"
	"sync"

	"github.com/gompi/gompi/transport"
)

// Received payloads come from the frame's own pools up to their largest
// class, and above it from these pools, given back when the receiving engine
// frees (releases) the frame: fresh buffers of several megabytes would cost
// a page fault per 4 KiB on every message.
const (
	poolMinShift = 20 // transport.Frame pools payloads up to 1 MiB
	poolMaxShift = 30
)

// allocPayload gives f a payload buffer of n bytes.
func allocPayload(f *transport.Frame, n int) []byte {
	if n <= 1<<poolMinShift {
		return f.AllocPayload(n)
	}
	buf, recycle := getBuf(n)
	f.Payload = buf
	if recycle != nil {
		f.Borrow(recycle)
	}
	return buf
}

var pools [poolMaxShift + 1]sync.Pool

// getBuf returns a buffer of length n and the function that recycles it, or
// nil when n is not pooled.
func getBuf(n int) ([]byte, func()) {
	if n <= 1<<poolMinShift || n > 1<<poolMaxShift {
		return make([]byte, n), nil
	}
	shift := bits.Len(uint(n - 1))
	p := &pools[shift]
	bp, _ := p.Get().(*[]byte)
	if bp == nil {
		b := make([]byte, 1<<shift)
		bp = &b
	}
	return (*bp)[:n], func() { p.Put(bp) }
}
