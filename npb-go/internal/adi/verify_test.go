package adi

import (
	"math"
	"strings"
	"testing"
)

// A norm off by more than the 1e-8 relative tolerance, a NaN, or a time
// step other than the class's fails verification.
func TestVerificationRejectsWrongNorms(t *testing.T) {
	for _, b := range []*Benchmark{BT, SP} {
		t.Run(b.name, func(t *testing.T) { testRejectsWrongNorms(t, b.classes['S']) })
	}
}

func testRejectsWrongNorms(t *testing.T, p params) {
	for _, tc := range []struct {
		name   string
		scale  float64 // applied to xcr[2]
		dt     float64
		xceNaN bool
		ok     bool
	}{
		{"exact", 1, p.dt, false, true},
		{"within", 1 + 1e-10, p.dt, false, true},
		{"off", 1 + 1e-6, p.dt, false, false},
		{"nan", 1, p.dt, true, false},
		{"dt", 1, p.dt * 2, false, false},
	} {
		xcr, xce := p.xcr, p.xce
		xcr[2] *= tc.scale
		if tc.xceNaN {
			xce[4] = math.NaN()
		}
		var b strings.Builder
		if got := verifyNorms(&b, 'S', p, tc.dt, xcr, xce); got != tc.ok {
			t.Errorf("%s: verified %v, want %v\n%s", tc.name, got, tc.ok, b.String())
		}
		if !tc.ok && tc.name != "dt" && !strings.Contains(b.String(), " FAILURE: ") {
			t.Errorf("%s: no FAILURE line\n%s", tc.name, b.String())
		}
	}
}
