package vtime

import (
	"fmt"
	"sync"
)

// This file holds the hop functions: hop(x, y) for every topology a level of
// the target machine can have (xSim network model, seeds/004, and the
// Tianhe-1A function Eq. (5) of VACED-SIM). Positions are 0..n-1 within one
// level's network; machine.go maps ranks to them.

// topology is one level's network.
type topology interface {
	// size is the number of positions, or 0 when unbounded (star, tree and
	// eq5 accept any number).
	size() int
	// hop is the number of links on a shortest path from a to b.
	hop(a, b int) int
	// exit is the number of links from a to the point where this network
	// attaches to the next level out (its uplink, or logical node).
	exit(a int) int
}

// star: every position hangs off one central switch (xSim: h is always 2).
// The uplink is on the switch.
type star struct{ n int }

func (s star) size() int { return s.n }
func (s star) hop(a, b int) int {
	if a == b {
		return 0
	}
	return 2
}
func (s star) exit(int) int { return 1 }

// ring of n positions, unidirectional (hops go up only) or bidirectional.
// The uplink is at position 0.
type ring struct {
	n     int
	bidir bool
}

func (r ring) size() int { return r.n }
func (r ring) hop(a, b int) int {
	d := ((b-a)%r.n + r.n) % r.n
	if r.bidir && r.n-d < d {
		d = r.n - d
	}
	return d
}
func (r ring) exit(a int) int { return r.hop(a, 0) }

// grid is a k-D mesh or torus: dims[i] positions along dimension i,
// dimension 0 varying fastest; wrap[i] makes dimension i toroidal (a ring).
// Routing is dimension-ordered, which is a shortest path in both. The uplink
// is at position 0.
type grid struct {
	dims []int
	wrap []bool
	n    int
}

func newGrid(dims []int, wrap []bool) grid {
	n := 1
	for _, d := range dims {
		n *= d
	}
	return grid{dims: dims, wrap: wrap, n: n}
}

func (g grid) size() int { return g.n }
func (g grid) hop(a, b int) int {
	h := 0
	for i, m := range g.dims {
		x, y := a%m, b%m
		a, b = a/m, b/m
		d := x - y
		if d < 0 {
			d = -d
		}
		if g.wrap[i] && m-d < d {
			d = m - d
		}
		h += d
	}
	return h
}
func (g grid) exit(a int) int { return g.hop(a, 0) }

// tree: positions are the leaves of a complete tree of the given arity whose
// inner nodes are routers (xSim: in a tree or fat tree only leaves compute).
// A message climbs to the lowest common ancestor and back down. A fat tree
// has the same hop counts (its extra links add bandwidth, which a
// contention-free model does not see). The uplink is at the root.
type tree struct {
	arity, n int
	depth    int // levels of routers above the leaves (for exit)
}

func newTree(arity, n int) tree {
	t := tree{arity: arity, n: n}
	for span := 1; span < n; span *= arity {
		t.depth++
	}
	if t.depth == 0 {
		t.depth = 1
	}
	return t
}

func (t tree) size() int { return t.n }
func (t tree) hop(a, b int) int {
	h := 0
	for a != b {
		a, b = a/t.arity, b/t.arity
		h += 2
	}
	return h
}
func (t tree) exit(int) int { return t.depth }

// eq5 is the Tianhe-1A hop function of VACED-SIM Eq. (5), written over
// nodes: nodes on one switching board (group of 16) are near hops apart,
// nodes on different boards far hops (boards are joined by a fat tree of
// routers). With 12 cores per node and block mapping it is exactly Eq. (5):
// hop = 0 if x/12 = y/12, 3 if x/192 = y/192, 5 otherwise.
type eq5 struct {
	group, near, far int
}

func (e eq5) size() int { return 0 }
func (e eq5) hop(a, b int) int {
	switch {
	case a == b:
		return 0
	case a/e.group == b/e.group:
		return e.near
	}
	return e.far
}
func (e eq5) exit(int) int { return e.far }

// twisted is a k-D twisted torus (xSim): a torus whose wrap-around links are
// shifted. Leaving dimension d over its edge lands on coordinate 0 (or m-1)
// of d and moves dimension (d+degree) mod k by jump[d] positions (mod its
// size) at the same time. With a twist there is no simple closed form, so
// hop is an exact breadth-first search from the source, cached per source
// row within a memory budget (rows past the budget are recomputed).
type twisted struct {
	g      grid
	degree int
	jump   []int

	mu    sync.Mutex
	rows  map[int][]uint16
	spent int
}

const twistedCacheBytes = 64 << 20

func (t *twisted) size() int { return t.g.n }

func (t *twisted) hop(a, b int) int {
	if a == b {
		return 0
	}
	t.mu.Lock()
	row := t.rows[a]
	t.mu.Unlock()
	if row == nil {
		row = t.bfs(a)
		t.mu.Lock()
		if t.spent+2*len(row) <= twistedCacheBytes {
			if t.rows == nil {
				t.rows = map[int][]uint16{}
			}
			if t.rows[a] == nil {
				t.rows[a] = row
				t.spent += 2 * len(row)
			}
		}
		t.mu.Unlock()
	}
	return int(row[b])
}

func (t *twisted) exit(a int) int { return t.hop(a, 0) }

// neighbors appends the positions one link away from p.
func (t *twisted) neighbors(p int, out []int) []int {
	k := len(t.g.dims)
	c := make([]int, k)
	for i, q := 0, p; i < k; i++ {
		c[i] = q % t.g.dims[i]
		q /= t.g.dims[i]
	}
	pos := func() int {
		q := 0
		for i := k - 1; i >= 0; i-- {
			q = q*t.g.dims[i] + c[i]
		}
		return q
	}
	for d := 0; d < k; d++ {
		m := t.g.dims[d]
		e := (d + t.degree) % k
		for _, step := range [2]int{1, -1} {
			old, olde := c[d], c[e]
			nx := old + step
			if nx >= 0 && nx < m {
				c[d] = nx
			} else {
				c[d] = (nx + m) % m
				if e != d {
					me := t.g.dims[e]
					c[e] = ((olde+step*t.jump[d])%me + me) % me
				}
			}
			out = append(out, pos())
			c[d], c[e] = old, olde
		}
	}
	return out
}

func (t *twisted) bfs(src int) []uint16 {
	dist := make([]uint16, t.g.n)
	for i := range dist {
		dist[i] = 0xffff
	}
	dist[src] = 0
	queue := []int{src}
	var nb []int
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		nb = t.neighbors(p, nb[:0])
		for _, q := range nb {
			if dist[q] == 0xffff {
				dist[q] = dist[p] + 1
				queue = append(queue, q)
			}
		}
	}
	return dist
}

// topologySpec is a level's topology as written in a machine file.
type topologySpec struct {
	Kind    string `json:"topology"`
	Size    int    `json:"size,omitempty"` // star, ring, tree: positions (0 = unbounded where allowed)
	Dims    []int  `json:"dims,omitempty"` // mesh, torus, twisted-torus
	Wrap    []bool `json:"wrap,omitempty"` // torus: which dimensions wrap (default all)
	Bidir   bool   `json:"bidirectional,omitempty"`
	Arity   int    `json:"arity,omitempty"`  // tree
	Degree  int    `json:"degree,omitempty"` // twisted-torus (default 1)
	Jump    []int  `json:"jump,omitempty"`   // twisted-torus (default all 1)
	Group   int    `json:"group,omitempty"`  // eq5: nodes per switching board (default 16)
	Near    int    `json:"near,omitempty"`   // eq5: hops within a board (default 3)
	Far     int    `json:"far,omitempty"`    // eq5: hops between boards (default 5)
	maxSize int    // set by the caller: positions this level must hold (0 = any)
}

// build checks a topology spec and makes it. field names the spec in errors.
func (s topologySpec) build(field string) (topology, error) {
	bad := s.fieldError(field)
	switch s.Kind {
	case "star":
		if s.Size < 0 {
			return nil, bad("size", "negative")
		}
		return star{n: s.Size}, nil
	case "ring":
		if s.Size < 1 {
			return nil, bad("size", "a ring needs size >= 1, got %d", s.Size)
		}
		return ring{n: s.Size, bidir: s.Bidir}, nil
	case "mesh", "torus":
		return s.buildGrid(bad)
	case "twisted-torus":
		return s.buildTwisted(bad)
	case "tree", "fat-tree":
		if s.Arity < 2 {
			return nil, bad("arity", "a tree needs arity >= 2, got %d", s.Arity)
		}
		if s.Size < 0 {
			return nil, bad("size", "negative")
		}
		n := s.Size
		if n == 0 {
			n = s.maxSize
		}
		return newTree(s.Arity, n), nil
	case "eq5":
		return s.buildEq5(bad)
	case "":
		return nil, bad("topology", "missing (star, ring, mesh, torus, twisted-torus, tree, fat-tree, eq5)")
	}
	return nil, bad("topology", "unknown kind %q (star, ring, mesh, torus, twisted-torus, tree, fat-tree, eq5)", s.Kind)
}

// badField makes the error of one field of a topology: "levels[i].dims: ...".
type badField func(f, why string, a ...any) error

func (s topologySpec) fieldError(field string) badField {
	return func(f, why string, a ...any) error {
		return fmt.Errorf("%s.%s: %s", field, f, fmt.Sprintf(why, a...))
	}
}

// checkDims checks the dimensions of a grid: at least one, each >= 1, and
// at most 2^24 positions in all.
func (s topologySpec) checkDims(bad badField) error {
	if len(s.Dims) == 0 {
		return bad("dims", "%s needs at least one dimension", s.Kind)
	}
	n := 1
	for i, d := range s.Dims {
		if d < 1 {
			return bad("dims", "dimension %d has size %d, want >= 1", i, d)
		}
		if n > 1<<24/d {
			return bad("dims", "more than %d positions", 1<<24)
		}
		n *= d
	}
	return nil
}

// buildGrid builds a mesh or a torus (wrapping in every dimension unless
// wrap says which).
func (s topologySpec) buildGrid(bad badField) (topology, error) {
	if err := s.checkDims(bad); err != nil {
		return nil, err
	}
	wrap := make([]bool, len(s.Dims))
	if s.Kind == "torus" {
		switch {
		case s.Wrap == nil:
			for i := range wrap {
				wrap[i] = true
			}
		case len(s.Wrap) != len(s.Dims):
			return nil, bad("wrap", "has %d entries for %d dims", len(s.Wrap), len(s.Dims))
		default:
			copy(wrap, s.Wrap)
		}
	} else if s.Wrap != nil {
		return nil, bad("wrap", "a mesh does not wrap (use topology torus)")
	}
	return newGrid(s.Dims, wrap), nil
}

// buildTwisted builds a twisted torus (type twisted): degree 1 and jumps
// of 1 unless given.
func (s topologySpec) buildTwisted(bad badField) (topology, error) {
	if err := s.checkDims(bad); err != nil {
		return nil, err
	}
	g := newGrid(s.Dims, make([]bool, len(s.Dims)))
	for i := range g.wrap {
		g.wrap[i] = true
	}
	if g.n > 1<<16-1 {
		return nil, bad("dims", "twisted torus limited to %d positions", 1<<16-1)
	}
	deg := s.Degree
	if deg == 0 {
		deg = 1
	}
	if deg < 0 || deg >= len(s.Dims) && len(s.Dims) > 1 {
		return nil, bad("degree", "%d is not in 1..%d", deg, len(s.Dims)-1)
	}
	jump := s.Jump
	if jump == nil {
		jump = make([]int, len(s.Dims))
		for i := range jump {
			jump[i] = 1
		}
	} else if len(jump) != len(s.Dims) {
		return nil, bad("jump", "has %d entries for %d dims", len(jump), len(s.Dims))
	}
	return &twisted{g: g, degree: deg, jump: jump}, nil
}

// buildEq5 builds the paper's Eq. (5) topology, with its defaults
// (group 16, near 3, far 5).
func (s topologySpec) buildEq5(bad badField) (topology, error) {
	e := eq5{group: s.Group, near: s.Near, far: s.Far}
	if e.group == 0 {
		e.group = 16
	}
	if e.near == 0 {
		e.near = 3
	}
	if e.far == 0 {
		e.far = 5
	}
	if e.group < 1 || e.near < 1 || e.far < e.near {
		return nil, bad("group", "eq5 wants group >= 1 and 1 <= near <= far")
	}
	return e, nil
}
