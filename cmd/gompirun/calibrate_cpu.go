package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/gompi/gompi/vtime"
)

// Computation contention: the thread CPU time (what -virtual measures) of
// a fixed amount of work run by one goroutine alone, then by k at once,
// each locked to its OS thread, for a compute-bound kernel (NPB EP's
// loop: random numbers, sqrt and log) and a memory-bound one (STREAM's
// triad over arrays much larger than the last-level cache).

// contentionWork sizes the kernels: EP pairs per run, triad passes, and
// repetitions (the median is kept).
type contentionWork struct {
	pairs, passes, reps int
	triadBytes          int64 // per goroutine, all three arrays; 0: from the cache size
}

var (
	fullContention  = contentionWork{pairs: 10_000_000, passes: 4, reps: 5}
	quickContention = contentionWork{pairs: 100_000, passes: 1, reps: 1, triadBytes: 6 << 20}
)

// measureContention measures k = 1, 2, 4, ... and cores (vtime
// interpolates between them).
func measureContention(cores int, quick bool) ([]vtime.ContentionSample, error) {
	work := fullContention
	if quick {
		work = quickContention
	}
	var ks []int
	for k := 1; k < cores; k *= 2 {
		ks = append(ks, k)
	}
	ks = append(ks, cores)
	cpu, err := vtime.NewThreadCPU(cores)
	if err != nil {
		return nil, fmt.Errorf("measuring thread CPU time: %v", err)
	}
	if work.triadBytes == 0 {
		llc := lastLevelCache()
		// STREAM asks for 4 x the cache per array. A large cache (or a VM
		// that reports its host's) gets 512 MiB, and all goroutines'
		// arrays together at most a quarter of the memory.
		work.triadBytes = min(12*llc, 512<<20, memoryBytes()/4/int64(cores))
		fmt.Fprintf(os.Stderr, "gompirun -calibrate: contention over k = %v goroutines; triad over %d MiB per goroutine (last-level cache %d MiB)\n",
			ks, work.triadBytes>>20, llc>>20)
	}
	n := int(work.triadBytes / 24)
	triads := make([]triad, cores)
	for i := range triads {
		triads[i] = newTriad(n)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(cores, runtime.GOMAXPROCS(0))))
	var out []vtime.ContentionSample
	for _, k := range ks {
		s := vtime.ContentionSample{K: k}
		s.Compute = medianOf(work.reps, func() float64 {
			return atOnce(cpu, k, func(int) { epKernel(work.pairs) })
		})
		s.Memory = medianOf(work.reps, func() float64 {
			return atOnce(cpu, k, func(i int) { triads[i].run(work.passes) })
		})
		out = append(out, s)
	}
	return out, nil
}

func medianOf(n int, f func() float64) float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = f()
	}
	return median(x)
}

// atOnce runs work(i) in k goroutines started together, each locked to its
// thread, and returns their mean thread CPU time in seconds.
func atOnce(cpu *vtime.ThreadCPU, k int, work func(i int)) float64 {
	start := make(chan struct{})
	times := make([]float64, k)
	var wg sync.WaitGroup
	for i := 0; i < k; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			m := cpu.Meter()
			<-start
			m.Begin()
			work(i)
			times[i] = m.End()
		}()
	}
	close(start)
	wg.Wait()
	var sum float64
	for _, t := range times {
		sum += t
	}
	return sum / float64(k)
}

// epSink keeps the EP kernel's result alive.
var epSink struct {
	mu sync.Mutex
	v  float64
}

// epKernel is NPB EP's inner loop: pairs of uniform numbers from a linear
// congruential generator, accepted in the unit disc and turned into
// Gaussian deviates.
func epKernel(pairs int) {
	x := uint64(271828183)
	next := func() float64 {
		x = x*6364136223846793005 + 1442695040888963407
		return 2*float64(x>>11)/(1<<53) - 1
	}
	var sum float64
	for i := 0; i < pairs; i++ {
		u, v := next(), next()
		if t := u*u + v*v; t > 0 && t <= 1 {
			sum += u * math.Sqrt(-2*math.Log(t)/t)
		}
	}
	epSink.mu.Lock()
	epSink.v += sum
	epSink.mu.Unlock()
}

// triad is one goroutine's STREAM arrays, touched once so that page faults
// are not measured.
type triad struct{ a, b, c []float64 }

func newTriad(n int) triad {
	t := triad{make([]float64, n), make([]float64, n), make([]float64, n)}
	for i := range n {
		t.a[i], t.b[i], t.c[i] = 0, 1, 2
	}
	return t
}

func (t triad) run(passes int) {
	const q = 3.0
	a, b, c := t.a, t.b, t.c[:len(t.a)]
	for p := 0; p < passes; p++ {
		for i := range a {
			a[i] = b[i] + q*c[i]
		}
	}
}

// memoryBytes is the machine's memory (1 GiB when it cannot be read).
func memoryBytes() int64 {
	var si syscall.Sysinfo_t
	if err := syscall.Sysinfo(&si); err != nil || si.Totalram == 0 {
		return 1 << 30
	}
	return int64(si.Totalram) * int64(si.Unit)
}

// lastLevelCache is the size of CPU 0's outermost cache in bytes (32 MiB
// when the system does not say).
func lastLevelCache() int64 {
	best, size := 0, int64(32<<20)
	dirs, _ := filepath.Glob("/sys/devices/system/cpu/cpu0/cache/index*")
	for _, d := range dirs {
		lv, err1 := os.ReadFile(filepath.Join(d, "level"))
		sz, err2 := os.ReadFile(filepath.Join(d, "size"))
		level, err3 := strconv.Atoi(strings.TrimSpace(string(lv)))
		if err1 != nil || err2 != nil || err3 != nil || level <= best {
			continue
		}
		s := strings.TrimSpace(string(sz))
		mult := int64(1)
		switch {
		case strings.HasSuffix(s, "K"):
			mult, s = 1<<10, strings.TrimSuffix(s, "K")
		case strings.HasSuffix(s, "M"):
			mult, s = 1<<20, strings.TrimSuffix(s, "M")
		}
		if v, err := strconv.ParseInt(s, 10, 64); err == nil && v > 0 {
			best, size = level, v*mult
		}
	}
	return size
}
