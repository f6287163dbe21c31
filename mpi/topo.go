package mpi

import "strconv"

// Process topologies (MPI-4.0 chapter 8): a communicator may carry a
// Cartesian grid (topo_cart.go) or a distributed graph (topo_graph.go).
// The topology tells the neighbour collectives (coll_neighbor.go) whom each
// rank exchanges with. A topology is per rank (each rank holds its own
// coordinates and neighbour lists, never the whole graph) and immutable:
// Dup shares it, Free drops it.

// Topology is the kind of topology a communicator carries (MPI_Topo_test).
type Topology int

const (
	TopoNone      Topology = iota // no topology (MPI_UNDEFINED)
	TopoCart                      // Cartesian grid (MPI_CART)
	TopoDistGraph                 // distributed graph (MPI_DIST_GRAPH)
)

func (t Topology) String() string {
	switch t {
	case TopoNone:
		return "TopoNone"
	case TopoCart:
		return "TopoCart"
	case TopoDistGraph:
		return "TopoDistGraph"
	}
	return "Topology(" + strconv.Itoa(int(t)) + ")"
}

// topology is what a communicator's topology offers the neighbour
// collectives: the rank's neighbours in MPI's order, and the order in which
// receives must be posted so that messages between a pair that are
// neighbours more than once land in the blocks MPI says.
type topology interface {
	kind() Topology
	// sources are the ranks whose blocks this rank receives, block i from
	// sources[i]; destinations the ranks it sends to, block k to
	// destinations[k]. ProcNull marks a missing neighbour (a Cartesian edge).
	sources() []int
	destinations() []int
	// recvSlot is the receive block to post j-th. All messages of one
	// neighbour collective carry one tag, so between a pair of ranks they
	// match in posting order (MPI's non-overtaking rule).
	recvSlot(j int) int
}

// Topo reports the kind of topology c carries (MPI_Topo_test).
func (c *Comm) Topo() (Topology, error) {
	if err := c.check(); err != nil {
		return TopoNone, err
	}
	if c.topology() == nil {
		return TopoNone, nil
	}
	return c.topology().kind(), nil
}

// topoComm makes the communicator a topology constructor returns: the
// first n ranks of c in c's order (reorder is not done, see CartCreate),
// with topology t built for the calling rank by mk. Collective over c: all
// ranks agree on a context id; ranks from n on get nil.
func (c *Comm) topoComm(n int, mk func(rank int) topology) (*Comm, error) {
	id, err := c.agreeContext()
	if err != nil {
		return nil, err
	}
	if c.rank >= n {
		c.r.ctxUsed.clear(id)
		return nil, nil
	}
	g := c.group
	if n < g.n {
		if g.ranks == nil {
			g = &Group{n: n, me: -1}
		} else {
			g = newGroup(append([]int32(nil), g.ranks[:n]...), int32(c.r.id))
		}
	}
	nc := &Comm{r: c.r, ctx: uint32(id) * 2, group: g, rank: c.rank}
	return nc.withTopology(mk(c.rank)), nil
}

// cartTopo is the Cartesian topology as one rank holds it.
func (c *Comm) cartTopo(what string) (*cart, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	t, ok := c.topology().(*cart)
	if !ok {
		return nil, errorf(ClassTopology, "%s: the communicator has no Cartesian topology", what)
	}
	return t, nil
}

// graphTopo is the distributed-graph topology as one rank holds it.
func (c *Comm) graphTopo(what string) (*distGraph, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	t, ok := c.topology().(*distGraph)
	if !ok {
		return nil, errorf(ClassTopology, "%s: the communicator has no distributed-graph topology", what)
	}
	return t, nil
}
