package main

import (
	"io"
	"math"
	"testing"
)

// A wrong zeta must fail verification: off by more than the reference's
// tolerance of 1e-10 (relative), but well inside a looser one such as 1e-4,
// so loosening the tolerance fails this test.
func TestVerificationRejectsWrongZeta(t *testing.T) {
	want := classes['S'].zeta
	for _, tc := range []struct {
		zeta float64
		ok   bool
	}{
		{want, true},
		{want * (1 + 1e-12), true},
		{want * (1 + 1e-8), false},
		{want * (1 - 1e-6), false},
		{-want, false},
		{math.NaN(), false},
	} {
		if got := report(io.Discard, tc.zeta, want); got != tc.ok {
			t.Errorf("zeta %.15g against %.15g: verified %v, want %v", tc.zeta, want, got, tc.ok)
		}
	}
}
