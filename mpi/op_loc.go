package mpi

import (
	"reflect"
	"unsafe"
)

// ValIdx is a value paired with an index, the element type MaxLoc and
// MinLoc work on (MPI_DOUBLE_INT, MPI_2INT and the like). Idx is usually the
// rank that owns Val, or a position in an array.
type ValIdx[T Numeric] struct {
	Val T
	Idx int
}

// ReduceLoc is Reduce on value-index pairs with MaxLoc or MinLoc: for each
// element, root receives the largest (smallest) Val and, among equal ones,
// the smallest Idx.
func ReduceLoc[T Numeric](c *Comm, send, recv []ValIdx[T], op Op, root int) error {
	c.enter(callReduce, root, 0) // a user-level call, as Reduce
	defer c.leave()
	noteRed[T](c, op, false, true, len(send))
	rd, err := locReduction[T](op)
	if err != nil {
		return err
	}
	var out []byte
	if c != nil && c.rank == root {
		if len(recv) < len(send) {
			return errorf(ClassCount, "ReduceLoc: receive buffer of %d pairs is shorter than the %d sent", len(recv), len(send))
		}
		out = bytesOf(recv[:len(send)])
	}
	return c.reduce(bytesOf(send), out, &rd, root)
}

// AllreduceLoc is Allreduce on value-index pairs with MaxLoc or MinLoc.
func AllreduceLoc[T Numeric](c *Comm, send, recv []ValIdx[T], op Op) error {
	c.enter(callAllreduce, 0, 0)
	defer c.leave()
	noteRed[T](c, op, false, true, len(send))
	rd, err := locReduction[T](op)
	if err != nil {
		return err
	}
	if len(recv) < len(send) {
		return errorf(ClassCount, "AllreduceLoc: receive buffer of %d pairs is shorter than the %d sent", len(recv), len(send))
	}
	return c.allreduce(bytesOf(send), bytesOf(recv[:len(send)]), &rd)
}

// AllreduceLocInPlace is AllreduceLoc with MPI_IN_PLACE.
func AllreduceLocInPlace[T Numeric](c *Comm, buf []ValIdx[T], op Op) error {
	c.enter(callAllreduce, 0, 0)
	defer c.leave()
	noteRed[T](c, op, true, true, len(buf))
	rd, err := locReduction[T](op)
	if err != nil {
		return err
	}
	return c.allreduce(bytesOf(buf), bytesOf(buf), &rd)
}

// locReduction binds MaxLoc or MinLoc to pairs of T, or says why not.
func locReduction[T Numeric](op Op) (reduction, error) {
	rd := reduction{size: int(unsafe.Sizeof(ValIdx[T]{})), commute: true, builtin: true}
	if op.d == nil || op.d.code != opMaxLoc && op.d.code != opMinLoc {
		return rd, errorf(ClassOp, "operation %s does not apply to ValIdx pairs (only MaxLoc and MinLoc do)", op)
	}
	rd.fn = locKernel(reflect.TypeFor[T]().Kind(), op.d.code == opMaxLoc)
	if rd.fn == nil {
		return rd, errorf(ClassOp, "%s is not defined on %s values", op, reflect.TypeFor[T]())
	}
	return rd, nil
}

func locKernel(k reflect.Kind, isMax bool) func(in, inout []byte) {
	switch k {
	case reflect.Int:
		return locK[int](isMax)
	case reflect.Int8:
		return locK[int8](isMax)
	case reflect.Int16:
		return locK[int16](isMax)
	case reflect.Int32:
		return locK[int32](isMax)
	case reflect.Int64:
		return locK[int64](isMax)
	case reflect.Uint:
		return locK[uint](isMax)
	case reflect.Uint8:
		return locK[uint8](isMax)
	case reflect.Uint16:
		return locK[uint16](isMax)
	case reflect.Uint32:
		return locK[uint32](isMax)
	case reflect.Uint64:
		return locK[uint64](isMax)
	case reflect.Uintptr:
		return locK[uintptr](isMax)
	case reflect.Float32:
		return locK[float32](isMax)
	case reflect.Float64:
		return locK[float64](isMax)
	}
	return nil
}

// locK returns the MaxLoc or MinLoc kernel on pairs of E. A pair of a named
// type T has the layout of ValIdx[E] for T's underlying E.
func locK[E ordered](isMax bool) func(in, inout []byte) {
	if isMax {
		return func(in, inout []byte) {
			a, b := view[ValIdx[E]](in), view[ValIdx[E]](inout)
			a = a[:len(b)]
			for i := range b {
				switch {
				case a[i].Val > b[i].Val:
					b[i] = a[i]
				case a[i].Val == b[i].Val && a[i].Idx < b[i].Idx:
					b[i].Idx = a[i].Idx
				}
			}
		}
	}
	return func(in, inout []byte) {
		a, b := view[ValIdx[E]](in), view[ValIdx[E]](inout)
		a = a[:len(b)]
		for i := range b {
			switch {
			case a[i].Val < b[i].Val:
				b[i] = a[i]
			case a[i].Val == b[i].Val && a[i].Idx < b[i].Idx:
				b[i].Idx = a[i].Idx
			}
		}
	}
}
