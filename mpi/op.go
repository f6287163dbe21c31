package mpi

import (
	"reflect"
	"unsafe"
)

// Op is a reduction operation (MPI_Op): one of the predefined operations
// (Sum, Prod, Min, Max, LAnd, LOr, LXor, BAnd, BOr, BXor, MaxLoc, MinLoc) or
// a user-defined one made by NewOp. The zero Op is MPI_OP_NULL: using it is
// an ErrOp error.
type Op struct{ d *opDef }

type opCode uint8

const (
	opNull opCode = iota
	opSum
	opProd
	opMin
	opMax
	opLAnd
	opLOr
	opLXor
	opBAnd
	opBOr
	opBXor
	opMaxLoc
	opMinLoc
	opUser
)

type opDef struct {
	code    opCode
	name    string
	commute bool
	user    any          // func(in, inout []T) for opUser
	elem    reflect.Type // T of a user-defined operation
}

func builtin(code opCode, name string) Op {
	return Op{&opDef{code: code, name: name, commute: true}}
}

// The predefined operations. The logical ones (LAnd, LOr, LXor) apply to
// integers as in C: zero is false, any other value true, results are 0 or 1.
// Bitwise ones apply to integers only; Min and Max to integers and floats;
// Sum and Prod to every Numeric type. MaxLoc and MinLoc apply to ValIdx
// pairs through ReduceLoc and AllreduceLoc.
var (
	Sum    = builtin(opSum, "Sum")
	Prod   = builtin(opProd, "Prod")
	Min    = builtin(opMin, "Min")
	Max    = builtin(opMax, "Max")
	LAnd   = builtin(opLAnd, "LAnd")
	LOr    = builtin(opLOr, "LOr")
	LXor   = builtin(opLXor, "LXor")
	BAnd   = builtin(opBAnd, "BAnd")
	BOr    = builtin(opBOr, "BOr")
	BXor   = builtin(opBXor, "BXor")
	MaxLoc = builtin(opMaxLoc, "MaxLoc")
	MinLoc = builtin(opMinLoc, "MinLoc")
)

// NewOp makes a user-defined operation on elements of type T
// (MPI_Op_create). fn must set inout[i] = in[i] ∘ inout[i] for every i,
// where in holds the contribution of lower-ranked processes. An operation
// that is not commutative (commutative false) must still be associative; the
// library then combines contributions strictly in rank order, and chooses
// algorithms that preserve that order. The operation may be used only with
// buffers of element type T; other types give an ErrOp error.
func NewOp[T Numeric](fn func(in, inout []T), commutative bool) Op {
	if fn == nil {
		return Op{}
	}
	return Op{&opDef{code: opUser, name: "user(" + reflect.TypeFor[T]().String() + ")",
		commute: commutative, user: fn, elem: reflect.TypeFor[T]()}}
}

// String is the operation's name.
func (o Op) String() string {
	if o.d == nil {
		return "OpNull"
	}
	return o.d.name
}

// Commutative reports whether the operation is commutative
// (MPI_Op_commutative).
func (o Op) Commutative() bool { return o.d != nil && o.d.commute }

// reduction is an operation bound to one element type: a combining function
// on the buffers' bytes, chosen once per call so the inner loops are typed
// and free of per-element interface calls.
type reduction struct {
	size    int                    // bytes per element
	fn      func(in, inout []byte) // inout = in ∘ inout; in holds lower ranks
	commute bool
	builtin bool // a predefined operation: MPICH picks some algorithms only for these
}

// apply sets inout = in ∘ inout, where in comes from lower ranks.
func (rd *reduction) apply(in, inout []byte) { rd.fn(in, inout) }

// applyRev sets acc = acc ∘ in, where acc comes from lower ranks. It may
// overwrite in.
func (rd *reduction) applyRev(acc, in []byte) {
	if rd.commute {
		rd.fn(in, acc)
		return
	}
	rd.fn(acc, in)
	copy(acc, in)
}

// view reinterprets a byte buffer as a slice of E (the caller knows the bytes
// hold Es).
func view[E any](b []byte) []E {
	if len(b) == 0 {
		return nil
	}
	var z E
	return unsafe.Slice((*E)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/int(unsafe.Sizeof(z)))
}

// bytesOf views any slice as its bytes without copying.
func bytesOf[E any](s []E) []byte {
	if len(s) == 0 {
		return nil
	}
	var z E
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(z)))
}

// reductionFor binds op to element type T: it picks the typed kernel of T's
// underlying kind once, or reports why op does not apply to T.
func reductionFor[T Numeric](op Op) (reduction, error) {
	rd := reduction{size: sizeOf[T](), commute: op.Commutative()}
	if op.d == nil {
		return rd, errorf(ClassOp, "null reduction operation")
	}
	t := reflect.TypeFor[T]()
	switch op.d.code {
	case opUser:
		fn, ok := op.d.user.(func(in, inout []T))
		if !ok {
			return rd, errorf(ClassOp, "operation %s used on a buffer of %s", op, t)
		}
		rd.fn = func(in, inout []byte) { fn(view[T](in), view[T](inout)) }
		return rd, nil
	case opMaxLoc, opMinLoc:
		return rd, errorf(ClassOp, "%s applies to ValIdx pairs (ReduceLoc, AllreduceLoc), not to %s", op, t)
	}
	rd.fn, rd.builtin = kernel(t.Kind(), op.d.code), true
	if rd.fn == nil {
		return rd, errorf(ClassOp, "operation %s is not defined on %s", op, t)
	}
	return rd, nil
}
