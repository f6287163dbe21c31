package main

import "testing"

// Class W's 33 points do not split evenly: on 8 ranks (a 4 x 2 grid) the
// blocks are 9 or 8 points by 17 or 16, and the pipeline and the
// exchanges carry lines of different lengths between them.
func TestClassWUnevenBlocks(t *testing.T) {
	if testing.Short() {
		t.Skip("class W takes seconds")
	}
	res, out, err := runLU(t, 8, 'W', Options{})
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !res.Verified || res.Xdim != 4 || res.Ydim != 2 {
		t.Errorf("verified %v on a %d x %d grid\n%s", res.Verified, res.Xdim, res.Ydim, out)
	}
}
