package mpi

import (
	"errors"
	"fmt"
	"testing"
)

type myInt int16
type myFloat float64

var intOps = []Op{Sum, Prod, Min, Max, LAnd, LOr, LXor, BAnd, BOr, BXor}

// checkKernel applies op's kernel to two random vectors of T and compares
// with the scalar reference f.
func checkKernel[T ordered](op Op, f func(a, b T) T) error {
	rd, err := reductionFor[T](op)
	if err != nil {
		return err
	}
	for _, k := range []int{0, 1, 3, 6, 257} { // sumK and prodK take four a turn
		in := gen[T](3, 0, k, op == Prod)
		inout := gen[T](3, 1, k, op == Prod)
		want := make([]T, k)
		for i := range want {
			want[i] = f(in[i], inout[i])
		}
		rd.apply(asBytes(in), asBytes(inout))
		if err := equalOrErr(fmt.Sprintf("%s on %T", op, in), inout, want); err != nil {
			return err
		}
	}
	return nil
}

func intKernels[T integer](t *testing.T) {
	for _, op := range intOps {
		if err := checkKernel(op, scalarInt[T](op)); err != nil {
			t.Error(err)
		}
	}
}

func floatKernels[T ~float32 | ~float64](t *testing.T) {
	for _, op := range intOps {
		if f := scalar[T](op); f != nil {
			if err := checkKernel(op, f); err != nil {
				t.Error(err)
			}
			continue
		}
		if _, err := reductionFor[T](op); !errors.Is(err, ErrOp) {
			t.Errorf("%s on %T: got %v, want an ErrOp error", op, T(0), err)
		}
	}
}

func complexKernels[T ~complex64 | ~complex128](t *testing.T) {
	for _, op := range intOps {
		rd, err := reductionFor[T](op)
		if op != Sum && op != Prod {
			if !errors.Is(err, ErrOp) {
				t.Errorf("%s on %T: got %v, want an ErrOp error", op, T(0), err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		// Seven: a turn of four elements and three alone (sumK, prodK).
		in := []T{complex(1, 2), complex(-3, 0.5), 1i, 2, complex(0.5, -1), -1i, complex(3, 3)}
		inout := []T{complex(2, -1), complex(4, 4), 3, complex(-2, 1), 1i, complex(1, 1), -2}
		want := make([]T, len(in))
		for i := range want {
			if op == Sum {
				want[i] = in[i] + inout[i]
			} else {
				want[i] = in[i] * inout[i]
			}
		}
		rd.apply(asBytes(in), asBytes(inout))
		if err := equalOrErr(op.String(), inout, want); err != nil {
			t.Error(err)
		}
	}
}

// TestOpKernels: every predefined operation on every Numeric kind (and
// named types), against the scalar definition; undefined combinations are
// ErrOp errors.
func TestOpKernels(t *testing.T) {
	intKernels[int](t)
	intKernels[int8](t)
	intKernels[int16](t)
	intKernels[int32](t)
	intKernels[int64](t)
	intKernels[uint](t)
	intKernels[uint8](t)
	intKernels[uint16](t)
	intKernels[uint32](t)
	intKernels[uint64](t)
	intKernels[uintptr](t)
	intKernels[myInt](t)
	floatKernels[float32](t)
	floatKernels[float64](t)
	floatKernels[myFloat](t)
	complexKernels[complex64](t)
	complexKernels[complex128](t)
}

// TestOpOrder: applyRev keeps the lower ranks' operand on the left for a
// non-commutative operation.
func TestOpOrder(t *testing.T) {
	op := NewOp(affine, false)
	if op.Commutative() {
		t.Fatal("affine reported commutative")
	}
	rd, err := reductionFor[complex128](op)
	if err != nil {
		t.Fatal(err)
	}
	lo, hi := complex(2, 1), complex(3, 5) // x -> 2x+1, then x -> 3x+5
	want := complex(6, 8)                  // x -> 3(2x+1)+5
	a, b := []complex128{lo}, []complex128{hi}
	rd.apply(asBytes(a), asBytes(b))
	if b[0] != want {
		t.Errorf("apply: %v, want %v", b[0], want)
	}
	a, b = []complex128{lo}, []complex128{hi}
	rd.applyRev(asBytes(a), asBytes(b))
	if a[0] != want {
		t.Errorf("applyRev: %v, want %v", a[0], want)
	}
	if Sum.String() != "Sum" || (Op{}).String() != "OpNull" || !MaxLoc.Commutative() {
		t.Error("Op names or commutativity wrong")
	}
}

// BenchmarkOpKernel measures the reduction kernels (no communication):
// predefined Sum on float64 and int32, and a user-defined Sum for contrast.
func BenchmarkOpKernel(b *testing.B) {
	const k = 1 << 16
	bench := func(name string, rd reduction, in, inout []byte) {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(inout)))
			for b.Loop() {
				rd.apply(in, inout)
			}
		})
	}
	f64, _ := reductionFor[float64](Sum)
	bench("Sum/float64", f64, asBytes(make([]float64, k)), asBytes(make([]float64, k)))
	i32, _ := reductionFor[int32](BXor)
	bench("BXor/int32", i32, asBytes(make([]int32, k)), asBytes(make([]int32, k)))
	mx, _ := reductionFor[float64](Max)
	bench("Max/float64", mx, asBytes(make([]float64, k)), asBytes(make([]float64, k)))
	user, _ := reductionFor[float64](NewOp(func(in, inout []float64) {
		for i := range inout {
			inout[i] += in[i]
		}
	}, true))
	bench("UserSum/float64", user, asBytes(make([]float64, k)), asBytes(make([]float64, k)))
}
