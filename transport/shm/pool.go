//go:build linux

package shm

import (
	"math/bits"
	"sync"
)

// Large received payloads come from a pool and go back to it when the
// receiving engine releases the frame: fresh megabyte buffers would cost a
// page fault per 4 KiB on every message.
const (
	poolMinShift = 16 // 64 KiB; smaller payloads are plain allocations
	poolMaxShift = 30
)

var pools [poolMaxShift + 1]sync.Pool

// getBuf returns a buffer of length n and the function that recycles it, or
// nil when n is not pooled.
func getBuf(n int) ([]byte, func()) {
	if n < 1<<poolMinShift || n > 1<<poolMaxShift {
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
