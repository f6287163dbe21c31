package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gompi/gompi/mpi"
)

func runCG(t *testing.T, n int, class byte) (bool, string, error) {
	t.Helper()
	outs := make([]bytes.Buffer, n)
	var verified bool
	err := mpi.Run(n, func(c *mpi.Comm) error {
		res, err := Run(c, class, &outs[c.Rank()])
		if c.Rank() == 0 {
			verified = res.Verified
		}
		return err
	})
	return verified, outs[0].String(), err
}

func TestClassS(t *testing.T) {
	for _, n := range []int{1, 2, 4} {
		ok, out, err := runCG(t, n, 'S')
		if err != nil {
			t.Fatalf("np=%d: %v", n, err)
		}
		if !ok || !strings.Contains(out, "VERIFICATION SUCCESSFUL") {
			t.Fatalf("np=%d: not verified:\n%s", n, out)
		}
	}
}

func TestBadProcessCount(t *testing.T) {
	_, _, err := runCG(t, 3, 'S')
	if err == nil || !strings.Contains(err.Error(), "power of two") {
		t.Fatalf("np=3: %v", err)
	}
}

// The 2-rank grid is 1x2: each rank holds half the columns and exchanges
// with itself; the 8-rank grid is 2x4. Check the partition covers the
// matrix exactly once.
func TestGridCoversMatrix(t *testing.T) {
	for _, np := range []int{1, 2, 4, 8, 16, 32} {
		const na = 1400
		seen := make(map[[2]int]int)
		for me := 0; me < np; me++ {
			g, err := newGrid(me, np, na)
			if err != nil {
				t.Fatal(err)
			}
			seen[[2]int{g.firstRow, g.firstCol}] += (g.lastRow - g.firstRow + 1) * (g.lastCol - g.firstCol + 1)
		}
		total := 0
		for _, v := range seen {
			total += v
		}
		if total != na*na || len(seen) != np {
			t.Errorf("np=%d: blocks cover %d of %d entries in %d blocks", np, total, na*na, len(seen))
		}
	}
}
