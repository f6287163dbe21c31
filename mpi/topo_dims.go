package mpi

// DimsCreate returns a balanced grid of nnodes ranks in len(dims)
// dimensions (MPI_Dims_create). Positive entries of dims are kept; the zero
// entries are filled with factors of nnodes / (product of the positive
// entries), as close to each other as possible and in non-increasing order.
// dims itself is not modified.
//
// Balanced means, as in MPICH (after Träff and Lübbe, EuroMPI'15): the
// filled entries have the smallest possible difference between the largest
// and the smallest; among equally balanced choices DimsCreate takes the one
// with the smallest largest entry (then second largest, ...). Errors: nnodes
// below 1 (ErrArg), a negative entry, or nnodes not a multiple of the
// product of the positive entries (ErrDims). As in MPICH, with no zero
// entry the call only checks divisibility, and with no dimensions at all
// it returns an empty grid.
func DimsCreate(nnodes int, dims []int) ([]int, error) {
	if nnodes < 1 {
		return nil, errorf(ClassArg, "DimsCreate: %d nodes, need at least 1", nnodes)
	}
	out := append([]int{}, dims...)
	prod, free := 1, 0
	for i, d := range dims {
		switch {
		case d < 0:
			return nil, errorf(ClassDims, "DimsCreate: dims[%d] = %d is negative", i, d)
		case d == 0:
			free++
		default:
			// prod only grows, and must divide nnodes: stop before it
			// could overflow.
			if prod > nnodes/d {
				return nil, errorf(ClassDims, "DimsCreate: %d nodes is not a multiple of the given dims %v", nnodes, dims)
			}
			prod *= d
		}
	}
	if nnodes%prod != 0 {
		return nil, errorf(ClassDims, "DimsCreate: %d nodes is not a multiple of the given dims' product %d", nnodes, prod)
	}
	if free == 0 {
		return out, nil
	}
	fill := balancedFactors(nnodes/prod, free)
	k := 0
	for i := range out {
		if out[i] == 0 {
			out[i] = fill[k]
			k++
		}
	}
	return out, nil
}

// balancedFactors splits m into k non-increasing factors whose largest and
// smallest differ least (ties: the lexicographically smallest). It searches
// the non-increasing factorizations depth first, the largest factor
// ascending from its floor ceil(m^(1/k)), and cuts every branch that can
// no longer beat the best spread found: once a factor f is placed, the
// smallest factor of the rest is at most floor((r/f)^(1/left)).
func balancedFactors(m, k int) []int {
	var divs []int // divisors of m, ascending
	var high []int
	for d := 1; d <= m/d; d++ {
		if m%d == 0 {
			divs = append(divs, d)
			if d != m/d {
				high = append(high, m/d)
			}
		}
	}
	for i := len(high) - 1; i >= 0; i-- {
		divs = append(divs, high[i])
	}
	cur := make([]int, k)
	var best []int
	bestSpread := 0
	consider := func() {
		spread := cur[0] - cur[k-1]
		if best == nil || spread < bestSpread || spread == bestSpread && lexLess(cur, best) {
			best = append(best[:0], cur...)
			bestSpread = spread
		}
	}
	var place func(i, r, prev int)
	place = func(i, r, prev int) {
		left := k - i
		if r == 1 {
			for j := i; j < k; j++ {
				cur[j] = 1
			}
			consider()
			return
		}
		if left == 1 {
			if r <= prev {
				cur[i] = r
				consider()
			}
			return
		}
		lo := rootCeil(r, left)
		for _, f := range divs {
			if f < lo || r%f != 0 {
				continue
			}
			if f > prev || f > r {
				break
			}
			first := f
			if i > 0 {
				first = cur[0]
			}
			if best != nil && first-rootFloor(r/f, left-1) > bestSpread {
				break // a larger f leaves a smaller rest: no better
			}
			cur[i] = f
			place(i+1, r/f, f)
		}
	}
	place(0, m, m)
	return best
}

func lexLess(a, b []int) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

// powAtMost reports whether x^k <= m, without overflow.
func powAtMost(x, k, m int) bool {
	p := 1
	for ; k > 0; k-- {
		if p > m/x {
			return false
		}
		p *= x
	}
	return true
}

// rootFloor is the largest x >= 1 with x^k <= m (m >= 1, k >= 1).
func rootFloor(m, k int) int {
	lo, hi := 1, m // x^k <= m holds at lo
	for lo < hi {
		mid := lo + (hi-lo+1)/2
		if powAtMost(mid, k, m) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// rootCeil is the smallest x >= 1 with x^k >= m.
func rootCeil(m, k int) int {
	x := rootFloor(m, k)
	if powAtMost(x, k, m-1) {
		return x + 1
	}
	return x
}
