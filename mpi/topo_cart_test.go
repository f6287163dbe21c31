package mpi

import (
	"errors"
	"fmt"
	"slices"
	"testing"
)

// topoSizes are the world sizes the topology tests run on: 1 to 17 and 64.
var topoSizes = func() []int {
	s := make([]int, 0, 18)
	for n := 1; n <= 17; n++ {
		s = append(s, n)
	}
	return append(s, 64)
}()

// cartShape is a grid to build on a world.
type cartShape struct {
	dims    []int
	periods []bool
}

// refGrid is the brute-force model of a grid: every rank's coordinates in
// row-major order, found by counting.
type refGrid struct {
	cartShape
	coords [][]int
}

func newRefGrid(s cartShape) *refGrid {
	g := &refGrid{cartShape: s}
	co := make([]int, len(s.dims))
	for {
		g.coords = append(g.coords, slices.Clone(co))
		d := len(co) - 1
		for d >= 0 {
			co[d]++
			if co[d] < s.dims[d] {
				break
			}
			co[d] = 0
			d--
		}
		if d < 0 {
			return g
		}
	}
}

// rank finds co among the coordinates, wrapping periodic dimensions by
// repeated addition; -1 when it is off the grid.
func (g *refGrid) rank(co []int) int {
	co = slices.Clone(co)
	for d := range co {
		for g.periods[d] && co[d] < 0 {
			co[d] += g.dims[d]
		}
		for g.periods[d] && co[d] >= g.dims[d] {
			co[d] -= g.dims[d]
		}
	}
	for r, c := range g.coords {
		if slices.Equal(c, co) {
			return r
		}
	}
	return -1
}

// shift is CartShift by brute force.
func (g *refGrid) shift(me, dim, disp int) (src, dst int) {
	at := func(delta int) int {
		co := slices.Clone(g.coords[me])
		co[dim] += delta
		if r := g.rank(co); r >= 0 {
			return r
		}
		return ProcNull
	}
	return at(-disp), at(disp)
}

// neighbours is the MPI neighbour order: per dimension -1 then +1.
func (g *refGrid) neighbours(me int) []int {
	var nb []int
	for d := range g.dims {
		s, t := g.shift(me, d, 1)
		nb = append(nb, s, t)
	}
	return nb
}

// cartShapes are the grids tried on n ranks: balanced grids of n and n-1
// ranks in 1 to 4 dimensions, with every periodicity pattern in up to two
// dimensions and a few in more, plus a grid with extents 1 and 2 (where a
// rank is its own or a double neighbour).
func cartShapes(n int) []cartShape {
	var out []cartShape
	for _, size := range []int{n, n - 1} {
		if size < 1 {
			continue
		}
		for nd := 1; nd <= 4; nd++ {
			dims, _ := DimsCreate(size, make([]int, nd))
			var pats [][]bool
			if nd <= 2 {
				for m := 0; m < 1<<nd; m++ {
					p := make([]bool, nd)
					for d := range p {
						p[d] = m>>d&1 == 1
					}
					pats = append(pats, p)
				}
			} else {
				all, alt := make([]bool, nd), make([]bool, nd)
				for d := range all {
					all[d], alt[d] = true, d%2 == 0
				}
				pats = [][]bool{make([]bool, nd), all, alt}
			}
			for _, p := range pats {
				out = append(out, cartShape{dims, p})
			}
		}
	}
	if n%2 == 0 {
		out = append(out, cartShape{[]int{1, 2, n / 2}, []bool{true, true, false}})
	}
	return append(out, cartShape{[]int{}, []bool{}}) // zero dimensions: one rank
}

// checkCart checks every query of a Cartesian communicator against g.
func checkCart(cc *Comm, g *refGrid) error {
	me := cc.Rank()
	if tp, err := cc.Topo(); err != nil || tp != TopoCart {
		return fmt.Errorf("Topo = %v, %v", tp, err)
	}
	if nd, err := cc.CartDim(); err != nil || nd != len(g.dims) {
		return fmt.Errorf("CartDim = %d, %v", nd, err)
	}
	dims, periods, coords, err := cc.CartGet()
	if err != nil || !slices.Equal(dims, g.dims) || !slices.Equal(periods, g.periods) || !slices.Equal(coords, g.coords[me]) {
		return fmt.Errorf("CartGet = %v %v %v, %v; want coords %v", dims, periods, coords, err, g.coords[me])
	}
	for r := range g.coords {
		co, err := cc.CartCoords(r)
		if err != nil || !slices.Equal(co, g.coords[r]) {
			return fmt.Errorf("CartCoords(%d) = %v, %v; want %v", r, co, err, g.coords[r])
		}
		if got, err := cc.CartRank(co); err != nil || got != r {
			return fmt.Errorf("CartRank(%v) = %d, %v", co, got, err)
		}
		// One step off the grid in each dimension, both ways: wrapped
		// where periodic, an error where not.
		for d := range co {
			for _, off := range []int{-g.dims[d], g.dims[d], -3 * g.dims[d]} {
				w := slices.Clone(co)
				w[d] += off
				got, err := cc.CartRank(w)
				if g.periods[d] && (err != nil || got != r) {
					return fmt.Errorf("CartRank(%v) = %d, %v; want %d (periodic)", w, got, err, r)
				}
				if !g.periods[d] && !errors.Is(err, ErrArg) {
					return fmt.Errorf("CartRank(%v) off a non-periodic grid: %d, %v", w, got, err)
				}
			}
		}
	}
	for d := range g.dims {
		for _, disp := range []int{-3, -2, -1, 0, 1, 2, 3, 7} {
			s, t, err := cc.CartShift(d, disp)
			ws, wt := g.shift(me, d, disp)
			if err != nil || s != ws || t != wt {
				return fmt.Errorf("CartShift(%d, %d) = %d, %d, %v; want %d, %d", d, disp, s, t, err, ws, wt)
			}
		}
	}
	return nil
}

func TestCartAgainstBruteForce(t *testing.T) {
	for _, n := range topoSizes {
		runT(t, n, func(c *Comm) error {
			for _, s := range cartShapes(n) {
				cc, err := c.CartCreate(s.dims, s.periods, true)
				if err != nil {
					return fmt.Errorf("CartCreate(%v, %v): %v", s.dims, s.periods, err)
				}
				g := newRefGrid(s)
				if c.Rank() >= len(g.coords) {
					if cc != nil {
						return fmt.Errorf("CartCreate(%v): rank %d beyond the grid got a communicator", s.dims, c.Rank())
					}
					continue
				}
				if cc.Size() != len(g.coords) || cc.Rank() != c.Rank() || cc.WorldRank(cc.Rank()) != c.Rank() {
					return fmt.Errorf("CartCreate(%v): size %d rank %d", s.dims, cc.Size(), cc.Rank())
				}
				if err := checkCart(cc, g); err != nil {
					return fmt.Errorf("grid %v periods %v rank %d: %v", s.dims, s.periods, c.Rank(), err)
				}
				if err := cc.Free(); err != nil {
					return err
				}
			}
			return nil
		})
	}
}

// Dup copies the topology; Free drops it; Split and Create do not carry it.
func TestCartSurvivesDup(t *testing.T) {
	runT(t, 6, func(c *Comm) error {
		s := cartShape{[]int{3, 2}, []bool{true, false}}
		cc, err := c.CartCreate(s.dims, s.periods, false)
		if err != nil {
			return err
		}
		d, err := cc.Dup()
		if err != nil {
			return err
		}
		if err := checkCart(d, newRefGrid(s)); err != nil {
			return fmt.Errorf("the Dup: %v", err)
		}
		if err := NeighborAllgather(d, []int{d.Rank()}, make([]int, 4)); err != nil {
			return err
		}
		sp, err := cc.Split(0, 0)
		if err != nil {
			return err
		}
		if tp, err := sp.Topo(); err != nil || tp != TopoNone {
			return fmt.Errorf("Split of a Cartesian communicator: Topo %v, %v", tp, err)
		}
		if _, err := sp.CartDim(); !errors.Is(err, ErrTopology) {
			return fmt.Errorf("CartDim without a topology: %v", err)
		}
		if err := NeighborAllgather(sp, []int{1}, nil); !errors.Is(err, ErrTopology) {
			return fmt.Errorf("NeighborAllgather without a topology: %v", err)
		}
		for _, x := range []*Comm{d, cc, sp} {
			if err := x.Free(); err != nil {
				return err
			}
		}
		if _, err := d.Topo(); !errors.Is(err, ErrComm) {
			return fmt.Errorf("Topo of a freed communicator: %v", err)
		}
		if _, _, err := d.CartShift(0, 1); !errors.Is(err, ErrComm) {
			return fmt.Errorf("CartShift on a freed communicator: %v", err)
		}
		if tp, err := c.Topo(); err != nil || tp != TopoNone {
			return fmt.Errorf("world Topo = %v, %v", tp, err)
		}
		return nil
	})
}

func TestCartErrors(t *testing.T) {
	runT(t, 4, func(c *Comm) error {
		for _, tc := range []struct {
			dims    []int
			periods []bool
			want    error
		}{
			{[]int{2, 2}, []bool{true}, ErrArg},
			{[]int{2, 0}, []bool{true, true}, ErrDims},
			{[]int{-2}, []bool{true}, ErrDims},
			{[]int{5}, []bool{false}, ErrTopology},
			{[]int{3, 2}, []bool{false, false}, ErrTopology},
			{[]int{1 << 40, 1 << 40}, []bool{false, false}, ErrTopology},
		} {
			if cc, err := c.CartCreate(tc.dims, tc.periods, false); !errors.Is(err, tc.want) || cc != nil {
				return fmt.Errorf("CartCreate(%v, %v) = %v, %v; want %v", tc.dims, tc.periods, cc, err, tc.want)
			}
		}
		cc, err := c.CartCreate([]int{2, 2}, []bool{false, true}, false)
		if err != nil {
			return err
		}
		if _, err := cc.CartCoords(4); !errors.Is(err, ErrRank) {
			return fmt.Errorf("CartCoords(4): %v", err)
		}
		if _, err := cc.CartCoords(-1); !errors.Is(err, ErrRank) {
			return fmt.Errorf("CartCoords(-1): %v", err)
		}
		if _, err := cc.CartRank([]int{0}); !errors.Is(err, ErrArg) {
			return fmt.Errorf("CartRank with 1 coordinate: %v", err)
		}
		for _, dim := range []int{-1, 2} {
			if _, _, err := cc.CartShift(dim, 1); !errors.Is(err, ErrDims) {
				return fmt.Errorf("CartShift(%d): %v", dim, err)
			}
		}
		if _, err := cc.CartSub([]bool{true}); !errors.Is(err, ErrArg) {
			return fmt.Errorf("CartSub with 1 flag: %v", err)
		}
		if _, err := c.CartSub([]bool{true}); !errors.Is(err, ErrTopology) {
			return fmt.Errorf("CartSub without a topology: %v", err)
		}
		if _, _, _, err := cc.DistGraphNeighborsCount(); !errors.Is(err, ErrTopology) {
			return fmt.Errorf("DistGraphNeighborsCount on a grid: %v", err)
		}
		return cc.Free()
	})
}

// CartSub against brute force: the sub-grid's members, their order, its
// shape and a neighbour exchange on it.
func TestCartSubAgainstBruteForce(t *testing.T) {
	for _, n := range topoSizes {
		runT(t, n, func(c *Comm) error {
			for _, s := range cartShapes(n) {
				if len(s.dims) > 3 || len(s.dims) > 0 && len(s.dims) < 3 && !s.periods[0] {
					continue // keep the run short: 0-, some 1- and 2-, all 3-dimensional grids
				}
				cc, err := c.CartCreate(s.dims, s.periods, false)
				if err != nil || cc == nil {
					if err != nil {
						return err
					}
					continue
				}
				g := newRefGrid(s)
				if err := checkSubs(cc, g); err != nil {
					return fmt.Errorf("grid %v periods %v rank %d: %v", s.dims, s.periods, cc.Rank(), err)
				}
				if err := cc.Free(); err != nil {
					return err
				}
			}
			return nil
		})
	}
}

func checkSubs(cc *Comm, g *refGrid) error {
	me := cc.Rank()
	nd := len(g.dims)
	for m := 0; m < 1<<nd; m++ {
		remain := make([]bool, nd)
		var kept cartShape
		var keptCo []int
		for d := range remain {
			remain[d] = m>>d&1 == 1
			if remain[d] {
				kept.dims = append(kept.dims, g.dims[d])
				kept.periods = append(kept.periods, g.periods[d])
				keptCo = append(keptCo, g.coords[me][d])
			}
		}
		sub, err := cc.CartSub(remain)
		if err != nil {
			return fmt.Errorf("CartSub(%v): %v", remain, err)
		}
		sg := newRefGrid(kept)
		if sub.Size() != len(sg.coords) || sub.Rank() != sg.rank(keptCo) {
			return fmt.Errorf("CartSub(%v): size %d rank %d, want %d and %d", remain, sub.Size(), sub.Rank(), len(sg.coords), sg.rank(keptCo))
		}
		// Member j of the sub-grid is the rank with my dropped coordinates
		// and j's kept ones.
		for j, jc := range sg.coords {
			co := slices.Clone(g.coords[me])
			k := 0
			for d := range remain {
				if remain[d] {
					co[d] = jc[k]
					k++
				}
			}
			if w := sub.WorldRank(j); w != cc.WorldRank(g.rank(co)) {
				return fmt.Errorf("CartSub(%v): member %d is world rank %d, want %d", remain, j, w, cc.WorldRank(g.rank(co)))
			}
		}
		if err := checkCart(sub, sg); err != nil {
			return fmt.Errorf("CartSub(%v): %v", remain, err)
		}
		// A neighbour exchange on the sub-grid reaches the right ranks.
		nb := sg.neighbours(sub.Rank())
		recv := make([]int, len(nb))
		if err := NeighborAllgather(sub, []int{sub.WorldRank(sub.Rank()) + 1}, recv); err != nil {
			return err
		}
		for i, s := range nb {
			want := 0
			if s != ProcNull {
				want = sub.WorldRank(s) + 1
			}
			if recv[i] != want {
				return fmt.Errorf("CartSub(%v): neighbour block %d = %d, want %d", remain, i, recv[i], want)
			}
		}
		if err := sub.Free(); err != nil {
			return err
		}
	}
	return nil
}

// A grid of thousands of extent-1 dimensions is built in time linear in
// their number, and shifts along them reach the rank itself where periodic.
func TestCartManyDimensions(t *testing.T) {
	runT(t, 2, func(c *Comm) error {
		const nd = 20000
		dims, periods := make([]int, nd), make([]bool, nd)
		for d := range dims {
			dims[d], periods[d] = 1, d%2 == 0
		}
		dims[nd-1] = 2
		cc, err := c.CartCreate(dims, periods, false)
		if err != nil {
			return err
		}
		for _, d := range []int{0, 1, nd / 2, nd - 1} {
			s, u, err := cc.CartShift(d, 1)
			if err != nil {
				return err
			}
			ws, wu := ProcNull, ProcNull
			switch {
			case d == nd-1: // extent 2, not periodic
				if cc.Rank() == 0 {
					wu = 1
				} else {
					ws = 0
				}
			case periods[d]:
				ws, wu = cc.Rank(), cc.Rank()
			}
			if s != ws || u != wu {
				return fmt.Errorf("CartShift(%d, 1) = %d, %d; want %d, %d", d, s, u, ws, wu)
			}
		}
		return cc.Free()
	})
}

// On a communicator whose group is not the world's identity, the grid is
// its first ranks in its order, and neighbour exchanges reach them.
func TestCartOnSplitCommunicator(t *testing.T) {
	for _, n := range []int{5, 11, 17} {
		runT(t, n, func(c *Comm) error {
			sp, err := c.Split(c.Rank()%2, -c.Rank()) // reversed order
			if err != nil {
				return err
			}
			m := sp.Size() - 1 // leave the last rank out
			if m == 0 {
				return sp.Free()
			}
			s := cartShape{[]int{m}, []bool{true}}
			cc, err := sp.CartCreate(s.dims, s.periods, true)
			if err != nil {
				return err
			}
			if sp.Rank() >= m {
				if cc != nil {
					return fmt.Errorf("rank %d beyond the grid got a communicator", sp.Rank())
				}
				return sp.Free()
			}
			for r := 0; r < m; r++ {
				if cc.WorldRank(r) != sp.WorldRank(r) {
					return fmt.Errorf("grid rank %d is world rank %d, want %d", r, cc.WorldRank(r), sp.WorldRank(r))
				}
			}
			if err := checkCart(cc, newRefGrid(s)); err != nil {
				return err
			}
			if err := checkNeighborColls(cc, cartModel(newRefGrid(s)), n); err != nil {
				return err
			}
			if err := cc.Free(); err != nil {
				return err
			}
			return sp.Free()
		})
	}
}
