package mpi

import (
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/gompi/gompi/internal/launch"
	"github.com/gompi/gompi/vtime"
)

// scriptedMeter charges every burst the same length, whatever the host
// did, and counts the bursts it charged.
type scriptedMeter struct {
	burst  float64
	on     bool
	bursts *int
}

func (m *scriptedMeter) Begin() { m.on = true }
func (m *scriptedMeter) End() float64 {
	if !m.on {
		return 0
	}
	m.on = false
	*m.bursts++
	return m.burst
}
func (m *scriptedMeter) Peek() float64    { return 0 }
func (m *scriptedMeter) Abandon()         { m.on = false }
func (m *scriptedMeter) Running() float64 { return 0 }

// contendedMachine has 4 cores per node whose ranks slow each other by
// S(2) = 1.2, S(3) = S(4) = 1.4.
func contendedMachine() *vtime.Machine {
	m, err := vtime.ParseMachine([]byte(`{"name": "contended", "bmem": 1e10, "cores_per_node": 4,
	  "levels": [{"topology": "star", "bandwidth": 1e9, "l0": 1e-6}], "contention": [1, 1.2, 1.4]}`))
	if err != nil {
		panic(err)
	}
	return m
}

// TestVirtualContentionScalesScriptedComputation: in an in-process world
// whose computation is scripted (every burst 1 ms), each rank is charged
// bursts x 1 ms x cpu-scale x S(k_t) / S(k_h): ranks 0-3 share a node
// (k_t = 4), ranks 4-5 the next (k_t = 2), and the host computes one rank
// at a time.
func TestVirtualContentionScalesScriptedComputation(t *testing.T) {
	const burst, scale = 1e-3, 2
	for _, tc := range []struct {
		hostConcurrency int
		factor          [6]float64
	}{
		{1, [6]float64{1.4, 1.4, 1.4, 1.4, 1.2, 1.2}},
		{2, [6]float64{1.4 / 1.2, 1.4 / 1.2, 1.4 / 1.2, 1.4 / 1.2, 1, 1}},
	} {
		v, err := NewVirtual(contendedMachine(), 6, scale)
		if err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		meters := map[int]*scriptedMeter{}
		v.newMeter = func(id int) vtime.Meter {
			m := &scriptedMeter{burst: burst, bursts: new(int)}
			mu.Lock()
			meters[id] = m
			mu.Unlock()
			return m
		}
		v.SetHostConcurrency(tc.hostConcurrency)
		err = v.Run(func(c *Comm) error {
			if err := c.Barrier(); err != nil {
				return err
			}
			out := make([]float64, 1)
			return Allreduce(c, []float64{1}, out, Sum)
		})
		if err != nil {
			t.Fatal(err)
		}
		mu.Lock() // the ranks are done; this orders their writes before the reads
		for _, rr := range v.Results() {
			n := *meters[rr.Rank].bursts
			if n == 0 {
				t.Fatalf("rank %d: no burst measured", rr.Rank)
			}
			want := float64(n) * burst * scale * tc.factor[rr.Rank]
			if rr.Computation < want*(1-1e-12) || rr.Computation > want*(1+1e-12) {
				t.Errorf("k_h %d: rank %d charged %g s of computation, want %d bursts x %g s x %g x %g = %g",
					tc.hostConcurrency, rr.Rank, rr.Computation, n, burst, float64(scale), tc.factor[rr.Rank], want)
			}
			if rr.HostConcurrency != tc.hostConcurrency {
				t.Errorf("rank %d: record says k_h %d, want %d", rr.Rank, rr.HostConcurrency, tc.hostConcurrency)
			}
		}
		mu.Unlock()
	}
}

// TestVirtualInProcessHostConcurrency: an in-process world is measured on
// this machine's cores, at most GOMAXPROCS ranks at once.
func TestVirtualInProcessHostConcurrency(t *testing.T) {
	for _, ranks := range []int{1, 3, 64} {
		v, err := NewVirtual(contendedMachine(), ranks, 1)
		if err != nil {
			t.Fatal(err)
		}
		if want := min(runtime.NumCPU(), runtime.GOMAXPROCS(0), ranks); v.hostConcurrency != want {
			t.Errorf("%d ranks: k_h %d, want min(NumCPU, GOMAXPROCS, ranks) = %d", ranks, v.hostConcurrency, want)
		}
	}
	v, err := NewVirtual(contendedMachine(), 3, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Run(func(c *Comm) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if rep := v.Report(); rep.Contention != nil || rep.PerRank[0].HostConcurrency != 0 {
		t.Errorf("cpu-scale 0 reports contention: %+v", rep.Contention)
	}
}

// TestMachineConcurrencyFromHostShapes: k_h of one machine is bounded by
// its cores, by the ranks it hosts and by what its processes let compute.
func TestMachineConcurrencyFromHostShapes(t *testing.T) {
	for _, tc := range []struct {
		cores, width int
		procRanks    []int
		want         int
	}{
		{2, 1, []int{2}, 1},        // gompirun -np 1 -virtual 2, GOMAXPROCS=1
		{2, 2, []int{2}, 2},        // -np 1 -virtual 2
		{2, 2, []int{1, 1}, 2},     // -np 2
		{2, 1, []int{4, 4}, 2},     // -np 2 -virtual 8, GOMAXPROCS=1
		{16, 1, []int{4, 4, 4}, 3}, // processes bound it
		{16, 16, []int{3}, 3},      // ranks bound it
		{4, 4, []int{8, 8}, 4},     // cores bound it
		{8, 2, []int{1, 5}, 3},     // 1 + min(2, 5)
	} {
		if got := machineConcurrency(tc.cores, tc.width, tc.procRanks); got != tc.want {
			t.Errorf("%d cores, width %d, ranks %v: k_h %d, want %d", tc.cores, tc.width, tc.procRanks, got, tc.want)
		}
	}
}

// TestHostConcurrencyEnvOverrides: GOMPI_VHOST_CONCURRENCY sets k_h for a
// launched process; a bad value is an error naming the variable.
func TestHostConcurrencyEnvOverrides(t *testing.T) {
	v, err := NewVirtual(contendedMachine(), 4, 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(launch.EnvHostConcurrency, "3")
	if err := setHostConcurrency(v, []int{4}); err != nil || v.hostConcurrency != 3 {
		t.Errorf("override 3: k_h %d, err %v", v.hostConcurrency, err)
	}
	for _, bad := range []string{"0", "-1", "two"} {
		t.Setenv(launch.EnvHostConcurrency, bad)
		if err := setHostConcurrency(v, []int{4}); err == nil || !strings.Contains(err.Error(), launch.EnvHostConcurrency) {
			t.Errorf("%s=%s: error %v, want one naming the variable", launch.EnvHostConcurrency, bad, err)
		}
	}
	t.Setenv(launch.EnvHostConcurrency, "")
	if err := setHostConcurrency(v, []int{4}); err != nil {
		t.Fatal(err)
	}
	if want := machineConcurrency(runtime.NumCPU(), v.computeWidth(), []int{4}); v.hostConcurrency != want {
		t.Errorf("counted k_h %d, want %d", v.hostConcurrency, want)
	}
}
