package mpi

// Scan sets recv of rank i to send of ranks 0..i combined with op, in rank
// order (MPI_Scan, an inclusive prefix reduction). recv must hold at least
// len(send) elements.
func Scan[T Numeric](c *Comm, send, recv []T, op Op) error {
	c.enter(callScan, 0, 0)
	defer c.leave()
	noteRed[T](c, op, false, false, len(send))
	rd, err := reductionFor[T](op)
	if err != nil {
		return err
	}
	if len(recv) < len(send) {
		return errorf(ClassCount, "Scan: receive buffer of %d elements is shorter than the %d sent", len(recv), len(send))
	}
	return c.scan(asBytes(send), asBytes(recv[:len(send)]), &rd, false)
}

// ScanInPlace is Scan with MPI_IN_PLACE: buf holds the contribution and is
// replaced by the prefix result.
func ScanInPlace[T Numeric](c *Comm, buf []T, op Op) error {
	c.enter(callScan, 0, 0)
	defer c.leave()
	noteRed[T](c, op, true, false, len(buf))
	rd, err := reductionFor[T](op)
	if err != nil {
		return err
	}
	return c.scan(asBytes(buf), asBytes(buf), &rd, false)
}

// Exscan sets recv of rank i > 0 to send of ranks 0..i-1 combined with op
// (MPI_Exscan, an exclusive prefix reduction). Rank 0's recv is left
// unchanged (MPI leaves it undefined).
func Exscan[T Numeric](c *Comm, send, recv []T, op Op) error {
	c.enter(callExscan, 0, 0)
	defer c.leave()
	noteRed[T](c, op, false, false, len(send))
	rd, err := reductionFor[T](op)
	if err != nil {
		return err
	}
	if len(recv) < len(send) {
		return errorf(ClassCount, "Exscan: receive buffer of %d elements is shorter than the %d sent", len(recv), len(send))
	}
	return c.scan(asBytes(send), asBytes(recv[:len(send)]), &rd, true)
}

// ExscanInPlace is Exscan with MPI_IN_PLACE.
func ExscanInPlace[T Numeric](c *Comm, buf []T, op Op) error {
	c.enter(callExscan, 0, 0)
	defer c.leave()
	noteRed[T](c, op, true, false, len(buf))
	rd, err := reductionFor[T](op)
	if err != nil {
		return err
	}
	return c.scan(asBytes(buf), asBytes(buf), &rd, true)
}

// scan is MPICH's recursive-doubling scan: in round k a rank swaps the
// combination of the 2^k ranks' block it represents with rank^2^k; what
// comes from below is folded into both the running block and the result.
// ceil(log2 n) rounds, each one message of the whole buffer.
func (c *Comm) scan(data, out []byte, rd *reduction, exclusive bool) error {
	if err := c.begin(); err != nil {
		return err
	}
	if len(data)%rd.size != 0 {
		return errorf(ClassCount, "Scan: buffer of %d bytes is not whole elements", len(data))
	}
	n, me := c.Size(), c.rank
	if len(data) == 0 {
		return nil
	}
	tag := tagScan
	if exclusive {
		tag = tagExscan
	}
	partial := make([]byte, len(data))
	copy(partial, data)
	if !exclusive {
		copy(out, data)
	}
	tmp := make([]byte, len(data))
	have := false // exclusive: out holds something yet
	var failed schedErr
	for mask := 1; mask < n; mask <<= 1 {
		dst := me ^ mask
		if dst >= n {
			continue
		}
		failed.keep(c.exchange(partial, dst, tmp, dst, tag))
		if dst < me {
			// tmp covers the ranks just below the ones partial covers.
			switch {
			case !exclusive:
				rd.apply(tmp, out)
			case have:
				rd.apply(tmp, out)
			default:
				copy(out, tmp)
				have = true
			}
			rd.apply(tmp, partial)
		} else {
			rd.applyRev(partial, tmp)
		}
	}
	return failed.err
}
