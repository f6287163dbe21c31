package mpi

// ReduceLocal sets inout = in op inout element by element on the calling
// rank alone (MPI_Reduce_local), with any Op a reduction accepts on T:
// in plays the lower ranks' part for a non-commutative operation. The
// buffers must have the same length.
func ReduceLocal[T Numeric](in, inout []T, op Op) error {
	rd, err := reductionFor[T](op)
	if err != nil {
		return err
	}
	return reduceLocal(bytesOf(in), bytesOf(inout), len(in), len(inout), &rd)
}

// ReduceLocalLoc is ReduceLocal on value-index pairs with MaxLoc or MinLoc.
func ReduceLocalLoc[T Numeric](in, inout []ValIdx[T], op Op) error {
	rd, err := locReduction[T](op)
	if err != nil {
		return err
	}
	return reduceLocal(bytesOf(in), bytesOf(inout), len(in), len(inout), &rd)
}

func reduceLocal(in, inout []byte, nin, ninout int, rd *reduction) error {
	if nin != ninout {
		return errorf(ClassCount, "ReduceLocal: input of %d elements, inout of %d", nin, ninout)
	}
	if nin > 0 {
		rd.apply(in, inout)
	}
	return nil
}
