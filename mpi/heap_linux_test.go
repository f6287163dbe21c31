package mpi

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/gompi/gompi/vtime"
)

// heapTestChild names the variable that marks the process
// TestVirtualHeapHugePages runs itself in; its value is the world's size,
// the least and most ranks whose memory may be advised, and whether
// prepareVirtualHeap is to have advised its heap (1 or 0):
// "N,LEAST,MOST,HEAP".
const heapTestChild = "MPI_HEAP_TEST_CHILD"

// TestVirtualHeapHugePages: a virtual world's ranks (their engine state
// and their goroutines' stacks) lie in memory advised for huge pages
// (heap_linux.go, prepareVirtualHeap), where the host's transparent huge
// pages are in "madvise" mode: at least 90% of them in a world of 16384
// ranks; and that a world of fewer than minVirtualHeapRanks, whose ranks
// stand in for real processes, leaves the heap unadvised (less than
// minVirtualHeap advised in all: the runtime advises some of its own
// metadata). It fails with prepareVirtualHeap doing nothing (the runtime
// advises none of its heap) and with its threshold left out. Each world runs in a process of its own, as a
// virtual world does: in this one, what earlier tests freed is lower in
// the heap and takes the ranks' first objects.
func TestVirtualHeapHugePages(t *testing.T) {
	if !thpAdvised() || strictOvercommit() || thpDisabledByGODEBUG(os.Getenv("GODEBUG")) {
		t.Skip("transparent huge pages not in madvise mode, strict overcommit, or GODEBUG=disablethp=1: prepareVirtualHeap does nothing here")
	}
	if _, err := os.Stat("/proc/self/smaps"); err != nil {
		t.Skip("no /proc/self/smaps to read the mappings' advice from:", err)
	}
	if testing.Short() {
		t.Skip("builds a world of 16384 ranks")
	}
	if raceSlowdown > 1 {
		t.Skip("the race detector's build has deeper stacks than prepareVirtualHeap sets aside for")
	}
	if arg := os.Getenv(heapTestChild); arg != "" {
		var n, least, most, heap int
		if _, err := fmt.Sscanf(arg, "%d,%d,%d,%d", &n, &least, &most, &heap); err != nil {
			t.Fatalf("%s=%q: %v", heapTestChild, arg, err)
		}
		advisedRanks(t, n, least, most, heap == 1)
		return
	}
	for _, tc := range []struct{ n, least, most, heap int }{
		{16384, 16384 * 9 / 10, 16384, 1},
		{minVirtualHeapRanks - 1, 0, minVirtualHeapRanks - 1, 0},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestVirtualHeapHugePages$", "-test.v", "-test.count=1")
		cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d,%d,%d,%d", heapTestChild, tc.n, tc.least, tc.most, tc.heap))
		out, err := cmd.CombinedOutput()
		cancel()
		t.Logf("%d ranks, in a process of its own:\n%s", tc.n, out)
		if err != nil || !strings.Contains(string(out), "--- PASS: TestVirtualHeapHugePages") {
			t.Errorf("%d ranks, in a process of its own: %v", tc.n, err)
		}
	}
}

// advisedRanks runs a virtual world of n ranks and checks that between
// least and most of them have their state, and their stack, in memory
// advised for huge pages, and that at least minVirtualHeap of memory is
// advised in all if heap, less if not.
func advisedRanks(t *testing.T, n, least, most int, heap bool) {
	m, err := vtime.Preset("tianhe1a")
	if err != nil {
		t.Fatal(err)
	}
	v, err := NewVirtual(m, n, 0)
	if err != nil {
		t.Fatal(err)
	}
	ranks := make([]uintptr, n)
	stacks := make([]uintptr, n)
	err = v.Run(func(c *Comm) error {
		var local byte
		ranks[c.Rank()] = uintptr(unsafe.Pointer(c.r))
		stacks[c.Rank()] = uintptr(unsafe.Pointer(&local))
		return c.Barrier()
	})
	if err != nil {
		t.Fatal(err)
	}
	advised := hugePageAdvised(t)
	var bytes uintptr
	for _, r := range advised {
		bytes += r[1] - r[0]
	}
	t.Logf("%d MiB advised for huge pages", bytes>>20)
	if heap != (bytes >= minVirtualHeap) {
		t.Errorf("%d MiB advised for huge pages after a world of %d ranks: prepareVirtualHeap acted: %v, want %v", bytes>>20, n, bytes >= minVirtualHeap, heap)
	}
	for _, set := range []struct {
		what  string
		addrs []uintptr
	}{{"rank states", ranks}, {"stacks", stacks}} {
		in := 0
		for _, a := range set.addrs {
			for _, r := range advised {
				if a >= r[0] && a < r[1] {
					in++
					break
				}
			}
		}
		t.Logf("%d of %d ranks' %s in memory advised for huge pages", in, n, set.what)
		if in < least || in > most {
			t.Errorf("%d of %d ranks' %s in memory advised for huge pages, want %d to %d", in, n, set.what, least, most)
		}
	}
}

// hugePageAdvised returns the address ranges of this process's mappings
// with MADV_HUGEPAGE set ("hg" among the VmFlags of /proc/self/smaps).
func hugePageAdvised(t *testing.T) [][2]uintptr {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out [][2]uintptr
	var cur [2]uintptr
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if flags, ok := strings.CutPrefix(line, "VmFlags:"); ok {
			for _, fl := range strings.Fields(flags) {
				if fl == "hg" {
					out = append(out, cur)
				}
			}
			continue
		}
		span, _, _ := strings.Cut(line, " ")
		lo, hi, ok := strings.Cut(span, "-")
		if !ok {
			continue
		}
		a, err1 := strconv.ParseUint(lo, 16, 64)
		b, err2 := strconv.ParseUint(hi, 16, 64)
		if err1 == nil && err2 == nil {
			cur = [2]uintptr{uintptr(a), uintptr(b)}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestThpMode(t *testing.T) {
	for in, want := range map[string]string{
		"always [madvise] never\n":                   "madvise",
		"[always] madvise never":                     "always",
		"always madvise [never]":                     "never",
		"always defer defer+madvise [madvise] never": "madvise",
		"":                     "",
		"always madvise never": "",
	} {
		if got := thpMode(in); got != want {
			t.Errorf("thpMode(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestThpDisabledByGODEBUG(t *testing.T) {
	for in, want := range map[string]bool{
		"":                          false,
		"disablethp=1":              true,
		"gctrace=1,disablethp=1":    true,
		"disablethp=1,disablethp=0": false,
		"disablethp=0":              false,
		"xdisablethp=1":             false,
	} {
		if got := thpDisabledByGODEBUG(in); got != want {
			t.Errorf("thpDisabledByGODEBUG(%q) = %v, want %v", in, got, want)
		}
	}
}
