package main

import (
	"math"
	"math/rand/v2"
	"testing"
)

// ulps is the distance between a and b in units in the last place of b.
func ulps(a, b float64) float64 {
	if a == b {
		return 0
	}
	return math.Abs(a-b) / (math.Nextafter(math.Abs(b), math.Inf(1)) - math.Abs(b))
}

func TestLogOn01(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	worst := 0.0
	check := func(x float64) {
		got, want := logOn01(x), math.Log(x)
		if math.IsNaN(want) || math.IsInf(want, 0) {
			if got != want && !(math.IsNaN(got) && math.IsNaN(want)) {
				t.Fatalf("log(%v) = %v, want %v", x, got, want)
			}
			return
		}
		if u := ulps(got, want); u > worst {
			worst = u
			if u > 3 {
				t.Fatalf("log(%v) = %v, math.Log %v: %.1f ulp", x, got, want, u)
			}
		}
	}
	for i := 0; i < 2000000; i++ {
		check(rng.Float64())
		check(math.Ldexp(rng.Float64(), -rng.IntN(100)))
	}
	for _, x := range []float64{0, -1, 1, 0.5, 0.6875, 0.96875, 0.96874, 1.0 / 3, 1 - 1.0/32, 1e-300, 5e-324,
		math.Nextafter(1, 0), math.Nextafter(0.6875, 0), math.Inf(1), math.NaN(), 2, 1.375, 1e300} {
		check(x)
	}
	t.Logf("worst error %.2f ulp", worst)
}

func BenchmarkLogOn01(b *testing.B) {
	in := make([]float64, 4096)
	for i := range in {
		in[i] = (float64(i) + 0.5) / 4096
	}
	s := 0.0
	for i := 0; i < b.N; i++ {
		for _, v := range in {
			s += logOn01(v)
		}
	}
	_ = s
}

func BenchmarkMathLog(b *testing.B) {
	in := make([]float64, 4096)
	for i := range in {
		in[i] = (float64(i) + 0.5) / 4096
	}
	s := 0.0
	for i := 0; i < b.N; i++ {
		for _, v := range in {
			s += math.Log(v)
		}
	}
	_ = s
}
