package mpi

import "reflect"

// Typed reduction kernels. Each is a plain loop over one concrete element
// type (generic functions are stenciled per underlying type, so the loops
// compile to straight arithmetic); kernel picks one per call.

type integer interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 |
		~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr
}

type ordered interface {
	integer | ~float32 | ~float64
}

// kernel returns the combining function of a predefined operation on
// elements of kind k, or nil when the operation is not defined on them.
func kernel(k reflect.Kind, code opCode) func(in, inout []byte) {
	if k < 0 || int(k) >= len(kernels) || int(code) >= len(kernels[k]) {
		return nil
	}
	return kernels[k][code]
}

// kernels holds every kernel, made once: a generic function taken as a
// value is a new closure (its type dictionary) each time, an allocation
// per reduction call.
var kernels = func() (t [reflect.Complex128 + 1][opUser]func(in, inout []byte)) {
	for k := range t {
		for code := range t[k] {
			t[k][code] = makeKernel(reflect.Kind(k), opCode(code))
		}
	}
	return t
}()

func makeKernel(k reflect.Kind, code opCode) func(in, inout []byte) {
	switch k {
	case reflect.Int:
		return intKernel[int](code)
	case reflect.Int8:
		return intKernel[int8](code)
	case reflect.Int16:
		return intKernel[int16](code)
	case reflect.Int32:
		return intKernel[int32](code)
	case reflect.Int64:
		return intKernel[int64](code)
	case reflect.Uint:
		return intKernel[uint](code)
	case reflect.Uint8:
		return intKernel[uint8](code)
	case reflect.Uint16:
		return intKernel[uint16](code)
	case reflect.Uint32:
		return intKernel[uint32](code)
	case reflect.Uint64:
		return intKernel[uint64](code)
	case reflect.Uintptr:
		return intKernel[uintptr](code)
	case reflect.Float32:
		return floatKernel[float32](code)
	case reflect.Float64:
		return floatKernel[float64](code)
	case reflect.Complex64:
		return complexKernel[complex64](code)
	case reflect.Complex128:
		return complexKernel[complex128](code)
	}
	return nil
}

func intKernel[E integer](code opCode) func(in, inout []byte) {
	switch code {
	case opLAnd:
		return landK[E]
	case opLOr:
		return lorK[E]
	case opLXor:
		return lxorK[E]
	case opBAnd:
		return bandK[E]
	case opBOr:
		return borK[E]
	case opBXor:
		return bxorK[E]
	}
	return floatKernel[E](code)
}

func floatKernel[E ordered](code opCode) func(in, inout []byte) {
	switch code {
	case opMin:
		return minK[E]
	case opMax:
		return maxK[E]
	}
	return complexKernel[E](code)
}

func complexKernel[E Numeric](code opCode) func(in, inout []byte) {
	switch code {
	case opSum:
		return sumK[E]
	case opProd:
		return prodK[E]
	}
	return nil
}

// sumK and prodK take four elements a turn: a one-element loop is a few
// instructions whose speed hung on where the linker put them (a loop
// that straddled a 64-byte line of code ran Allreduce's 1 MiB sum at
// half speed on the AMD EPYC of the development VM after an unrelated
// change moved it; docs/gompirun.md, BENCHMARKS, 2026-12-08).
func sumK[E Numeric](in, inout []byte) {
	a, b := view[E](in), view[E](inout)
	a = a[:len(b)]
	i := 0
	for ; i+4 <= len(b); i += 4 {
		x, y := a[i:i+4:i+4], b[i:i+4:i+4]
		y[0], y[1], y[2], y[3] = x[0]+y[0], x[1]+y[1], x[2]+y[2], x[3]+y[3]
	}
	for ; i < len(b); i++ {
		b[i] = a[i] + b[i]
	}
}

func prodK[E Numeric](in, inout []byte) {
	a, b := view[E](in), view[E](inout)
	a = a[:len(b)]
	i := 0
	for ; i+4 <= len(b); i += 4 {
		x, y := a[i:i+4:i+4], b[i:i+4:i+4]
		y[0], y[1], y[2], y[3] = x[0]*y[0], x[1]*y[1], x[2]*y[2], x[3]*y[3]
	}
	for ; i < len(b); i++ {
		b[i] = a[i] * b[i]
	}
}

// minK and maxK compare as C does ((a < b) ? a : b), so a NaN operand does
// not always win as it would with Go's min.
func minK[E ordered](in, inout []byte) {
	a, b := view[E](in), view[E](inout)
	a = a[:len(b)]
	for i := range b {
		if a[i] < b[i] {
			b[i] = a[i]
		}
	}
}

func maxK[E ordered](in, inout []byte) {
	a, b := view[E](in), view[E](inout)
	a = a[:len(b)]
	for i := range b {
		if a[i] > b[i] {
			b[i] = a[i]
		}
	}
}

func truth[E integer](v bool) E {
	if v {
		return 1
	}
	return 0
}

func landK[E integer](in, inout []byte) {
	a, b := view[E](in), view[E](inout)
	a = a[:len(b)]
	for i := range b {
		b[i] = truth[E](a[i] != 0 && b[i] != 0)
	}
}

func lorK[E integer](in, inout []byte) {
	a, b := view[E](in), view[E](inout)
	a = a[:len(b)]
	for i := range b {
		b[i] = truth[E](a[i] != 0 || b[i] != 0)
	}
}

func lxorK[E integer](in, inout []byte) {
	a, b := view[E](in), view[E](inout)
	a = a[:len(b)]
	for i := range b {
		b[i] = truth[E]((a[i] != 0) != (b[i] != 0))
	}
}

func bandK[E integer](in, inout []byte) {
	a, b := view[E](in), view[E](inout)
	a = a[:len(b)]
	for i := range b {
		b[i] &= a[i]
	}
}

func borK[E integer](in, inout []byte) {
	a, b := view[E](in), view[E](inout)
	a = a[:len(b)]
	for i := range b {
		b[i] |= a[i]
	}
}

func bxorK[E integer](in, inout []byte) {
	a, b := view[E](in), view[E](inout)
	a = a[:len(b)]
	for i := range b {
		b[i] ^= a[i]
	}
}
