package mpi

import "unsafe"

// Special ranks and tags, with MPI's meanings.
const (
	AnySource = -1        // receive from any rank (MPI_ANY_SOURCE)
	AnyTag    = -1        // receive any tag (MPI_ANY_TAG)
	ProcNull  = -2        // null peer: operations complete at once (MPI_PROC_NULL)
	Undefined = -32766    // Split color for "not in any new communicator", and Count of a partial element
	TagUB     = 1<<30 - 1 // largest valid tag (MPI_TAG_UB)
)

// Numeric is every element type a typed buffer may hold: Go's integer,
// floating-point and complex types (byte is uint8). Buffers travel as their
// in-memory bytes; all ranks of a job run on one architecture.
type Numeric interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 |
		~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr |
		~float32 | ~float64 | ~complex64 | ~complex128
}

// asBytes views a typed buffer as bytes without copying.
func asBytes[T Numeric](buf []T) []byte {
	if len(buf) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(buf))), len(buf)*int(unsafe.Sizeof(buf[0])))
}

// sizeOf is the size in bytes of one element of T.
func sizeOf[T Numeric]() int {
	var z T
	return int(unsafe.Sizeof(z))
}

// Status describes a completed receive (or a probed message).
type Status struct {
	Source    int  // rank of the sender in the communicator; ProcNull for a receive from ProcNull, AnySource for a null (nil) request
	Tag       int  // tag of the message
	Bytes     int  // bytes received (or, for a probe, the message size)
	Cancelled bool // the request was cancelled before it matched
	Err       error
}

// Count is the number of whole elements of type T in the status, or
// Undefined when the byte count is not a multiple of T's size
// (MPI_Get_count).
func Count[T Numeric](s Status) int {
	n := sizeOf[T]()
	if s.Bytes%n != 0 {
		return Undefined
	}
	return s.Bytes / n
}
