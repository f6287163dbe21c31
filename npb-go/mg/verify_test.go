package main

import (
	"math"
	"testing"
)

// A wrong residual norm must fail verification: off by more than the 1e-8
// tolerance (relative), but inside a looser one such as 1e-4.
func TestVerificationRejectsWrongNorm(t *testing.T) {
	want := classes['S'].verify
	for _, tc := range []struct {
		norm float64
		ok   bool
	}{
		{want, true},
		{want * (1 + 1e-10), true},
		{want * (1 + 1e-6), false},
		{want * (1 - 1e-5), false},
		{0, false},
		{math.NaN(), false},
	} {
		if _, got := verifyNorm(tc.norm, want); got != tc.ok {
			t.Errorf("norm %.15g against %.15g: verified %v, want %v", tc.norm, want, got, tc.ok)
		}
	}
}
