package mpi

import (
	"sort"
	"strconv"
)

// Comparison results of Group.Compare and Comm.Compare (MPI_IDENT, ...).
type Comparison int

const (
	Ident     Comparison = iota // same object (communicators) or same members in the same order (groups)
	Congruent                   // communicators: same members in the same order, different contexts
	Similar                     // same members, different order
	Unequal                     // different members
)

func (c Comparison) String() string {
	if c < Ident || c > Unequal {
		return "Comparison(" + strconv.Itoa(int(c)) + ")"
	}
	return [...]string{"Ident", "Congruent", "Similar", "Unequal"}[c]
}

// Group is an ordered set of world ranks (MPI_Group). Groups are immutable.
// The world group is stored as the identity, so a million-rank world does
// not cost a million-entry table per rank.
//
// A nil *Group is MPI_GROUP_NULL. The calls with an error result refuse it
// with an ErrGroup error; the others (Size, Rank, Union, Intersection,
// Difference, Compare) treat it as the empty group.
type Group struct {
	n     int
	ranks []int32         // member world ranks by group rank; nil: identity 0..n-1
	index map[int32]int32 // world rank -> group rank; nil for the identity
	me    int32           // world rank of the process holding the group
}

func worldGroup(n int) *Group { return &Group{n: n, me: -1} }

// newGroup is the group of world ranks ranks, held by world rank me. World
// ranks 0, 1, ... in order are stored as the identity, as the world group
// is: a Split or Dup that keeps the world's order (most programs' first
// Split) then costs no table per rank, and its collectives can be
// computed at the gate (coll_bulk.go).
func newGroup(ranks []int32, me int32) *Group {
	if isIdentity(ranks) {
		return &Group{n: len(ranks), me: me}
	}
	g := &Group{n: len(ranks), ranks: ranks, index: make(map[int32]int32, len(ranks)), me: me}
	for i, w := range ranks {
		g.index[w] = int32(i)
	}
	return g
}

// isIdentity reports whether ranks is 0, 1, ..., len(ranks)-1.
func isIdentity(ranks []int32) bool {
	for i, w := range ranks {
		if int(w) != i {
			return false
		}
	}
	return true
}

// Size is the number of members (0 for a nil group).
func (g *Group) Size() int {
	if g == nil {
		return 0
	}
	return g.n
}

// Rank is the calling process's rank in the group, or Undefined when it is
// not a member (MPI_Group_rank).
func (g *Group) Rank() int {
	if g == nil {
		return Undefined
	}
	return g.rankOf(int(g.me))
}

// orEmpty is g, or the empty group for nil.
func (g *Group) orEmpty() *Group {
	if g == nil {
		return &Group{me: -1}
	}
	return g
}

// holder is the world rank of the process holding g or h (-1 if neither
// says): the result of Union and friends keeps it whichever is nil.
func holder(g, h *Group) int32 {
	switch {
	case g != nil:
		return g.me
	case h != nil:
		return h.me
	}
	return -1
}

func nullGroup(what string) error { return errorf(ClassGroup, "%s: null group", what) }

// worldRank is the world rank of group rank i.
func (g *Group) worldRank(i int) int {
	if g.ranks == nil {
		return i
	}
	return int(g.ranks[i])
}

// rankOf is the group rank of world rank w, or Undefined.
func (g *Group) rankOf(w int) int {
	if g.ranks == nil {
		if w >= 0 && w < g.n {
			return w
		}
		return Undefined
	}
	if i, ok := g.index[int32(w)]; ok {
		return int(i)
	}
	return Undefined
}

func (g *Group) members() []int32 {
	if g.ranks != nil {
		return g.ranks
	}
	m := make([]int32, g.n)
	for i := range m {
		m[i] = int32(i)
	}
	return m
}

// Incl is the group of the listed members, in the order listed
// (MPI_Group_incl). Ranks must be valid and distinct.
func (g *Group) Incl(ranks []int) (*Group, error) {
	if g == nil {
		return nil, nullGroup("Group.Incl")
	}
	out := make([]int32, len(ranks))
	seen := make(map[int]bool, len(ranks))
	for i, r := range ranks {
		if r < 0 || r >= g.n {
			return nil, errorf(ClassRank, "Group.Incl: rank %d out of range [0,%d)", r, g.n)
		}
		if seen[r] {
			return nil, errorf(ClassRank, "Group.Incl: rank %d listed twice", r)
		}
		seen[r] = true
		out[i] = int32(g.worldRank(r))
	}
	return newGroup(out, g.me), nil
}

// Excl is the group without the listed members, order kept (MPI_Group_excl).
func (g *Group) Excl(ranks []int) (*Group, error) {
	if g == nil {
		return nil, nullGroup("Group.Excl")
	}
	drop := make(map[int]bool, len(ranks))
	for _, r := range ranks {
		if r < 0 || r >= g.n {
			return nil, errorf(ClassRank, "Group.Excl: rank %d out of range [0,%d)", r, g.n)
		}
		if drop[r] {
			return nil, errorf(ClassRank, "Group.Excl: rank %d listed twice", r)
		}
		drop[r] = true
	}
	out := make([]int32, 0, g.n-len(drop))
	for i := 0; i < g.n; i++ {
		if !drop[i] {
			out = append(out, int32(g.worldRank(i)))
		}
	}
	return newGroup(out, g.me), nil
}

// Union is g's members followed by h's members not in g (MPI_Group_union).
func (g *Group) Union(h *Group) *Group {
	me := holder(g, h)
	g, h = g.orEmpty(), h.orEmpty()
	out := append([]int32(nil), g.members()...)
	for _, w := range h.members() {
		if g.rankOf(int(w)) == Undefined {
			out = append(out, w)
		}
	}
	return newGroup(out, me)
}

// Intersection is g's members that are also in h, in g's order.
func (g *Group) Intersection(h *Group) *Group {
	me := holder(g, h)
	g, h = g.orEmpty(), h.orEmpty()
	var out []int32
	for _, w := range g.members() {
		if h.rankOf(int(w)) != Undefined {
			out = append(out, w)
		}
	}
	return newGroup(out, me)
}

// Difference is g's members not in h, in g's order.
func (g *Group) Difference(h *Group) *Group {
	me := holder(g, h)
	g, h = g.orEmpty(), h.orEmpty()
	var out []int32
	for _, w := range g.members() {
		if h.rankOf(int(w)) == Undefined {
			out = append(out, w)
		}
	}
	return newGroup(out, me)
}

// TranslateRanks maps ranks of g to ranks of h: Undefined for processes not
// in h; ProcNull maps to ProcNull (MPI_Group_translate_ranks).
func (g *Group) TranslateRanks(ranks []int, h *Group) ([]int, error) {
	if g == nil || h == nil {
		return nil, nullGroup("TranslateRanks")
	}
	out := make([]int, len(ranks))
	for i, r := range ranks {
		if r == ProcNull {
			out[i] = ProcNull
			continue
		}
		if r < 0 || r >= g.n {
			return nil, errorf(ClassRank, "TranslateRanks: rank %d out of range [0,%d)", r, g.n)
		}
		out[i] = h.rankOf(g.worldRank(r))
	}
	return out, nil
}

// Compare compares two groups: Ident (same members, same order), Similar
// (same members) or Unequal.
func (g *Group) Compare(h *Group) Comparison {
	g, h = g.orEmpty(), h.orEmpty()
	if g.n != h.n {
		return Unequal
	}
	same := true
	for i := 0; i < g.n; i++ {
		if g.worldRank(i) != h.worldRank(i) {
			same = false
			break
		}
	}
	if same {
		return Ident
	}
	a := append([]int32(nil), g.members()...)
	b := append([]int32(nil), h.members()...)
	sort.Slice(a, func(i, j int) bool { return a[i] < a[j] })
	sort.Slice(b, func(i, j int) bool { return b[i] < b[j] })
	for i := range a {
		if a[i] != b[i] {
			return Unequal
		}
	}
	return Similar
}
