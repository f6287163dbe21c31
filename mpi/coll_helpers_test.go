package mpi

import (
	"fmt"
	"slices"
)

// Test inputs and brute-force references for the collective tests. Every
// rank can compute every rank's input, so each checks its own result
// against a sequential computation without further communication.

// hval is a deterministic pseudo-random small integer in [-20, 20] for
// (seed, rank, index): integer-valued inputs make floating-point sums and
// products exact whatever order an algorithm combines them in.
func hval(seed, r, i int) int64 {
	h := uint64(seed)*0x9E3779B97F4A7C15 ^ uint64(r+1)*0xC2B2AE3D27D4EB4F ^ uint64(i+7)*0x165667B19E3779F9
	h ^= h >> 29
	h *= 0xBF58476D1CE4E5B9
	h ^= h >> 32
	return int64(h%41) - 20
}

// gen is rank r's input of k elements. For Prod the values are in
// {-2, -1, 1, 2} so products of 64 of them stay exact in float32.
func gen[T ordered](seed, r, k int, forProd bool) []T {
	v := make([]T, k)
	for i := range v {
		x := hval(seed, r, i)
		if forProd {
			x = []int64{-2, -1, 1, 2}[(x+20)%4]
		}
		v[i] = T(x)
	}
	return v
}

// scalar is op on one pair (a from lower ranks), computed the obvious way.
func scalar[T ordered](op Op) func(a, b T) T {
	switch op.d.code {
	case opSum:
		return func(a, b T) T { return a + b }
	case opProd:
		return func(a, b T) T { return a * b }
	case opMin:
		return func(a, b T) T { return min(a, b) }
	case opMax:
		return func(a, b T) T { return max(a, b) }
	}
	return nil
}

func scalarInt[T integer](op Op) func(a, b T) T {
	b2 := func(v bool) T {
		if v {
			return 1
		}
		return 0
	}
	switch op.d.code {
	case opLAnd:
		return func(a, b T) T { return b2(a != 0 && b != 0) }
	case opLOr:
		return func(a, b T) T { return b2(a != 0 || b != 0) }
	case opLXor:
		return func(a, b T) T { return b2((a != 0) != (b != 0)) }
	case opBAnd:
		return func(a, b T) T { return a & b }
	case opBOr:
		return func(a, b T) T { return a | b }
	case opBXor:
		return func(a, b T) T { return a ^ b }
	}
	return scalar[T](op)
}

// fold combines vals[lo..hi) in rank order.
func fold[T any](f func(a, b T) T, vals [][]T, lo, hi int) []T {
	acc := slices.Clone(vals[lo])
	for r := lo + 1; r < hi; r++ {
		for i := range acc {
			acc[i] = f(acc[i], vals[r][i])
		}
	}
	return acc
}

func equalOrErr[T comparable](what string, got, want []T) error {
	if len(got) != len(want) {
		return fmt.Errorf("%s: got %d elements, want %d", what, len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			return fmt.Errorf("%s: element %d is %v, want %v", what, i, got[i], want[i])
		}
	}
	return nil
}

// vLayout is a Gatherv-style layout of n blocks with varying counts (some
// zero) stored in reverse rank order with gaps, so no algorithm can assume
// blocks are packed.
func vLayout(n, k, seed int) (counts, displs []int, total int) {
	counts = make([]int, n)
	displs = make([]int, n)
	for i := range counts {
		counts[i] = (i*7 + seed) % (k + 1)
	}
	for i := n - 1; i >= 0; i-- {
		displs[i] = total + 1
		total += counts[i] + 1
	}
	return counts, displs, total
}

// affine is the test's non-commutative, associative user operation:
// complex(a, b) stands for x -> a*x + b, and in ∘ inout applies in first.
func affine(in, inout []complex128) {
	for i := range inout {
		a1, b1 := real(in[i]), imag(in[i])
		a2, b2 := real(inout[i]), imag(inout[i])
		inout[i] = complex(a1*a2, a2*b1+b2)
	}
}

func affineScalar(x, y complex128) complex128 {
	out := []complex128{y}
	affine([]complex128{x}, out)
	return out[0]
}

// genAffine is rank r's input for the affine operation: slopes ±1 and
// small integer offsets keep every composition exact.
func genAffine(seed, r, k int) []complex128 {
	v := make([]complex128, k)
	for i := range v {
		a := 1.0
		if hval(seed, r, i)%2 == 0 {
			a = -1
		}
		v[i] = complex(a, float64(hval(seed+1, r, i)))
	}
	return v
}
