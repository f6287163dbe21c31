//go:build linux

package shm

import (
	"sync/atomic"
	"testing"
)

// TestReleaseStores: releaseBool and releaseUint64 (assembly on amd64)
// store the whole word, and nothing beside it.
func TestReleaseStores(t *testing.T) {
	var s struct {
		before uint64
		b      atomic.Bool
		mid    uint32
		w      atomic.Uint64
		after  uint64
	}
	const guard = 0xa5a5a5a5a5a5a5a5
	s.before, s.mid, s.after = guard, 0xa5a5a5a5, guard
	for _, v := range []bool{true, false, true} {
		releaseBool(&s.b, v)
		if s.b.Load() != v {
			t.Fatalf("releaseBool(%v): reads %v", v, s.b.Load())
		}
	}
	for _, v := range []uint64{1, 1<<63 | 1<<32 | 7, 0} {
		releaseUint64(&s.w, v)
		if got := s.w.Load(); got != v {
			t.Fatalf("releaseUint64(%#x): reads %#x", v, got)
		}
	}
	if s.before != guard || s.mid != 0xa5a5a5a5 || s.after != guard {
		t.Fatalf("a release store wrote beside its word: %#x %#x %#x", s.before, s.mid, s.after)
	}
}
