package mpi

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A virtual world's ranks are goroutines whose stacks and state are small
// objects spread over the heap, a few KB a rank: a million ranks touch a
// million fresh pages. Where the host's transparent huge pages are used
// only for memory a program advises (the usual default), each 4 KiB page
// is faulted in on its own and takes a TLB entry of its own, which on a
// virtual machine is much of a large run's time (docs/model.md, "Huge
// pages"). The Go runtime maps its heap as it grows and advises nothing,
// so prepareVirtualHeap grows the heap once by what the ranks will need,
// advises huge pages for it and frees it again: the runtime keeps the
// mapping (it returns free memory with MADV_DONTNEED, which keeps the
// advice) and places the ranks' stacks and objects there, lowest
// addresses first, so they come in 2 MiB faults.

// virtualRankHeap is what prepareVirtualHeap sets aside per hosted rank:
// about what a rank parked in a collective holds (a 2 KiB stack and its
// state); what a program holds beyond it comes from the heap's ordinary
// growth.
const virtualRankHeap = 4 << 10

// minVirtualHeap is the least prepareVirtualHeap sets aside: in a world
// of a few thousand ranks, the program's own buffers come in huge pages
// too, for an amount of memory no host running it misses.
const minVirtualHeap = 64 << 20

// minVirtualHeapRanks is the fewest ranks a process hosts for
// prepareVirtualHeap to act: fewer are stand-ins for real processes (a
// prediction of -virtual 2 against a real run, docs/accuracy.md), whose
// memory should be the real processes'.
const minVirtualHeapRanks = 256

// prepareVirtualHeap readies the heap for a process hosting the given
// number of virtual ranks (above). It does nothing for fewer than
// minVirtualHeapRanks, or where it would gain nothing or cost memory: huge
// pages not in "madvise" mode (with "always" every mapping gets them, with
// "never" none does), GODEBUG=disablethp=1, or strict overcommit, where
// even untouched heap counts against the host's limit. It sets aside at
// most a quarter of the host's memory.
func prepareVirtualHeap(ranks int) {
	if ranks < minVirtualHeapRanks || unsafe.Sizeof(uintptr(0)) < 8 ||
		!thpAdvised() || strictOvercommit() || thpDisabledByGODEBUG(os.Getenv("GODEBUG")) {
		return
	}
	huge := hugePageSize()
	if huge == 0 {
		return
	}
	n := max(uint64(ranks)*virtualRankHeap, minVirtualHeap)
	var si unix.Sysinfo_t
	if unix.Sysinfo(&si) == nil {
		n = min(n, uint64(si.Totalram)*uint64(si.Unit)/4)
	}
	adviseHugeHeap(uintptr(n), uintptr(huge))
	runtime.GC() // frees what adviseHugeHeap allocated
}

// adviseHugeHeap allocates n bytes (plus a huge page of the given size,
// a power of two, for alignment) without touching them and advises huge
// pages for the huge pages within; the allocation is garbage once it
// returns. Where the kernel refuses the advice, the heap is as it would
// have been.
//
//go:noinline
func adviseHugeHeap(n, huge uintptr) {
	b := make([]byte, n+huge) // fresh from the kernel: not zeroed, not touched
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	beg := (p + huge - 1) &^ (huge - 1)
	end := (p + uintptr(len(b))) &^ (huge - 1)
	_ = unix.Madvise(b[beg-p:end-p], unix.MADV_HUGEPAGE)
}

// hugePageSize returns the size of the kernel's transparent huge pages
// (2 MiB with 4 KiB base pages), or 0 where it cannot tell.
func hugePageSize() uint64 {
	b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size")
	if err != nil {
		return 0
	}
	n, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	if err != nil || n&(n-1) != 0 {
		return 0
	}
	return n
}

// thpAdvised reports whether the kernel's transparent huge pages are in
// "madvise" mode.
func thpAdvised() bool {
	b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	return err == nil && thpMode(string(b)) == "madvise"
}

// thpMode returns the selected word of a sysfs choice such as
// "always [madvise] never", or "" if none is selected.
func thpMode(s string) string {
	for _, w := range strings.Fields(s) {
		if len(w) > 2 && w[0] == '[' && w[len(w)-1] == ']' {
			return w[1 : len(w)-1]
		}
	}
	return ""
}

// strictOvercommit reports whether the kernel refuses to overcommit
// memory (vm.overcommit_memory = 2).
func strictOvercommit() bool {
	b, err := os.ReadFile("/proc/sys/vm/overcommit_memory")
	return err == nil && strings.TrimSpace(string(b)) == "2"
}

// thpDisabledByGODEBUG reports whether a GODEBUG value asks the runtime
// not to use huge pages for its heap (disablethp=1; the last setting
// wins, as in the runtime).
func thpDisabledByGODEBUG(godebug string) bool {
	off := false
	for _, kv := range strings.Split(godebug, ",") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(kv), "disablethp="); ok {
			off = v == "1"
		}
	}
	return off
}
