package main

import (
	"math"
	"testing"
)

// A wrong checksum must fail verification, whichever iteration it is (so
// every checksum is compared, not only the first), by an error above the
// 1e-12 tolerance.
func TestVerificationRejectsWrongChecksums(t *testing.T) {
	ref := checksumRef['S']
	quiet := func(string, ...any) {}
	if !verify('S', append([]complex128(nil), ref...), quiet) {
		t.Fatal("the published checksums do not verify")
	}
	for i := range ref {
		for _, wrong := range []complex128{
			ref[i] * (1 + 1e-9),
			ref[i] + complex(0, 1e-9*real(ref[i])),
			complex(math.NaN(), imag(ref[i])),
		} {
			sums := append([]complex128(nil), ref...)
			sums[i] = wrong
			if verify('S', sums, quiet) {
				t.Errorf("checksum %d = %v (published %v): verified", i, wrong, ref[i])
			}
		}
	}
	if verify('S', ref[:len(ref)-1], quiet) {
		t.Error("a missing checksum verified")
	}
}
