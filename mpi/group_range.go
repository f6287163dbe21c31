package mpi

// RangeIncl and RangeExcl (MPI_Group_range_incl, MPI_Group_range_excl):
// Incl and Excl with the ranks given as triplets (first, last, stride).

// RangeIncl is the group of the ranks the triplets name, in the order named
// (MPI_Group_range_incl). A triplet {first, last, stride} names first,
// first+stride, ... as far as last without passing it; stride may be
// negative but not zero. As MPICH checks: first and last must be ranks of
// g, the stride must move from first towards last (or first == last), and
// no rank may be named twice; otherwise the error has class ClassArg.
func (g *Group) RangeIncl(ranges [][3]int) (*Group, error) {
	if g == nil {
		return nil, nullGroup("Group.RangeIncl")
	}
	ranks, err := g.expandRanges("Group.RangeIncl", ranges)
	if err != nil {
		return nil, err
	}
	out := make([]int32, len(ranks))
	for i, r := range ranks {
		out[i] = int32(g.worldRank(r))
	}
	return newGroup(out, g.me), nil
}

// RangeExcl is the group without the ranks the triplets name, order kept
// (MPI_Group_range_excl), with RangeIncl's rules.
func (g *Group) RangeExcl(ranges [][3]int) (*Group, error) {
	if g == nil {
		return nil, nullGroup("Group.RangeExcl")
	}
	ranks, err := g.expandRanges("Group.RangeExcl", ranges)
	if err != nil {
		return nil, err
	}
	drop := make([]bool, g.n)
	for _, r := range ranks {
		drop[r] = true
	}
	out := make([]int32, 0, g.n-len(ranks))
	for i := 0; i < g.n; i++ {
		if !drop[i] {
			out = append(out, int32(g.worldRank(i)))
		}
	}
	return newGroup(out, g.me), nil
}

// expandRanges lists the ranks of g the triplets name, in order, checking
// them as MPICH's MPIR_Group_check_valid_ranges does.
func (g *Group) expandRanges(what string, ranges [][3]int) ([]int, error) {
	var ranks []int
	seen := make(map[int]int) // rank -> triplet that named it
	for i, t := range ranges {
		first, last, stride := t[0], t[1], t[2]
		switch {
		case first < 0 || first >= g.n:
			return nil, errorf(ClassArg, "%s: triplet %d: first rank %d out of range [0,%d)", what, i, first, g.n)
		case last < 0 || last >= g.n:
			return nil, errorf(ClassArg, "%s: triplet %d: last rank %d out of range [0,%d)", what, i, last, g.n)
		case stride == 0:
			return nil, errorf(ClassArg, "%s: triplet %d: stride 0", what, i)
		case stride > 0 && first > last, stride < 0 && first < last:
			return nil, errorf(ClassArg, "%s: triplet %d: stride %d does not lead from %d to %d", what, i, stride, first, last)
		}
		// Counted rather than stepped to last: first+stride may overflow.
		for k, count := 0, (last-first)/stride+1; k < count; k++ {
			r := first + k*stride
			if j, dup := seen[r]; dup {
				return nil, errorf(ClassArg, "%s: rank %d named by triplets %d and %d", what, r, j, i)
			}
			seen[r] = i
			ranks = append(ranks, r)
		}
	}
	return ranks, nil
}
