package main

import "math"

// logOn01 is the natural logarithm for EP's arguments, which lie in
// (0, 1]. EP spends a third of its time in math.Log, whose division-based
// algorithm is about twice as slow as the C library's table-driven one the
// reference uses; this is a table-driven one. It reduces x = 2^k * z with z
// in [0.6875, 1.375), picks the tabulated point 1/invc nearest z, and
// computes log(x) = k*ln2 - log(invc) + log1p(z*invc - 1) with a short
// series, |z*invc - 1| < 2^-8. Close to 1, where that sum cancels, and for
// zeros, subnormals and non-finite values it defers to math.Log. Its error
// is within a few units in the last place of math.Log's (the tests bound
// it), far inside EP's verification tolerance of 1e-8 on the sums.
func logOn01(x float64) float64 {
	ix := math.Float64bits(x)
	// Normal positive finite x only, and not within 1/32 of 1.
	if ix-0x0010000000000000 >= 0x7fe0000000000000 || math.Abs(x-1) < 1.0/32 {
		return math.Log(x)
	}
	tmp := ix - logOff
	i := (tmp >> (52 - logTableBits)) % logTableN
	k := int64(tmp) >> 52
	z := math.Float64frombits(ix - tmp&(0xfff<<52))
	e := &logTable[i]
	r := math.FMA(z, e.invc, -1)
	// log1p(r) = r - r^2/2 + r^3/3 - ..., truncated at r^7 (|r| < 2^-8).
	r2 := r * r
	p := r2 * (-0.5 + r*(1.0/3+r*(-0.25+r*(0.2+r*(-1.0/6+r*(1.0/7))))))
	return float64(k)*math.Ln2 + e.logc + r + p
}

const (
	logTableBits = 7
	logTableN    = 1 << logTableBits
	// logOff is the bit pattern of 0.6875, the low end of z's range.
	logOff = 0x3fe6000000000000
)

type logEntry struct{ invc, logc float64 }

// logTable holds, for each of the 128 subintervals of z's range, the
// reciprocal of its midpoint and minus that reciprocal's logarithm. It is
// computed once and only read afterwards.
var logTable = func() (t [logTableN]logEntry) {
	for i := range t {
		// z's bits are logOff plus tmp's mantissa field, so the midpoint
		// of subinterval i is at mantissa offset (i+0.5)/N; the carry into
		// the exponent at z = 1 falls on a subinterval boundary.
		c := math.Float64frombits(logOff + uint64(i)<<(52-logTableBits) + 1<<(51-logTableBits))
		t[i].invc = 1 / c
		t[i].logc = -math.Log(t[i].invc)
	}
	return t
}()
