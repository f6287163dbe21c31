package main

import "testing"

// With more ranks than z planes the reference switches to the 2-D layout.
func TestDefault2DLayout(t *testing.T) {
	res, out, err := runFT(t, 128, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Verified || res.Layout != "2D" {
		t.Errorf("128 ranks: verified %v layout %s\n%s", res.Verified, res.Layout, out)
	}
}
