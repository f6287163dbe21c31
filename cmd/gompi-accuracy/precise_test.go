package main

import (
	"math"
	"testing"
)

// TestRowTimesFromMops: with every run's Mop/s, a row's times are the work
// W over each run's Mop/s, and RE is the inverse ratio of the median Mop/s
// exactly, whatever the two-decimal times say: here 0.35 s and 0.34 s, an
// RE of -2.9% at two decimals, are 0.3478 s and 0.3442 s by Mop/s.
func TestRowTimesFromMops(t *testing.T) {
	const w = 84.0 // Mop: the kernel's operation count
	realMops := []float64{w / 0.3478, w / 0.3512, w / 0.3469}
	predMops := []float64{w / 0.3442, w / 0.3440, w / 0.3451}
	r := row{Real: []float64{0.35, 0.35, 0.35}, Pred: []float64{0.34, 0.34, 0.35}, RealMops: realMops, PredMops: predMops}
	real, pred, digits := r.times()
	if digits != 3 {
		t.Fatalf("digits %d, want 3", digits)
	}
	re, _ := relativeError(summarize(pred).Median, summarize(real).Median)
	if want := (w / 0.3442) / (w / 0.3478); math.Abs(re-(1/want-1)) > 1e-12 {
		t.Errorf("RE %.6f, want median real Mop/s / median predicted Mop/s - 1 = %.6f", re, 1/want-1)
	}
	if c := r.cells(); c[2] != "-1.0%" {
		t.Errorf("RE cell %q, want -1.0%%", c[2])
	}
	// A run without Mop/s: the row falls back to NPB's times.
	r.PredMops[1] = 0
	if _, _, digits := r.times(); digits != 2 {
		t.Errorf("a run without Mop/s: digits %d, want 2 (NPB's times)", digits)
	}
	if c := r.cells(); c[0] != "0.35" || c[1] != "0.34" {
		t.Errorf("fallback cells %v, want NPB's medians 0.35 and 0.34", c)
	}
}
