package main

import (
	"bytes"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/gompi/gompi/mpi"
)

// runBT runs the class on n in-process ranks and returns rank 0's result
// and report.
func runBT(t *testing.T, n int, class byte, opt Options) (Result, string, error) {
	t.Helper()
	var (
		mu   sync.Mutex
		res  Result
		root bytes.Buffer
	)
	err := mpi.Run(n, func(c *mpi.Comm) error {
		var out bytes.Buffer
		r, err := Run(c, class, &out, opt)
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
	var norms [][5]float64
	for _, n := range []int{1, 4} {
		res, out, err := runBT(t, n, 'S', Options{})
		if err != nil {
			t.Fatalf("%d ranks: %v\n%s", n, err, out)
		}
		if !res.Verified || !strings.Contains(out, " Verification Successful") ||
			!strings.Contains(out, "Verification    =               SUCCESSFUL") {
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
			if d := relDiff(norms[2+i][m], norms[i][m]); d > 1e-12 {
				t.Errorf("norm %d/%d: 1 and 4 ranks differ by %g", i, m+1, d)
			}
		}
	}
}

// The timer breakdown names the reference's timers and splits the
// communication from the solves.
func TestTimers(t *testing.T) {
	res, out, err := runBT(t, 4, 'S', Options{Timers: true})
	if err != nil || !res.Verified {
		t.Fatalf("verified %v, err %v\n%s", res.Verified, err, out)
	}
	for _, want := range []string{" nprocs =     4", "timer  1(total   )", "timer  2(i/o     )", "timer  8(exch    )", "timer 11(zcomm   )", "timer 13( totcomm)"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q\n%s", want, out)
		}
	}
}

// BT needs a square number of processes: 2, 3 and 8 are rejected on every
// rank before any communication.
func TestRejectsNonSquare(t *testing.T) {
	for _, n := range []int{2, 3, 8} {
		_, _, err := runBT(t, n, 'S', Options{})
		if err == nil || !strings.Contains(err.Error(), "square number of processes") {
			t.Errorf("%d ranks: got %v", n, err)
		}
	}
}

// Class S (12^3) over 25 ranks would make cells of 2 points.
func TestRejectsTooSmallCells(t *testing.T) {
	err := mpi.Run(25, func(c *mpi.Comm) error {
		_, err := Run(c, 'S', io.Discard, Options{})
		return err
	})
	if err == nil || !strings.Contains(err.Error(), "cell size too small") {
		t.Fatalf("got %v", err)
	}
}

func TestBadClass(t *testing.T) {
	err := mpi.Run(1, func(c *mpi.Comm) error {
		_, err := Run(c, 'X', io.Discard, Options{})
		return err
	})
	if err == nil || !strings.Contains(err.Error(), "unknown class") {
		t.Fatalf("got %v", err)
	}
}
