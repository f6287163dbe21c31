package mpi

import (
	"fmt"
	"math"
	"math/bits"
	"testing"

	"github.com/gompi/gompi/vtime"
)

// virtualTime runs fn on a virtual world of n ranks of the xsim-ethernet
// machine (every pair of ranks the same distance apart) with cpu-scale 0
// and returns the predicted time.
func virtualTime(t *testing.T, n int, fn func(c *Comm) error) float64 {
	t.Helper()
	return runVirtual(t, "xsim-ethernet", n, fn).Report().Predicted
}

// runVirtual runs fn on n ranks of a preset machine at cpu-scale 0.
func runVirtual(t *testing.T, preset string, n int, fn func(c *Comm) error) *Virtual {
	t.Helper()
	m, err := vtime.Preset(preset)
	if err != nil {
		t.Fatal(err)
	}
	v, err := NewVirtual(m, n, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Run(fn); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestCollVirtualRounds: in a virtual run a collective of small messages
// on a uniform network takes (rounds of its algorithm) x (one eager
// one-way time) — the dependency chains docs/collectives.md states. The
// one-way time comes from a virtual ping-pong of the same message size.
func TestCollVirtualRounds(t *testing.T) {
	const s = 8 // bytes per message
	oneway := virtualTime(t, 2, func(c *Comm) error {
		buf := make([]byte, s)
		if c.Rank() == 0 {
			if err := Send(c, buf, 1, 0); err != nil {
				return err
			}
			_, err := Recv(c, buf, 1, 0)
			return err
		}
		if _, err := Recv(c, buf, 0, 0); err != nil {
			return err
		}
		return Send(c, buf, 0, 0)
	}) / 2
	empty := virtualTime(t, 2, func(c *Comm) error {
		if c.Rank() == 0 {
			return Send(c, []byte{}, 1, 0)
		}
		_, err := Recv(c, []byte{}, 0, 0)
		return err
	})
	lg := ceilLog2
	depth := func(n int) int { // binomial tree: the most set bits of a relative rank
		d := 0
		for r := 0; r < n; r++ {
			d = max(d, bits.OnesCount(uint(r)))
		}
		return d
	}
	// Recursive doubling: lg n rounds on powers of two; otherwise the fold
	// and unfold add up to two, partly overlapped by ranks that do not fold
	// (-1: check only the bounds lg p + 1 .. lg p + 2).
	recdbl := func(n int) int {
		if isPof2(n) {
			return lg(n)
		}
		return -1
	}
	cases := []struct {
		name  string
		kind  collKind
		a     algo
		per   float64 // one round's time
		call  func(c *Comm) error
		round func(n int) int
	}{
		{"Barrier", nColl, 0, empty, func(c *Comm) error { return c.Barrier() }, lg},
		{"Bcast binomial", collBcast, algoBinomial, oneway,
			func(c *Comm) error { return Bcast(c, make([]byte, s), 0) }, depth},
		{"Allreduce recursive doubling", collAllreduce, algoRecDbl, oneway,
			func(c *Comm) error { return AllreduceInPlace(c, make([]int64, s/8), Sum) }, recdbl},
		{"Allgather ring", collAllgather, algoRing, oneway,
			func(c *Comm) error { return AllgatherInPlace(c, make([]byte, s*c.Size())) }, func(n int) int { return n - 1 }},
		{"Alltoall pairwise", collAlltoall, algoPairwise, oneway,
			func(c *Comm) error { return Alltoall(c, make([]byte, s*c.Size()), make([]byte, s*c.Size())) }, func(n int) int { return n - 1 }},
		{"Scan", nColl, 0, oneway, func(c *Comm) error { return ScanInPlace(c, make([]int64, s/8), Sum) }, lg},
	}
	for _, x := range cases {
		if x.kind < nColl {
			forceAlgo(t, x.kind, x.a)
		}
		for _, n := range []int{5, 6, 8, 13, 16} {
			got := virtualTime(t, n, x.call)
			if x.round(n) < 0 {
				lo, hi := float64(lg(pof2Below(n))+1)*x.per, float64(lg(pof2Below(n))+2)*x.per
				if got < 0.99*lo || got > 1.01*hi {
					t.Errorf("%s n=%d: predicted %.3g s, want %.3g to %.3g s", x.name, n, got, lo, hi)
				}
				continue
			}
			want := float64(x.round(n)) * x.per
			if math.Abs(got-want) > 0.01*want {
				t.Errorf("%s n=%d: predicted %.3g s, want %d rounds x %.3g s = %.3g s", x.name, n, got, x.round(n), x.per, want)
			}
		}
		setForced(nil)
	}
	t.Log(fmt.Sprintf("one-way %d B: %.3g s, empty: %.3g s", s, oneway, empty))
}

// TestCollVirtualCorrect runs every collective in virtual mode, where
// messages can wait in Algorithm 2's early queue: results must still equal
// the brute force.
func TestCollVirtualCorrect(t *testing.T) {
	for _, n := range []int{7, 16} {
		got := virtualTime(t, n, func(c *Comm) error { return checkAllOn(c, n, 5, false) })
		t.Logf("n=%d: all collectives predicted %.4g s", n, got)
	}
}
