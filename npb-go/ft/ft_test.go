package main

import (
	"bytes"
	"strings"
	"sync"
	"testing"

	"github.com/gompi/gompi/mpi"
)

// runFT runs class S on n in-process ranks and returns rank 0's result and
// report.
func runFT(t *testing.T, n int, opt Options) (Result, string, error) {
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
	return res, root.String(), err
}

func TestClassSVerifies(t *testing.T) {
	for _, tc := range []struct {
		n        int
		opt      Options
		layout   string
		procGrid string
	}{
		{1, Options{}, "0D", "1x   1"},
		{2, Options{}, "1D", "1x   2"},
		{4, Options{}, "1D", "1x   4"},
		{4, Options{Np1: 2, Np2: 2, Timers: true}, "2D", "2x   2"},
		{2, Options{Np1: 2, Np2: 1}, "2D", "2x   1"},
		// Eight y lines per rank: FFT blocks of 8 lines, not 16.
		{8, Options{Np1: 8, Np2: 1}, "2D", "8x   1"},
	} {
		res, out, err := runFT(t, tc.n, tc.opt)
		if err != nil {
			t.Fatalf("%d ranks %+v: %v\n%s", tc.n, tc.opt, err, out)
		}
		if !res.Verified || !strings.Contains(out, "Result verification successful") {
			t.Errorf("%d ranks %+v: not verified\n%s", tc.n, tc.opt, out)
		}
		if res.Layout != tc.layout || !strings.Contains(out, tc.procGrid) {
			t.Errorf("%d ranks %+v: layout %s, want %s %s\n%s", tc.n, tc.opt, res.Layout, tc.layout, tc.procGrid, out)
		}
	}
}

func TestBadProcessCounts(t *testing.T) {
	for _, tc := range []struct {
		n    int
		opt  Options
		want string
	}{
		{3, Options{}, "power of two"},
		{4, Options{Np1: 2, Np2: 1}, "does not match"},
		{4, Options{Np1: -1, Np2: -4}, "does not match"},
		{128, Options{Np1: 1, Np2: 128}, "cannot"},
	} {
		_, _, err := runFT(t, tc.n, tc.opt)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%d ranks %+v: got %v, want an error with %q", tc.n, tc.opt, err, tc.want)
		}
	}
}

func TestFortranD(t *testing.T) {
	if got, want := fortranD(554.6087004964, 22, 12), "    5.546087004964D+02"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
