package main

import (
	"math"
	"strings"
	"testing"
)

// The published values verify; any of the eleven off by more than the
// 1e-8 tolerance (relative), a NaN, or a dt not the class's, does not.
func TestVerificationRejectsWrongValues(t *testing.T) {
	p := classes['S']
	check := func(name string, xcr, xce [5]float64, xci, dt float64, want bool) {
		t.Helper()
		var b strings.Builder
		if got := verify(&b, 'S', p, dt, xcr, xce, xci); got != want {
			t.Errorf("%s: verified %v, want %v\n%s", name, got, want, b.String())
		}
	}
	check("published", p.xcr, p.xce, p.xci, p.dt, true)
	check("within 1e-10", p.xcr, p.xce, p.xci*(1+1e-10), p.dt, true)
	for m := 0; m < 5; m++ {
		xcr, xce := p.xcr, p.xce
		xcr[m] *= 1 + 1e-6
		check("xcr off", xcr, p.xce, p.xci, p.dt, false)
		xce[m] = math.NaN()
		check("xce NaN", p.xcr, xce, p.xci, p.dt, false)
	}
	check("xci off", p.xcr, p.xce, p.xci*(1-1e-7), p.dt, false)
	check("xci NaN", p.xcr, p.xce, math.NaN(), p.dt, false)
	check("dt", p.xcr, p.xce, p.xci, p.dt*2, false)
}

func TestClassParams(t *testing.T) {
	for class, want := range map[byte][3]float64{
		'S': {12, 50, 0.5}, 'W': {33, 300, 1.5e-3}, 'A': {64, 250, 2},
		'B': {102, 250, 2}, 'C': {162, 250, 2},
	} {
		p := classes[class]
		if float64(p.size) != want[0] || float64(p.itmax) != want[1] || p.dt != want[2] {
			t.Errorf("class %c: %d^3, %d steps, dt %g", class, p.size, p.itmax, p.dt)
		}
	}
}
