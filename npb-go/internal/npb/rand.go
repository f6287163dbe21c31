// Package npb holds what the NAS Parallel Benchmarks kernels share: the NPB
// pseudorandom generator, problem classes, the standard result block and
// per-rank timers.
package npb

// The NPB generator is the linear congruential x_{k+1} = a*x_k mod 2^46,
// computed exactly in float64 by splitting operands into 23-bit halves
// (NPB 3.4 common/randdp.f). Every kernel's verification values depend on
// this sequence, so the arithmetic below must not be "simplified".
const (
	r23 = 1.0 / (1 << 23) // 0.5^23
	r46 = r23 * r23       // 0.5^46
	t23 = 1 << 23         // 2^23
	t46 = float64(t23) * t23
)

// Randlc advances the seed *x to a*x mod 2^46 and returns the new seed
// scaled to (0, 1) (NPB's randlc). x and a must be odd integers below 2^46
// held in float64.
func Randlc(x *float64, a float64) float64 {
	// Break a into two parts such that a = 2^23 * a1 + a2.
	t1 := r23 * a
	a1 := float64(int64(t1))
	a2 := a - t23*a1

	// Break x likewise, then z = a1*x2 + a2*x1 mod 2^23 and
	// x = 2^23*z + a2*x2 mod 2^46.
	t1 = r23 * *x
	x1 := float64(int64(t1))
	x2 := *x - t23*x1
	t1 = a1*x2 + a2*x1
	t2 := float64(int64(r23 * t1))
	z := t1 - t23*t2
	t3 := t23*z + a2*x2
	t4 := float64(int64(r46 * t3))
	*x = t3 - t46*t4
	return r46 * *x
}

// Pow46 is a^n mod 2^46 in the generator's exact arithmetic: the multiplier
// that advances a seed by n steps of the sequence with multiplier a (NPB's
// jump-ahead, which the reference writes once per kernel: EP's seed loop,
// IS's find_my_seed, MG's power, FT's ipow46). Multiplication mod 2^46 is
// exact here, so the order of the squarings does not change the result.
// n must be non-negative.
func Pow46(a float64, n int64) float64 {
	r := 1.0
	for ; n > 0; n >>= 1 {
		if n&1 == 1 {
			Randlc(&r, a)
		}
		if n > 1 {
			Randlc(&a, a)
		}
	}
	return r
}

// SkipAhead returns the seed n steps of the sequence after seed.
func SkipAhead(seed, a float64, n int64) float64 {
	Randlc(&seed, Pow46(a, n))
	return seed
}

// Vranlc fills y[0:n] with the next n values of the sequence seeded by *x
// with multiplier a, leaving *x at the last seed (NPB's vranlc).
func Vranlc(n int, x *float64, a float64, y []float64) {
	y = y[:n]
	t1 := r23 * a
	a1 := float64(int64(t1))
	a2 := a - t23*a1
	xv := *x
	for i := range y {
		t1 = r23 * xv
		x1 := float64(int64(t1))
		x2 := xv - t23*x1
		t1 = a1*x2 + a2*x1
		t2 := float64(int64(r23 * t1))
		z := t1 - t23*t2
		t3 := t23*z + a2*x2
		t4 := float64(int64(r46 * t3))
		xv = t3 - t46*t4
		y[i] = r46 * xv
	}
	*x = xv
}

// mask46 keeps the low 46 bits: reduction mod 2^46.
const mask46 = 1<<46 - 1

// VranlcI8 is Vranlc computed in 64-bit integers, as NPB 3.4's alternative
// generator common/randi8.f does. The product's low 64 bits are exact even
// when it overflows, so the sequence is bit-for-bit Vranlc's (the tests
// check it); it is several times faster where generation is timed.
func VranlcI8(n int, x *float64, a float64, y []float64) {
	y = y[:n]
	lx, la := int64(*x), int64(a)
	for i := range y {
		lx = (lx * la) & mask46
		y[i] = r46 * float64(lx)
	}
	*x = float64(lx)
}
