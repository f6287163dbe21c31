package main

import "testing"

// With 64 ranks (a 4x4x4 grid) the 2x2x2 coarsest level leaves ranks
// without points: those levels are dead, and interp's exchange takes the
// give3_ex/take3_ex path.
func TestDeadCoarseLevels(t *testing.T) {
	res, out := runMG(t, 64, Options{})
	if !res.Verified {
		t.Errorf("64 ranks: not verified\n%s", out)
	}
}
