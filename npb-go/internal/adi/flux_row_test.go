package adi

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
)

// TestFluxRowAVX2: fluxRow gives bit for bit the same right-hand side with
// the fused AVX2 kernel as with the Go loops, along every axis and at every
// row length, and writes nothing outside the row (the last group's masked
// stores).
func TestFluxRowAVX2(t *testing.T) {
	if !haveAVX2 {
		t.Skip("no AVX2 kernels on this CPU or build")
	}
	defer func(v bool) { haveAVX2 = v }(haveAVX2)
	rng := rand.New(rand.NewPCG(5, 6))
	fill := func(a []float64) {
		for i := range a {
			a[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(5)-2))
		}
	}
	const row, plane = 80, 80 * 6
	cv := 3 * plane
	s := &State{cv: cv, stride: [3]int{1, row, plane}}
	s.k.c1, s.k.c2, s.k.con43 = 1.4, 0.4, 4.0/3
	for d := range s.fc {
		f := &s.fc[d]
		f.t2, f.con2, f.con3, f.con4, f.con5 = rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()
		fill(f.dd[:])
	}
	cl := &cell{u: make([]float64, 5*cv), rhs: make([]float64, 5*cv)}
	for _, a := range []*[]float64{&cl.us, &cl.vs, &cl.ws, &cl.qs, &cl.rhoI, &cl.square} {
		*a = make([]float64, cv)
	}
	fill(cl.u)
	for _, a := range [][]float64{cl.us, cl.vs, cl.ws, cl.qs, cl.rhoI, cl.square} {
		fill(a)
	}
	for d := range 3 {
		for n := 1; n <= 72; n++ {
			b := plane + row + 3
			if !fluxRowVector(cl, b, n, s.stride[d], cv) {
				t.Fatalf("axis %d, %d points: the fused kernel does not take the row", d, n)
			}
			fill(cl.rhs)
			start := append([]float64(nil), cl.rhs...)
			haveAVX2 = false
			s.fluxRow(cl, d, b, n)
			want := append([]float64(nil), cl.rhs...)
			copy(cl.rhs, start)
			haveAVX2 = true
			s.fluxRow(cl, d, b, n)
			for i := range want {
				if math.Float64bits(cl.rhs[i]) != math.Float64bits(want[i]) {
					t.Fatalf("axis %d, %d points: rhs[%d] (component %d, point %d of the row) is %v with AVX2, %v in Go",
						d, n, i, i/cv, i%cv-b, cl.rhs[i], want[i])
				}
			}
		}
	}
}

// TestFluxRowArgsLayout: the byte offsets flux_row_amd64.s reads
// fluxRowArgs at are its fields' offsets.
func TestFluxRowArgsLayout(t *testing.T) {
	asm := map[string]uintptr{
		"r0": 0, "u0": 8, "uN": 16, "rN": 24, "uT1": 32, "rT1": 40, "tT1": 48,
		"uT2": 56, "rT2": 64, "tT2": 72, "v": 80, "u4": 88, "r4": 96,
		"sq": 104, "qs": 112, "ri": 120, "sd": 128, "mask": 136,
		"d0": 168, "dN": 176, "dT1": 184, "dT2": 192, "d4": 200,
		"t2": 208, "con2": 216, "cc43": 224, "c1": 232, "c2": 240,
		"con3": 248, "con4": 256, "con5": 264,
	}
	typ := reflect.TypeFor[fluxRowArgs]()
	if typ.NumField() != len(asm) {
		t.Fatalf("fluxRowArgs has %d fields, the assembly knows %d", typ.NumField(), len(asm))
	}
	for i := range typ.NumField() {
		f := typ.Field(i)
		if off, ok := asm[f.Name]; !ok || off != f.Offset {
			t.Errorf("field %s at offset %d, the assembly reads %d (known: %v)", f.Name, f.Offset, off, ok)
		}
	}
}
