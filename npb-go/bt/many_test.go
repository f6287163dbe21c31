package main

import "testing"

// With 9 and 16 ranks every rank holds cells in the middle of the grid as
// well as on its boundary; at 16 ranks class S's cells have the minimum
// size, 3, where the boundary stencils of the dissipation meet.
func TestManyRanks(t *testing.T) {
	for _, n := range []int{9, 16} {
		res, out, err := runBT(t, n, 'S', Options{})
		if err != nil || !res.Verified {
			t.Errorf("%d ranks: verified %v, err %v\n%s", n, res.Verified, err, out)
		}
	}
}
