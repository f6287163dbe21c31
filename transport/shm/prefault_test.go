//go:build linux

package shm

import (
	"errors"
	"os"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// resident reports, for each page of b (which starts on a page), whether
// it is in memory (mincore).
func resident(t *testing.T, b []byte) []bool {
	t.Helper()
	vec := make([]byte, (len(b)+pageSize-1)/pageSize)
	if _, _, e := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), uintptr(unsafe.Pointer(&vec[0]))); e != 0 {
		t.Fatalf("mincore: %v", e)
	}
	in := make([]bool, len(vec))
	for i, v := range vec {
		in[i] = v&1 != 0
	}
	return in
}

// TestPrefaultRing: every page of a ring's block is in memory after
// prefaultRing, though the block does not start on a page (an unaligned
// start once made madvise refuse it, EINVAL, and nothing was mapped).
func TestPrefaultRing(t *testing.T) {
	const ring = 1 << 20
	// In /dev/shm, where segments live: on ext4 mincore showed a fresh
	// file's pages all in memory.
	dir, err := os.MkdirTemp("/dev/shm", "shmtest-prefault-")
	if err != nil {
		t.Skipf("no /dev/shm: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	s, err := createSegment(dir+"/seg", 3, ring, segmentFlags{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	i := 1
	b := s.ringBase(i)
	if b%pageSize == 0 {
		t.Fatalf("ring %d starts on a page (%d): the test needs an unaligned one", i, b)
	}
	start, end := b&^(pageSize-1), b+ringBlock(ring)
	absent := 0
	for _, in := range resident(t, s.mem[start:end]) {
		if !in {
			absent++
		}
	}
	if absent == 0 {
		// Writing the segment's header can bring neighbouring pages in
		// (large folios), but not a megabyte of them.
		t.Fatal("every page of a fresh segment's ring is in memory before prefaulting")
	}
	if err := unix.Madvise(s.mem[:pageSize], unix.MADV_POPULATE_WRITE); errors.Is(err, unix.EINVAL) {
		t.Skipf("MADV_POPULATE_WRITE refused on the segment's first page (%v): a kernel before 5.14", err)
	}
	if err := s.prefaultRing(i); err != nil {
		t.Fatal(err)
	}
	for p, in := range resident(t, s.mem[start:end]) {
		if !in {
			t.Errorf("page %d of %d of ring %d is not in memory after prefaultRing", p, (end-start+pageSize-1)/pageSize, i)
		}
	}
}
