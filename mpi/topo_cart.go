package mpi

// Cartesian topologies (MPI_Cart_*). Ranks are laid out in row-major order
// (the last dimension varies fastest), as MPI specifies, so the coordinate
// arithmetic needs no table: each rank keeps only the grid's shape, its own
// coordinates and its 2*ndims neighbours.

// cart is a Cartesian topology as one rank holds it.
type cart struct {
	dims    []int
	periods []bool
	strides []int // rank distance of one step along each dimension
	rank    int   // the holding rank
	coords  []int // its coordinates
	nbrs    []int // per dimension the -1 then the +1 neighbour; ProcNull off a non-periodic edge
}

func (t *cart) kind() Topology      { return TopoCart }
func (t *cart) sources() []int      { return t.nbrs }
func (t *cart) destinations() []int { return t.nbrs }

// recvSlot swaps the two receives of each dimension. MPI-4.1 section 8.6
// (an erratum to 3.1 and 4.0, mpi-forum issue 153) says block s of a sender
// lands in block s^1 of the receiver: what a rank sends to its -1 neighbour
// arrives as that neighbour's +1 block. When both neighbours in a dimension
// are one rank (a periodic dimension of 1 or 2), its two messages arrive in
// the order it sent them, -1 first, so the +1 block must be posted first.
// Ranks are neighbours in one dimension only (or, for a rank and itself, in
// every periodic dimension of extent 1, in the same dimension order on both
// sides), so swapping within each dimension is enough.
func (t *cart) recvSlot(j int) int { return j ^ 1 }

func newCart(dims []int, periods []bool, rank int) *cart {
	t := &cart{dims: dims, periods: periods, rank: rank, strides: make([]int, len(dims))}
	stride := 1
	for d := len(dims) - 1; d >= 0; d-- {
		t.strides[d] = stride
		stride *= dims[d]
	}
	t.coords = t.coordsOf(rank)
	t.nbrs = make([]int, 0, 2*len(dims))
	for d := range dims {
		src, dst := t.shift(d, 1)
		t.nbrs = append(t.nbrs, src, dst)
	}
	return t
}

// coordsOf is the coordinates of rank (0 <= rank < product of dims).
func (t *cart) coordsOf(rank int) []int {
	co := make([]int, len(t.dims))
	for d := len(t.dims) - 1; d >= 0; d-- {
		co[d] = rank % t.dims[d]
		rank /= t.dims[d]
	}
	return co
}

// rankOf is the rank at co, wrapping periodic dimensions; ok is false when
// a coordinate of a non-periodic dimension is off the grid.
func (t *cart) rankOf(co []int) (rank int, ok bool) {
	for d, x := range co {
		n := t.dims[d]
		if x < 0 || x >= n {
			if !t.periods[d] {
				return 0, false
			}
			x = (x%n + n) % n
		}
		rank = rank*n + x
	}
	return rank, true
}

// shift is MPI_Cart_shift for the holding rank. Only one coordinate moves,
// so the neighbour is a stride away: O(1) per dimension, which keeps
// building a grid of many (extent-1) dimensions linear in their number.
func (t *cart) shift(dim, disp int) (src, dst int) {
	at := func(delta int) int {
		n, x := t.dims[dim], t.coords[dim]
		y := x + delta
		if y < 0 || y >= n {
			if !t.periods[dim] {
				return ProcNull
			}
			y = (y%n + n) % n
		}
		return t.rank + (y-x)*t.strides[dim]
	}
	return at(-disp), at(disp)
}

// CartCreate makes a communicator of the first prod(dims) ranks of c with a
// Cartesian topology: dims[i] ranks along dimension i, periodic (wrapping
// around) where periods[i] is true (MPI_Cart_create). Collective over c;
// every rank must pass the same dims and periods. Ranks of c beyond the
// grid get nil. Zero dimensions make a grid of one rank.
//
// reorder permits renumbering the ranks to fit the machine; like MPICH
// without a device-specific mapping, gompi keeps c's order either way, so
// rank r of the new communicator is rank r of c.
func (c *Comm) CartCreate(dims []int, periods []bool, reorder bool) (*Comm, error) {
	c.unrecordable(unrecTopology) // a record cannot hold it yet (record.go)
	c.enter(callCartCreate, 0, 0)
	defer c.leave()
	if err := c.begin(); err != nil {
		return nil, err
	}
	if len(periods) != len(dims) {
		return nil, errorf(ClassArg, "CartCreate: %d periods for %d dimensions", len(periods), len(dims))
	}
	n := c.Size()
	prod := 1
	for i, d := range dims {
		if d <= 0 {
			return nil, errorf(ClassDims, "CartCreate: dims[%d] = %d, must be positive", i, d)
		}
		if prod > n/d {
			return nil, errorf(ClassTopology, "CartCreate: a grid of %v is larger than the communicator's %d ranks", dims, n)
		}
		prod *= d
	}
	dims = append([]int{}, dims...)
	periods = append([]bool{}, periods...)
	return c.topoComm(prod, func(rank int) topology { return newCart(dims, periods, rank) })
}

// CartDim is the number of dimensions of c's grid (MPI_Cartdim_get).
func (c *Comm) CartDim() (int, error) {
	t, err := c.cartTopo("CartDim")
	if err != nil {
		return 0, err
	}
	return len(t.dims), nil
}

// CartGet returns the grid's extents and periodicity and the calling
// rank's coordinates (MPI_Cart_get). The slices are the caller's.
func (c *Comm) CartGet() (dims []int, periods []bool, coords []int, err error) {
	t, err := c.cartTopo("CartGet")
	if err != nil {
		return nil, nil, nil, err
	}
	return append([]int{}, t.dims...), append([]bool{}, t.periods...), append([]int{}, t.coords...), nil
}

// CartRank is the rank at coords (MPI_Cart_rank). Coordinates of periodic
// dimensions wrap around; off the grid in a non-periodic one is ErrArg.
func (c *Comm) CartRank(coords []int) (int, error) {
	t, err := c.cartTopo("CartRank")
	if err != nil {
		return 0, err
	}
	if len(coords) != len(t.dims) {
		return 0, errorf(ClassArg, "CartRank: %d coordinates for %d dimensions", len(coords), len(t.dims))
	}
	r, ok := t.rankOf(coords)
	if !ok {
		return 0, errorf(ClassArg, "CartRank: coordinates %v are off the grid %v", coords, t.dims)
	}
	return r, nil
}

// CartCoords is the coordinates of rank (MPI_Cart_coords).
func (c *Comm) CartCoords(rank int) ([]int, error) {
	t, err := c.cartTopo("CartCoords")
	if err != nil {
		return nil, err
	}
	if rank < 0 || rank >= c.Size() {
		return nil, errorf(ClassRank, "CartCoords: rank %d out of range [0,%d)", rank, c.Size())
	}
	return t.coordsOf(rank), nil
}

// CartShift returns the ranks disp steps below and above the calling rank
// along dimension dim (MPI_Cart_shift): receive from source and send to
// dest to shift data up by disp. Off the edge of a non-periodic dimension
// the rank is ProcNull.
func (c *Comm) CartShift(dim, disp int) (source, dest int, err error) {
	t, err := c.cartTopo("CartShift")
	if err != nil {
		return ProcNull, ProcNull, err
	}
	if dim < 0 || dim >= len(t.dims) {
		return ProcNull, ProcNull, errorf(ClassDims, "CartShift: dimension %d out of range [0,%d)", dim, len(t.dims))
	}
	source, dest = t.shift(dim, disp)
	return source, dest, nil
}

// CartSub splits c's grid into sub-grids that keep the dimensions where
// remain is true (MPI_Cart_sub): ranks that differ only in kept coordinates
// share a sub-grid, ordered row-major by them. Collective over c. With no
// dimension kept, each rank gets a zero-dimensional grid of its own.
func (c *Comm) CartSub(remain []bool) (*Comm, error) {
	c.unrecordable(unrecTopology) // a record cannot hold it yet (record.go)
	c.enter(callCartSub, 0, 0)
	defer c.leave()
	t, err := c.cartTopo("CartSub")
	if err != nil {
		return nil, err
	}
	if len(remain) != len(t.dims) {
		return nil, errorf(ClassArg, "CartSub: %d remain flags for %d dimensions", len(remain), len(t.dims))
	}
	// As MPICH does: Split with the dropped coordinates as color and the
	// kept ones as key, both row-major.
	var dims, coords []int
	var periods []bool
	color, key := 0, 0
	for d, keep := range remain {
		if keep {
			key = key*t.dims[d] + t.coords[d]
			dims = append(dims, t.dims[d])
			periods = append(periods, t.periods[d])
			coords = append(coords, t.coords[d])
		} else {
			color = color*t.dims[d] + t.coords[d]
		}
	}
	sub, err := c.Split(color, key)
	if err != nil {
		return nil, err
	}
	if sub.rank != key {
		return nil, errorf(ClassIntern, "CartSub: rank %d in the sub-grid, expected %d", sub.rank, key)
	}
	st := newCart(dims, periods, key)
	sub.withTopology(st)
	return sub, nil
}
