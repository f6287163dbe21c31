package main

import (
	"bytes"
	"strings"
	"sync"
	"testing"

	"github.com/gompi/gompi/mpi"
)

// runLU runs the class on n in-process ranks and returns rank 0's result
// and report.
func runLU(t *testing.T, n int, class byte, opt Options) (Result, string, error) {
	t.Helper()
	var (
		mu   sync.Mutex
		res  Result
		root bytes.Buffer
	)
	err := mpi.Run(n, func(c *mpi.Comm) error {
		var out bytes.Buffer
		if c.Rank() == 0 {
			// Deferred: a peer's failure may end this rank inside an MPI
			// call (the job is brought down), after it wrote its report
			// of the failure, as a process would have to its stdout.
			defer func() {
				mu.Lock()
				root.Write(out.Bytes())
				mu.Unlock()
			}()
		}
		r, err := Run(c, class, &out, opt)
		if c.Rank() == 0 {
			mu.Lock()
			res = r
			mu.Unlock()
		} else if out.Len() != 0 {
			t.Errorf("rank %d wrote output", c.Rank())
		}
		return err
	})
	return res, root.String(), err
}

// Class S verifies on 1, 2 and 4 ranks (1x1, 2x1 and 2x2 grids) with the
// same norms but for rounding; the 2-rank run prints the timer breakdown.
func TestClassSVerifies(t *testing.T) {
	var first Result
	for _, n := range []int{1, 2, 4} {
		res, out, err := runLU(t, n, 'S', Options{Timers: n == 2})
		if err != nil {
			t.Fatalf("%d ranks: %v\n%s", n, err, out)
		}
		if !res.Verified || !strings.Contains(out, " Verification Successful") ||
			!strings.Contains(out, "Verification    =               SUCCESSFUL") {
			t.Errorf("%d ranks: not verified\n%s", n, out)
		}
		if res.Nprocs != n || res.Xdim*res.Ydim != n {
			t.Errorf("%d ranks: %d processes on a %d x %d grid", n, res.Nprocs, res.Xdim, res.Ydim)
		}
		// The decomposition changes only the order of the sums.
		if n == 1 {
			first = res
		} else if d := maxRelDiff(res, first); d > 1e-12 {
			t.Errorf("%d ranks: norms differ from 1 rank's by %g (relative)", n, d)
		}
		if n == 2 {
			for _, want := range []string{"timer  8(lcomm   )", "timer  9(ucomm   )", "timer 12( totcomm)"} {
				if !strings.Contains(out, want) {
					t.Errorf("timer report lacks %q\n%s", want, out)
				}
			}
			if strings.Contains(out, "jacld") {
				t.Errorf("timer report prints the unused #jacld timer\n%s", out)
			}
		}
	}
}

// A count with no xdim x ydim grid in the reference's proc_grid is
// rejected on every rank, before any computation.
func TestBadRankCount(t *testing.T) {
	_, out, err := runLU(t, 3, 'S', Options{})
	if err == nil || !strings.Contains(err.Error(), "could not determine proper proc_grid") {
		t.Fatalf("3 ranks: got %v\n%s", err, out)
	}
	if !strings.Contains(out, "ERROR: could not determine proper proc_grid for nprocs=     3") {
		t.Errorf("3 ranks: report lacks the error\n%s", out)
	}
}

// Too many ranks for the grid leave blocks of fewer than 3 points.
func TestSubdomainTooSmall(t *testing.T) {
	_, out, err := runLU(t, 32, 'S', Options{})
	if err == nil || !strings.Contains(err.Error(), "SUBDOMAIN SIZE IS TOO SMALL") {
		t.Fatalf("32 ranks: got %v\n%s", err, out)
	}
}

func TestBadClass(t *testing.T) {
	_, _, err := runLU(t, 1, 'X', Options{})
	if err == nil || !strings.Contains(err.Error(), "unknown class") {
		t.Fatalf("got %v", err)
	}
}

// procGrid accepts what the reference's proc_grid accepts (NPB 3.4
// relaxed LU's power-of-two rule to near-square factorisations), with its
// grids.
func TestProcGrid(t *testing.T) {
	want := map[int][2]int{1: {1, 1}, 2: {2, 1}, 4: {2, 2}, 6: {3, 2}, 8: {4, 2}, 9: {3, 3},
		12: {4, 3}, 16: {4, 4}, 32: {8, 4}, 64: {8, 8}, 128: {16, 8}}
	for n := 1; n <= 128; n++ {
		s := &luState{num: n, id: n - 1}
		err := s.procGrid()
		g, ok := want[n]
		switch {
		case ok && err != nil:
			t.Errorf("%d: %v", n, err)
		case ok && (s.xdim != g[0] || s.ydim != g[1]):
			t.Errorf("%d: %d x %d, want %d x %d", n, s.xdim, s.ydim, g[0], g[1])
		case err == nil && (s.xdim*s.ydim != n || s.ydim > s.xdim || s.xdim > 2*s.ydim):
			t.Errorf("%d: accepted as %d x %d", n, s.xdim, s.ydim)
		}
	}
	for _, n := range []int{3, 5, 7, 10, 11, 13, 14, 17} {
		s := &luState{num: n}
		if s.procGrid() == nil {
			t.Errorf("%d accepted as %d x %d", n, s.xdim, s.ydim)
		}
	}
}

// maxRelDiff is the largest relative difference between the norms and
// surface integrals of two results.
func maxRelDiff(a, b Result) float64 {
	d := relDiff(a.Xci, b.Xci)
	for m := 0; m < 5; m++ {
		d = max(d, relDiff(a.Xcr[m], b.Xcr[m]), relDiff(a.Xce[m], b.Xce[m]))
	}
	return d
}
