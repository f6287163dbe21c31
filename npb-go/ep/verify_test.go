package main

import (
	"math"
	"testing"
)

// A wrong sum must fail verification, each of sx and sy on its own (so the
// verdict needs both right, not either), by an error above the tolerance.
func TestVerificationRejectsWrongSums(t *testing.T) {
	m := classM['S']
	ref := reference[m]
	off := 1e-6 // relative: above the 1e-8 tolerance
	for _, tc := range []struct {
		name   string
		sx, sy float64
		ok     bool
	}{
		{"published sums", ref[0], ref[1], true},
		{"sx wrong", ref[0] * (1 + off), ref[1], false},
		{"sy wrong", ref[0], ref[1] * (1 + off), false},
		{"both wrong", ref[0] * (1 + off), ref[1] * (1 - off), false},
		{"sx NaN", math.NaN(), ref[1], false},
		{"sy NaN", ref[0], math.NaN(), false},
	} {
		if got := verify(m, Sums{SX: tc.sx, SY: tc.sy}); got != tc.ok {
			t.Errorf("%s: verified %v, want %v", tc.name, got, tc.ok)
		}
	}
	if verify(m+1, Sums{SX: ref[0], SY: ref[1]}) {
		t.Error("a class with no published sums verified")
	}
}
