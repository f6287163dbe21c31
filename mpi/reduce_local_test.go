package mpi

import (
	"errors"
	"math/rand"
	"testing"
)

// ReduceLocal against element-by-element reference results, for built-in
// operations on several types, a non-commutative user operation (in must
// be the left operand) and MinLoc pairs; and its errors.
func TestReduceLocal(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, n := range []int{0, 1, 7, 100} {
		in, inout := make([]int64, n), make([]int64, n)
		for i := range in {
			in[i], inout[i] = rng.Int63n(100)-50, rng.Int63n(100)-50
		}
		for _, c := range []struct {
			op  Op
			ref func(a, b int64) int64
		}{
			{Sum, func(a, b int64) int64 { return a + b }},
			{Prod, func(a, b int64) int64 { return a * b }},
			{Max, func(a, b int64) int64 { return max(a, b) }},
			{BXor, func(a, b int64) int64 { return a ^ b }},
			// a ∘ b = 2a + b: not commutative, so the order is checked.
			{NewOp(func(in, inout []int64) {
				for i := range in {
					inout[i] = 2*in[i] + inout[i]
				}
			}, false), func(a, b int64) int64 { return 2*a + b }},
		} {
			got := append([]int64(nil), inout...)
			if err := ReduceLocal(in, got, c.op); err != nil {
				t.Fatalf("%v: %v", c.op, err)
			}
			for i := range got {
				if want := c.ref(in[i], inout[i]); got[i] != want {
					t.Fatalf("%v on %d elements: [%d] = %d, want %d", c.op, n, i, got[i], want)
				}
			}
		}
	}
	f := []float32{1.5, -2}
	g := []float32{0.5, 3}
	if err := ReduceLocal(f, g, Min); err != nil || g[0] != 0.5 || g[1] != -2 {
		t.Fatalf("Min on float32: %v %v", g, err)
	}
	a := []ValIdx[float64]{{1, 3}, {5, 0}}
	b := []ValIdx[float64]{{1, 2}, {4, 1}}
	if err := ReduceLocalLoc(a, b, MinLoc); err != nil || b[0] != (ValIdx[float64]{1, 2}) || b[1] != (ValIdx[float64]{4, 1}) {
		t.Fatalf("MinLoc: %v %v", b, err)
	}
	if err := ReduceLocal([]int{1}, []int{1, 2}, Sum); !errors.Is(err, ErrCount) {
		t.Fatalf("lengths 1 and 2: %v", err)
	}
	if err := ReduceLocal([]int{1}, []int{1}, Op{}); !errors.Is(err, ErrOp) {
		t.Fatalf("null op: %v", err)
	}
	if err := ReduceLocal([]float64{1}, []float64{1}, BAnd); !errors.Is(err, ErrOp) {
		t.Fatalf("BAnd on float64: %v", err)
	}
	if err := ReduceLocalLoc(a, b, Sum); !errors.Is(err, ErrOp) {
		t.Fatalf("Sum on pairs: %v", err)
	}
}
