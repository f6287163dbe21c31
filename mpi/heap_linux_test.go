package mpi

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/gompi/gompi/vtime"
)

// heapTestChild marks the process TestVirtualHeapHugePages runs itself in.
const heapTestChild = "MPI_HEAP_TEST_CHILD"

// TestVirtualHeapHugePages: a virtual world's ranks (their engine state
// and their goroutines' stacks) lie in memory advised for huge pages
// (heap_linux.go, prepareVirtualHeap), where the host's transparent huge
// pages are in "madvise" mode. It fails with prepareVirtualHeap doing
// nothing: the runtime advises none of its heap. It runs in a process of
// its own, as a virtual world does: in this one, what earlier tests freed
// is lower in the heap and takes the ranks' first objects.
func TestVirtualHeapHugePages(t *testing.T) {
	if !thpAdvised() || strictOvercommit() || thpDisabledByGODEBUG(os.Getenv("GODEBUG")) {
		t.Skip("the host's transparent huge pages are not in madvise mode, or memory is not overcommitted")
	}
	if testing.Short() {
		t.Skip("builds a world of 16384 ranks")
	}
	if raceSlowdown > 1 {
		t.Skip("the race detector's build has deeper stacks than prepareVirtualHeap sets aside for")
	}
	if os.Getenv(heapTestChild) == "" {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestVirtualHeapHugePages$", "-test.v", "-test.count=1")
		cmd.Env = append(os.Environ(), heapTestChild+"=1")
		out, err := cmd.CombinedOutput()
		t.Logf("in a process of its own:\n%s", out)
		if err != nil || !strings.Contains(string(out), "--- PASS: TestVirtualHeapHugePages") {
			t.Fatalf("in a process of its own: %v", err)
		}
		return
	}
	const n = 16384
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
	for what, addrs := range map[string][]uintptr{"rank states": ranks, "stacks": stacks} {
		in := 0
		for _, a := range addrs {
			for _, r := range advised {
				if a >= r[0] && a < r[1] {
					in++
					break
				}
			}
		}
		t.Logf("%d of %d ranks' %s in memory advised for huge pages", in, n, what)
		if in < n*9/10 {
			t.Errorf("%d of %d ranks' %s in memory advised for huge pages, want at least 90%%", in, n, what)
		}
	}
}

// hugePageAdvised returns the address ranges of this process's mappings
// with MADV_HUGEPAGE set ("hg" among the VmFlags of /proc/self/smaps).
func hugePageAdvised(t *testing.T) [][2]uintptr {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skip(err)
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
