package vtime

import (
	"fmt"
	"testing"
)

// The hop functions against brute-force breadth-first search over the
// explicit link graph of small instances, built here independently of
// topology.go.

type graph [][]int

func (g *graph) node() int    { *g = append(*g, nil); return len(*g) - 1 }
func (g graph) link(a, b int) { g[a] = append(g[a], b); g[b] = append(g[b], a) }
func (g graph) arc(a, b int)  { g[a] = append(g[a], b) }

func (g graph) bfs(src int) []int {
	d := make([]int, len(g))
	for i := range d {
		d[i] = -1
	}
	d[src] = 0
	q := []int{src}
	for len(q) > 0 {
		p := q[0]
		q = q[1:]
		for _, n := range g[p] {
			if d[n] < 0 {
				d[n] = d[p] + 1
				q = append(q, n)
			}
		}
	}
	return d
}

// coords and index for grids, dimension 0 fastest.
func coords(p int, dims []int) []int {
	c := make([]int, len(dims))
	for i, m := range dims {
		c[i], p = p%m, p/m
	}
	return c
}

func index(c, dims []int) int {
	p := 0
	for i := len(dims) - 1; i >= 0; i-- {
		p = p*dims[i] + c[i]
	}
	return p
}

// gridGraph links neighbours along each dimension; wrap closes dimension i
// into a ring, and twist (for a twisted torus) moves dimension
// (i+degree) mod k by jump[i] on the wrap link.
func gridGraph(dims []int, wrap []bool, degree int, jump []int) graph {
	n := 1
	for _, m := range dims {
		n *= m
	}
	g := make(graph, n)
	for p := 0; p < n; p++ {
		for i, m := range dims {
			c := coords(p, dims)
			if c[i]+1 < m {
				c[i]++
				g.link(p, index(c, dims))
				continue
			}
			if !wrap[i] || m == 1 {
				continue
			}
			c[i] = 0
			if jump != nil {
				e := (i + degree) % len(dims)
				if e != i {
					c[e] = (c[e] + jump[i]) % dims[e]
				}
			}
			if q := index(c, dims); q != p {
				g.link(p, q)
			}
		}
	}
	return g
}

func checkAllPairs(t *testing.T, name string, topo topology, g graph, pos func(int) int) {
	t.Helper()
	n := topo.size()
	for a := 0; a < n; a++ {
		d := g.bfs(pos(a))
		for b := 0; b < n; b++ {
			if got, want := topo.hop(a, b), d[pos(b)]; got != want {
				t.Fatalf("%s: hop(%d, %d) = %d, BFS says %d", name, a, b, got, want)
			}
		}
	}
}

func build(t *testing.T, s topologySpec) topology {
	t.Helper()
	topo, err := s.build("test")
	if err != nil {
		t.Fatal(err)
	}
	return topo
}

func id(i int) int { return i }

func TestTopologyStarMatchesBFS(t *testing.T) {
	const n = 7
	g := make(graph, n+1) // node n is the switch
	for i := 0; i < n; i++ {
		g.link(i, n)
	}
	checkAllPairs(t, "star", build(t, topologySpec{Kind: "star", Size: n}), g, id)
}

func TestTopologyRingMatchesBFS(t *testing.T) {
	for _, n := range []int{1, 2, 5, 8} {
		uni, bi := make(graph, n), make(graph, n)
		for i := 0; i < n; i++ {
			uni.arc(i, (i+1)%n)
			bi.link(i, (i+1)%n)
		}
		checkAllPairs(t, fmt.Sprint("ring", n), build(t, topologySpec{Kind: "ring", Size: n}), uni, id)
		checkAllPairs(t, fmt.Sprint("biring", n), build(t, topologySpec{Kind: "ring", Size: n, Bidir: true}), bi, id)
	}
}

func TestTopologyMeshTorusMatchBFS(t *testing.T) {
	for _, dims := range [][]int{{5}, {3, 4}, {4, 4}, {2, 3, 4}, {3, 3, 3}, {5, 1, 2}} {
		none := make([]bool, len(dims))
		all := make([]bool, len(dims))
		some := make([]bool, len(dims))
		for i := range all {
			all[i] = true
			some[i] = i%2 == 0
		}
		checkAllPairs(t, fmt.Sprint("mesh", dims), build(t, topologySpec{Kind: "mesh", Dims: dims}),
			gridGraph(dims, none, 0, nil), id)
		checkAllPairs(t, fmt.Sprint("torus", dims), build(t, topologySpec{Kind: "torus", Dims: dims}),
			gridGraph(dims, all, 0, nil), id)
		checkAllPairs(t, fmt.Sprint("torus", dims, some), build(t, topologySpec{Kind: "torus", Dims: dims, Wrap: some}),
			gridGraph(dims, some, 0, nil), id)
	}
}

func TestTopologyTwistedTorusMatchesBFS(t *testing.T) {
	for _, tc := range []struct {
		dims, jump []int
		degree     int
	}{
		{[]int{4, 4}, []int{1, 2}, 1},
		{[]int{4, 4}, []int{2, 1}, 1},
		{[]int{3, 3, 2}, []int{1, 1, 1}, 1},
		{[]int{3, 3, 2}, []int{1, 1, 1}, 2},
		{[]int{5, 3}, []int{2, 0}, 1},
	} {
		all := make([]bool, len(tc.dims))
		for i := range all {
			all[i] = true
		}
		topo := build(t, topologySpec{Kind: "twisted-torus", Dims: tc.dims, Jump: tc.jump, Degree: tc.degree})
		checkAllPairs(t, fmt.Sprint("twisted", tc), topo, gridGraph(tc.dims, all, tc.degree, tc.jump), id)
	}
	// A twist shortens some paths: in a 4x4 with jump 2 on dimension 0,
	// (3,0) -> (0,2) is one link instead of the torus's 1 + 2.
	topo := build(t, topologySpec{Kind: "twisted-torus", Dims: []int{4, 4}, Jump: []int{2, 0}})
	if h := topo.hop(index([]int{3, 0}, []int{4, 4}), index([]int{0, 2}, []int{4, 4})); h != 1 {
		t.Errorf("twisted 4x4 jump 2: hop((3,0),(0,2)) = %d, want 1", h)
	}
}

func TestTopologyTreeMatchesBFS(t *testing.T) {
	for _, tc := range []struct{ arity, n int }{{2, 8}, {2, 5}, {3, 9}, {4, 16}, {4, 7}} {
		g := make(graph, tc.n)
		level := make([]int, tc.n)
		for i := range level {
			level[i] = i
		}
		for len(level) > 1 {
			var up []int
			for i := 0; i < len(level); i += tc.arity {
				r := g.node()
				for j := i; j < i+tc.arity && j < len(level); j++ {
					g.link(level[j], r)
				}
				up = append(up, r)
			}
			level = up
		}
		checkAllPairs(t, fmt.Sprint("tree", tc), build(t, topologySpec{Kind: "tree", Arity: tc.arity, Size: tc.n}), g, id)
	}
}

// TestHierarchicalHopMatchesBFS composes two levels the way route does:
// groups of the inner topology whose uplink node joins the outer network.
// The composed graph is built explicitly and searched.
func TestHierarchicalHopMatchesBFS(t *testing.T) {
	type lvl struct {
		spec topologySpec
		// inner graph for one group, its uplink node, and leaf -> node
		graph func() (graph, int)
	}
	starG := func(n int) func() (graph, int) {
		return func() (graph, int) {
			g := make(graph, n+1)
			for i := 0; i < n; i++ {
				g.link(i, n)
			}
			return g, n
		}
	}
	meshG := func(dims []int) func() (graph, int) {
		return func() (graph, int) { return gridGraph(dims, make([]bool, len(dims)), 0, nil), 0 }
	}
	for _, tc := range []struct {
		name  string
		inner lvl
		outer topologySpec
		outG  func(n int) graph
		nodes int
	}{
		{"star-in-star", lvl{topologySpec{Kind: "star", Size: 4}, starG(4)}, topologySpec{Kind: "star"},
			func(n int) graph { g := make(graph, n+1); return g }, 12},
		{"mesh-in-torus", lvl{topologySpec{Kind: "mesh", Dims: []int{2, 3}}, meshG([]int{2, 3})},
			topologySpec{Kind: "torus", Dims: []int{4}}, nil, 24},
		{"star-in-mesh", lvl{topologySpec{Kind: "star", Size: 2}, starG(2)},
			topologySpec{Kind: "mesh", Dims: []int{3, 2}}, nil, 12},
	} {
		m := &Machine{Name: tc.name, BMem: 1e9, CoresPerNode: 1, Levels: []Level{
			{topologySpec: tc.inner.spec, Bandwidth: 1e9, LH: 1},
			{topologySpec: tc.outer, Bandwidth: 1e9, LH: 1},
		}}
		tg, err := m.Place(tc.nodes)
		if err != nil {
			t.Fatal(err)
		}
		// Compose: one copy of the inner graph per group; uplinks joined by
		// the outer network.
		gsize := tc.inner.spec.Size
		if gsize == 0 {
			gsize = 6
		}
		groups := tc.nodes / gsize
		var g graph
		leaf := make([]int, tc.nodes)
		uplink := make([]int, groups)
		for k := 0; k < groups; k++ {
			ig, up := tc.inner.graph()
			base := len(g)
			for range ig {
				g.node()
			}
			for a, ns := range ig {
				for _, b := range ns {
					g.arc(base+a, base+b)
				}
			}
			for i := 0; i < gsize; i++ {
				leaf[k*gsize+i] = base + i
			}
			uplink[k] = base + up
		}
		switch tc.outer.Kind {
		case "star":
			c := g.node()
			for _, u := range uplink {
				g.link(u, c)
			}
		default:
			wrap := make([]bool, len(tc.outer.Dims))
			if tc.outer.Kind == "torus" {
				for i := range wrap {
					wrap[i] = true
				}
			}
			og := gridGraph(tc.outer.Dims, wrap, 0, nil)
			for a, ns := range og {
				for _, b := range ns {
					g.arc(uplink[a], uplink[b])
				}
			}
		}
		for x := 0; x < tc.nodes; x++ {
			d := g.bfs(leaf[x])
			for y := 0; y < tc.nodes; y++ {
				if got := tg.Hop(x, y); got != d[leaf[y]] {
					t.Fatalf("%s: hop(%d, %d) = %d, BFS says %d", tc.name, x, y, got, d[leaf[y]])
				}
			}
		}
	}
}
