package mpi

// Distributed graph topologies (MPI_Dist_graph_create_adjacent). Each rank
// names its own in- and out-neighbours; nobody holds the whole graph.

// distGraph is a distributed-graph topology as one rank holds it.
type distGraph struct {
	srcs, dsts []int
	srcW, dstW []int
	weighted   bool
}

func (t *distGraph) kind() Topology      { return TopoDistGraph }
func (t *distGraph) sources() []int      { return t.srcs }
func (t *distGraph) destinations() []int { return t.dsts }

// recvSlot keeps the sources' order: between two ranks the k-th edge one
// way matches the k-th edge the other way (MPI-4.1 section 8.6), which is
// what posting in list order gives, the sends going out in list order too.
func (t *distGraph) recvSlot(j int) int { return j }

// DistGraphCreateAdjacent makes a communicator of c's ranks, in c's order,
// with a distributed graph topology in which the calling rank receives from
// sources and sends to destinations (MPI_Dist_graph_create_adjacent). The
// lists may repeat a rank and name the caller itself, as MPI allows; each
// edge must be named by both its ends (a rank listing j as a destination
// must be listed as a source by j, as often), which the neighbour
// collectives rely on and which, as in MPICH, is not checked. sourceWeights
// and destWeights give each edge a non-negative weight, or are both nil for
// an unweighted graph (MPI_UNWEIGHTED); every rank must choose the same,
// but in a weighted graph an empty list's weights may be nil. As
// with CartCreate, reorder is accepted and the order kept. Collective over c.
func (c *Comm) DistGraphCreateAdjacent(sources, sourceWeights, destinations, destWeights []int, reorder bool) (*Comm, error) {
	c.unrecordable(unrecTopology) // a record cannot hold it yet (record.go)
	c.enter(callDistGraphCreate, 0, 0)
	defer c.leave()
	if err := c.begin(); err != nil {
		return nil, err
	}
	n := c.Size()
	check := func(what string, ranks, weights []int) error {
		for i, r := range ranks {
			if r < 0 || r >= n {
				return errorf(ClassRank, "DistGraphCreateAdjacent: %s[%d] = %d out of range [0,%d)", what, i, r, n)
			}
		}
		if weights == nil {
			return nil
		}
		if len(weights) != len(ranks) {
			return errorf(ClassArg, "DistGraphCreateAdjacent: %d %s weights for %d %s", len(weights), what, len(ranks), what)
		}
		for i, w := range weights {
			if w < 0 {
				return errorf(ClassArg, "DistGraphCreateAdjacent: %s weight %d is negative (%d)", what, i, w)
			}
		}
		return nil
	}
	if err := check("sources", sources, sourceWeights); err != nil {
		return nil, err
	}
	if err := check("destinations", destinations, destWeights); err != nil {
		return nil, err
	}
	// In a weighted graph a list without edges may come without weights
	// (nil as MPI_WEIGHTS_EMPTY); a list with edges may not.
	weighted := sourceWeights != nil || destWeights != nil
	if weighted && (sourceWeights == nil && len(sources) > 0 || destWeights == nil && len(destinations) > 0) {
		return nil, errorf(ClassArg, "DistGraphCreateAdjacent: weights given for one direction only")
	}
	t := &distGraph{
		srcs:     append([]int{}, sources...),
		dsts:     append([]int{}, destinations...),
		weighted: weighted,
	}
	if t.weighted {
		t.srcW = append([]int{}, sourceWeights...)
		t.dstW = append([]int{}, destWeights...)
	}
	return c.topoComm(n, func(int) topology { return t })
}

// DistGraphNeighborsCount is the calling rank's number of sources and
// destinations, and whether the graph is weighted
// (MPI_Dist_graph_neighbors_count).
func (c *Comm) DistGraphNeighborsCount() (indegree, outdegree int, weighted bool, err error) {
	t, err := c.graphTopo("DistGraphNeighborsCount")
	if err != nil {
		return 0, 0, false, err
	}
	return len(t.srcs), len(t.dsts), t.weighted, nil
}

// DistGraphNeighbors returns the calling rank's sources and destinations in
// the order given at creation, with their weights (nil when unweighted)
// (MPI_Dist_graph_neighbors). The slices are the caller's.
func (c *Comm) DistGraphNeighbors() (sources, sourceWeights, destinations, destWeights []int, err error) {
	t, err := c.graphTopo("DistGraphNeighbors")
	if err != nil {
		return nil, nil, nil, nil, err
	}
	sources, destinations = append([]int{}, t.srcs...), append([]int{}, t.dsts...)
	if t.weighted {
		sourceWeights, destWeights = append([]int{}, t.srcW...), append([]int{}, t.dstW...)
	}
	return sources, sourceWeights, destinations, destWeights, nil
}
