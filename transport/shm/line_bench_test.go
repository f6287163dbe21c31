//go:build linux

package shm

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// lineChildEnv selects the role of BenchmarkLineRoundTrip's child: "FILE N".
const lineChildEnv = "GOMPI_SHM_TEST_LINE"

// BenchmarkLineRoundTrip is the floor under BenchmarkPingPong: two
// processes bounce a counter between two cache lines of a shared mapping,
// each spinning on its own line and answering on the other's, with
// nothing else. Its one-way time is what one cache line costs to cross
// between the two processors; the ping-pong's 8-byte one-way time less
// this floor is the transport's own. On a VM the floor moves with where
// the host places the two vCPUs, so compare figures from the same run.
//
//	go test -run '^$' -bench LineRoundTrip ./transport/shm
func BenchmarkLineRoundTrip(b *testing.B) {
	path := filepath.Join(b.TempDir(), "lines")
	if err := os.WriteFile(path, make([]byte, 4096), 0o600); err != nil {
		b.Fatal(err)
	}
	ping, pong, unmap, err := mapLines(path)
	if err != nil {
		b.Fatal(err)
	}
	defer unmap()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), lineChildEnv+"="+path+" "+strconv.Itoa(b.N))
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	rtts := make([]time.Duration, 0, b.N/100+1)
	b.ResetTimer()
	t0 := time.Now()
	for i := uint64(1); i <= uint64(b.N); i++ {
		ping.Store(i)
		for spins := 0; pong.Load() != i; spins++ {
			if spins&(1<<20-1) == 0 && len(exited) > 0 {
				b.Fatal("line child exited early")
			}
		}
		if i%100 == 0 {
			rtts = append(rtts, time.Since(t0))
			t0 = time.Now()
		}
	}
	b.StopTimer()
	select {
	case err := <-exited:
		if err != nil {
			b.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		b.Fatal("line child did not exit")
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(2*b.N)*1e6, "us/one-way")
	if len(rtts) > 0 {
		slices.Sort(rtts)
		b.ReportMetric(rtts[len(rtts)/2].Seconds()/200*1e6, "us/one-way-median")
	}
}

// lineChild answers n round trips of BenchmarkLineRoundTrip; it gives up
// after 10 s without a ping (the parent is gone).
func lineChild(role string) error {
	i := strings.LastIndexByte(role, ' ')
	if i < 0 {
		return fmt.Errorf("bad %s=%q", lineChildEnv, role)
	}
	path := role[:i]
	n, err := strconv.ParseUint(role[i+1:], 10, 64)
	if err != nil {
		return err
	}
	ping, pong, unmap, err := mapLines(path)
	if err != nil {
		return err
	}
	defer unmap()
	for i := uint64(1); i <= n; i++ {
		start := time.Now()
		for spins := 0; ping.Load() != i; spins++ {
			if spins&(1<<20-1) == 0 && time.Since(start) > 10*time.Second {
				return os.ErrDeadlineExceeded
			}
		}
		pong.Store(i)
	}
	return nil
}

// mapLines maps the file's first page and returns two counters 128 bytes
// apart (different cache lines, and not adjacent ones that a prefetcher
// pairs).
func mapLines(path string) (ping, pong *atomic.Uint64, unmap func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, nil, nil, err
	}
	defer f.Close()
	mem, err := unix.Mmap(int(f.Fd()), 0, 4096, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return nil, nil, nil, err
	}
	return (*atomic.Uint64)(unsafe.Pointer(&mem[0])), (*atomic.Uint64)(unsafe.Pointer(&mem[128])),
		func() { unix.Munmap(mem) }, nil
}
