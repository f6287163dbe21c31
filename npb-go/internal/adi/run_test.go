package adi

import (
	"bytes"
	"io"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/gompi/gompi/mpi"
)

// both are the two benchmarks; the tests run each on both.
var both = []*Benchmark{BT, SP}

// runBench runs b's class on n in-process ranks and returns rank 0's
// result and report.
func runBench(t *testing.T, b *Benchmark, n int, class byte, opt Options) (Result, string, error) {
	t.Helper()
	var (
		mu   sync.Mutex
		res  Result
		root bytes.Buffer
	)
	err := mpi.Run(n, func(c *mpi.Comm) error {
		var out bytes.Buffer
		r, err := Run(b, c, class, &out, opt)
		if c.Rank() == 0 {
			mu.Lock()
			res = r
			root.Write(out.Bytes())
			mu.Unlock()
		} else if out.Len() != 0 {
			t.Errorf("rank %d wrote output", c.Rank())
		}
		return err
	})
	return res, root.String(), err
}

func TestClassSVerifies(t *testing.T) {
	for _, b := range both {
		t.Run(b.name, func(t *testing.T) {
			var norms [][5]float64
			for _, n := range []int{1, 4} {
				res, out, err := runBench(t, b, n, 'S', Options{})
				if err != nil {
					t.Fatalf("%d ranks: %v\n%s", n, err, out)
				}
				if !res.Verified || !strings.Contains(out, " Verification Successful") ||
					!strings.Contains(out, "Verification    =               SUCCESSFUL") ||
					!strings.Contains(out, "NAS Parallel Benchmarks 3.4 -- "+b.name+" Benchmark") {
					t.Errorf("%d ranks: not verified\n%s", n, out)
				}
				if res.Nprocs != n {
					t.Errorf("%d ranks: %d active", n, res.Nprocs)
				}
				norms = append(norms, res.Xcr, res.Xce)
			}
			// The decomposition changes only the order of the norms' sums.
			for m := 0; m < 5; m++ {
				for i := 0; i < 2; i++ {
					if d := math.Abs(norms[2+i][m]/norms[i][m] - 1); d > 1e-12 {
						t.Errorf("norm %d/%d: 1 and 4 ranks differ by %g", i, m+1, d)
					}
				}
			}
		})
	}
}

// The timer breakdown names the reference's timers (BT's has the i/o
// timer, SP's not) and splits the communication from the solves.
func TestTimers(t *testing.T) {
	want := map[*Benchmark][]string{
		BT: {"timer  1(total   )", "timer  2(i/o     )", "timer  8(exch    )", "timer 11(zcomm   )", "timer 13( totcomm)"},
		SP: {"timer  1(total   )", "timer  2(rhs     )", "timer  7(exch    )", "timer 10(zcomm   )", "timer 12( totcomm)"},
	}
	for _, b := range both {
		res, out, err := runBench(t, b, 4, 'S', Options{Timers: true})
		if err != nil || !res.Verified {
			t.Fatalf("%s: verified %v, err %v\n%s", b.name, res.Verified, err, out)
		}
		for _, w := range append(want[b], " nprocs =     4") {
			if !strings.Contains(out, w) {
				t.Errorf("%s: report lacks %q\n%s", b.name, w, out)
			}
		}
	}
}

// BT and SP need a square number of processes: 2, 3 and 8 are rejected on
// every rank before any communication.
func TestRejectsNonSquare(t *testing.T) {
	for _, b := range both {
		for _, n := range []int{2, 3, 8} {
			_, _, err := runBench(t, b, n, 'S', Options{})
			if err == nil || !strings.Contains(err.Error(), b.name+" needs a square number of processes") {
				t.Errorf("%s, %d ranks: got %v", b.name, n, err)
			}
		}
	}
}

// Class S (12^3) over 25 ranks would make cells of 2 points.
func TestRejectsTooSmallCells(t *testing.T) {
	for _, b := range both {
		err := mpi.Run(25, func(c *mpi.Comm) error {
			_, err := Run(b, c, 'S', io.Discard, Options{})
			return err
		})
		if err == nil || !strings.Contains(err.Error(), "cell size too small") {
			t.Errorf("%s: got %v", b.name, err)
		}
	}
}

func TestBadClass(t *testing.T) {
	for _, b := range both {
		err := mpi.Run(1, func(c *mpi.Comm) error {
			_, err := Run(b, c, 'X', io.Discard, Options{})
			return err
		})
		if err == nil || !strings.Contains(err.Error(), strings.ToLower(b.name)+": unknown class") {
			t.Errorf("%s: got %v", b.name, err)
		}
	}
}
