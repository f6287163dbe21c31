package vtime

import (
	"testing"
	"unsafe"
)

// TestRankSize: a rank's clock is one object of Go's 176-byte size class,
// which a virtual run of a million ranks holds a million times
// (docs/model.md, "What a virtual rank's bytes are"); a clock that
// measures computation has a second (measuredCPU).
func TestRankSize(t *testing.T) {
	if n := unsafe.Sizeof(Rank{}); n > 176 {
		t.Errorf("a Rank is %d bytes, want at most 176", n)
	}
}
