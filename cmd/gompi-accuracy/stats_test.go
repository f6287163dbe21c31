package main

import (
	"math"
	"testing"
)

func TestSummarize(t *testing.T) {
	tests := []struct {
		in   []float64
		want spread
	}{
		{nil, spread{}},
		{[]float64{2.5}, spread{N: 1, Median: 2.5, Min: 2.5, Max: 2.5}},
		{[]float64{3, 1, 2}, spread{N: 3, Median: 2, Min: 1, Max: 3}},
		{[]float64{4, 1, 3, 2}, spread{N: 4, Median: 2.5, Min: 1, Max: 4}},
		{[]float64{0.52, 0.48, 0.51, 0.95, 0.50}, spread{N: 5, Median: 0.51, Min: 0.48, Max: 0.95}},
	}
	for _, tc := range tests {
		in := append([]float64(nil), tc.in...)
		if got := summarize(in); got != tc.want {
			t.Errorf("summarize(%v) = %+v, want %+v", tc.in, got, tc.want)
		}
		for i := range in {
			if in[i] != tc.in[i] {
				t.Fatalf("summarize reordered its input: %v", in)
			}
		}
	}
}

func TestRelativeError(t *testing.T) {
	tests := []struct {
		pred, real, want float64
		ok               bool
	}{
		{1.05, 1.00, 0.05, true},
		{0.90, 1.00, -0.10, true},
		{2.28, 2.28, 0, true},
		{0, 0.31, -1, true},
		{1, 0, 0, false},
		{1, -1, 0, false},
		{1, math.NaN(), 0, false},
	}
	for _, tc := range tests {
		got, ok := relativeError(tc.pred, tc.real)
		if ok != tc.ok || math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("relativeError(%v, %v) = %v, %v; want %v, %v", tc.pred, tc.real, got, ok, tc.want, tc.ok)
		}
	}
}

// TestRowCells checks the printed figures of a row: medians, RE of the
// medians (not the median of the ratios), spreads; an interrupted row
// keeps the figures of its complete pairs of runs.
func TestRowCells(t *testing.T) {
	r := row{Real: []float64{2.00, 2.10, 1.90, 2.40}, Pred: []float64{2.20, 2.00, 2.30}}
	want := [5]string{"2.05", "2.20", "+7.3%", "1.90-2.40", "2.00-2.30"}
	if got := r.cells(); got != want {
		t.Errorf("cells = %q, want %q", got, want)
	}
	r = row{Real: []float64{0}, Pred: []float64{0.01}}
	if got := r.cells()[2]; got != "n/a" {
		t.Errorf("RE over a real time of 0 = %q, want n/a", got)
	}
	r = row{Real: []float64{2.0, 2.2, 2.1}, RealMops: []float64{0, 0, 0}, Pred: []float64{2.0, 2.3}, PredMops: []float64{0, 0}}
	if n := r.keepCompletePairs(); n != 2 || len(r.Real) != 2 || len(r.RealMops) != 2 {
		t.Errorf("keepCompletePairs = %d, left %v %v, want 2 pairs", n, r.Real, r.RealMops)
	}
	r.Partial, r.Why = true, "interrupted during predicted run 3: medians of the 2 runs of each side before"
	if got, want := r.cells(), [5]string{"2.10", "2.15", "+2.4%", "2.00-2.20", "2.00-2.30"}; got != want {
		t.Errorf("cells of an interrupted row = %q, want %q", got, want)
	}
	r = row{Real: []float64{1}, Why: "failed: real run 2: Verification = UNSUCCESSFUL"}
	if got := r.cells(); got != [5]string{"-", "-", "-", "-", "-"} {
		t.Errorf("cells of a failed row = %q, want dashes", got)
	}
}
