package main

import (
	"bytes"
	"strings"
	"sync"
	"testing"

	"github.com/gompi/gompi/mpi"
)

// runMG runs class S on n in-process ranks and returns rank 0's result and
// report.
func runMG(t *testing.T, n int, opt Options) (Result, string) {
	t.Helper()
	var (
		mu   sync.Mutex
		res  Result
		root bytes.Buffer
	)
	err := mpi.Run(n, func(c *mpi.Comm) error {
		var out bytes.Buffer
		r, err := Run(c, 'S', &out, opt)
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
	if err != nil {
		t.Fatalf("%d ranks: %v\n%s", n, err, root.String())
	}
	return res, root.String()
}

func TestClassSVerifies(t *testing.T) {
	for _, n := range []int{1, 2, 4} {
		res, out := runMG(t, n, Options{})
		if !res.Verified || !strings.Contains(out, "VERIFICATION SUCCESSFUL") {
			t.Errorf("%d ranks: not verified (L2 %g, err %g)\n%s", n, res.L2Norm, res.Err, out)
		}
		if res.Nprocs != n {
			t.Errorf("%d ranks: %d active", n, res.Nprocs)
		}
	}
}

// A non-power-of-two count runs on the largest power of two below it, the
// extra ranks idle, as in the reference.
func TestThreeRanksUseTwo(t *testing.T) {
	res, out := runMG(t, 3, Options{Timers: true})
	if !res.Verified || res.Nprocs != 2 {
		t.Fatalf("verified %v on %d active ranks\n%s", res.Verified, res.Nprocs, out)
	}
	for _, want := range []string{"Number of active processes:      2", "Total processes =                        3", "timer  8(comm3   )"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q\n%s", want, out)
		}
	}
}

func TestBadClass(t *testing.T) {
	err := mpi.Run(1, func(c *mpi.Comm) error {
		_, err := Run(c, 'X', &bytes.Buffer{}, Options{})
		return err
	})
	if err == nil || !strings.Contains(err.Error(), "unknown class") {
		t.Fatalf("got %v", err)
	}
}

func TestFortranE(t *testing.T) {
	for v, want := range map[float64]string{
		0.5307707005734e-04: " 0.5307707005734E-04",
		-12.5:               "-0.1250000000000E+02",
		0:                   " 0.0000000000000E+00",
	} {
		if got := fortranE(v, 20, 13); got != want {
			t.Errorf("fortranE(%g) = %q, want %q", v, got, want)
		}
	}
}
