package adi

import "testing"

// With 9 and 16 ranks every rank holds cells in the middle of the grid as
// well as on its boundary; at 16 ranks class S's cells have the minimum
// size, 3, where the boundary stencils of the dissipation meet.
func TestManyRanks(t *testing.T) {
	for _, b := range both {
		for _, n := range []int{9, 16} {
			res, out, err := runBench(t, b, n, 'S', Options{})
			if err != nil || !res.Verified {
				t.Errorf("%s, %d ranks: verified %v, err %v\n%s", b.name, n, res.Verified, err, out)
			}
		}
	}
}
