package adi

import (
	"math"

	"github.com/gompi/gompi/mpi"
)

// cell is one cell of the multi-partition: its place and extent in the
// grid and its arrays. Every array of a rank's cells has the same layout:
// (i, j, k) for i in -2..nx-3 etc., i fastest, at index (k+2)*sk + (j+2)*sj
// + (i+2), and the components of u, rhs, forcing and lhs one after the
// other, cv points apart. The reference's arrays have one or two ghost
// planes (u, us, ...) or none (rhs, lhs); one layout lets every loop share
// its index arithmetic.
type cell struct {
	coord      [3]int // 0-based cell coordinates
	size       [3]int
	low, high  [3]int // global index range
	start, end [3]int // 1 where the cell touches the grid's lower/upper boundary

	u, rhs, forcing              []float64
	us, vs, ws, qs, rhoI, square []float64

	// The left-hand side: BT's 5x5 blocks (25 values a point, block
	// (m, n) at (5*m+n)*cv) or SP's pentadiagonal bands (15 a point).
	lhs []float64
	// SP only: the speed of sound and its inverse.
	speed, ainv []float64
}

// State is one rank's benchmark state: everything the reference keeps in
// module variables (bt_data or sp_data, mpinpb).
type State struct {
	b *Benchmark
	// txinvrInRHS: compute_rhs ends each row with SP's txinvr (adi).
	txinvrInRHS bool

	setup, solve, rhsComm *mpi.Comm
	node, noNodes, ncells int

	grid [3]int
	dt   float64
	k    consts

	// Array geometry shared by all cells (see cell).
	nx, ny, nz, sj, sk, cv int
	stride                 [3]int
	maxCell                int

	fc [3]fluxCoef // per axis: the flux coefficients of compute_rhs

	cells       []cell
	slice       [3][]int // slice[d][n]: the cell in coordinate plane n along d
	pred, succ  [3]int   // neighbour ranks (predecessor/successor)
	inBuf, out  []float64
	bsize, ssnd [6]int // copy_faces buffer sizes and offsets: east, west, north, south, top, bottom

	// Scratch: exact_rhs's lines ue, buf, cuf, q; SP's rhon along the
	// lines of a solve (the reference's cv and rhon lines, as a field);
	// BT's Jacobians and lower and diagonal blocks along one line, 25
	// values a point from point -1 on.
	ue, buf                [5][]float64
	rhonf                  []float64
	fjac, njac, lhsa, lhsb []float64
	cuf, q                 []float64
	reqs                   [12]*mpi.Request

	t timers
}

// allocSpace sizes the arrays as the reference's alloc_space does.
func (s *State) allocSpace(problemSize int) {
	mcd := problemSize/s.ncells + 1
	s.maxCell = mcd
	imaxp := mcd/2*2 + 1
	s.nx, s.ny, s.nz = imaxp+4, imaxp+4, mcd+4
	s.sj, s.sk = s.nx, s.nx*s.ny
	s.cv = s.nx * s.ny * s.nz
	s.stride = [3]int{1, s.sj, s.sk}
	bufSize := mcd*mcd*(s.ncells-1)*60*2 + 1
	if n := s.b.solveBuffer * mcd * mcd; n > bufSize {
		bufSize = n
	}
	s.inBuf = make([]float64, bufSize)
	s.out = make([]float64, bufSize)
	s.cells = make([]cell, s.ncells)
	for i := range s.cells {
		c := &s.cells[i]
		c.u = make([]float64, 5*s.cv)
		c.rhs = make([]float64, 5*s.cv)
		c.forcing = make([]float64, 5*s.cv)
		c.lhs = make([]float64, s.b.lhsPerPoint*s.cv)
		for _, a := range []*[]float64{&c.us, &c.vs, &c.ws, &c.qs, &c.rhoI, &c.square} {
			*a = make([]float64, s.cv)
		}
		if s.b.speed {
			c.speed = make([]float64, s.cv)
			c.ainv = make([]float64, s.cv)
		}
	}
	line := mcd + 4
	if s.b.lineScratch {
		for _, a := range []*[]float64{&s.fjac, &s.njac, &s.lhsa, &s.lhsb} {
			*a = make([]float64, 25*line)
		}
	} else {
		s.rhonf = make([]float64, s.cv)
	}
	for m := range s.ue {
		s.ue[m] = make([]float64, line)
		s.buf[m] = make([]float64, line)
	}
	s.cuf = make([]float64, line)
	s.q = make([]float64, line)
	for d := range s.slice {
		s.slice[d] = make([]int, s.ncells)
	}
}

// idx is the array index of point (i, j, k) of a cell.
func (s *State) idx(i, j, k int) int { return (k+2)*s.sk + (j+2)*s.sj + i + 2 }

// makeSet places this rank's cells so that communication between cells on
// different ranks is only nearest neighbour (make_set.f): the cells of a
// rank lie on a diagonal, one per plane of cells in every direction.
func (s *State) makeSet() {
	p := s.ncells
	c0 := &s.cells[0]
	c0.coord = [3]int{s.node % p, s.node / p, 0}
	for c := 1; c < p; c++ {
		prev := s.cells[c-1].coord
		s.cells[c].coord = [3]int{(prev[0] + 1) % p, (prev[1] - 1 + p) % p, c}
	}
	for d := 0; d < 3; d++ {
		for c := 0; c < p; c++ {
			s.slice[d][s.cells[c].coord[d]] = c
		}
	}
	i, j := c0.coord[0], c0.coord[1]
	s.pred[0] = (i-1+p)%p + p*j
	s.pred[1] = i + p*((j-1+p)%p)
	s.pred[2] = (i+1)%p + p*((j-1+p)%p)
	s.succ[0] = (i+1)%p + p*j
	s.succ[1] = i + p*((j+1)%p)
	s.succ[2] = (i-1+p)%p + p*((j+1)%p)

	for d := 0; d < 3; d++ {
		size, excess := s.grid[d]/p, s.grid[d]%p
		for c := range s.cells {
			cl := &s.cells[c]
			co := cl.coord[d]
			if co < excess {
				cl.size[d] = size + 1
				cl.low[d] = co * (size + 1)
			} else {
				cl.size[d] = size
				cl.low[d] = excess*(size+1) + (co-excess)*size
			}
			cl.high[d] = cl.low[d] + cl.size[d] - 1
			cl.start[d], cl.end[d] = 0, 0
			if co == 0 {
				cl.start[d] = 1
			}
			if co == p-1 {
				cl.end[d] = 1
			}
		}
	}
}

// computeBufferSize sizes the six face buffers of copy_faces for dim
// values per point (compute_buffer_size).
func (s *State) computeBufferSize(dim int) {
	if s.ncells == 1 {
		return
	}
	var west, east, south, north, bottom, top int
	for c := range s.cells {
		cl := &s.cells[c]
		last := s.ncells - 1
		fx := cl.size[1] * cl.size[2] * dim * 2
		fy := cl.size[0] * cl.size[2] * dim * 2
		fz := cl.size[0] * cl.size[1] * dim * 2
		if cl.coord[0] != 0 {
			west += fx
		}
		if cl.coord[0] != last {
			east += fx
		}
		if cl.coord[1] != 0 {
			south += fy
		}
		if cl.coord[1] != last {
			north += fy
		}
		if cl.coord[2] != 0 {
			bottom += fz
		}
		if cl.coord[2] != last {
			top += fz
		}
	}
	// The buffer holds west, east, south, north, bottom, top in that order;
	// bsize and ssnd are indexed east, west, north, south, top, bottom as
	// the reference's b_size and ss.
	s.bsize = [6]int{east, west, north, south, top, bottom}
	sw := 0
	se := sw + west
	ssouth := se + east
	sn := ssouth + south
	sb := sn + north
	st := sb + bottom
	s.ssnd = [6]int{se, sw, sn, ssouth, st, sb}
}

// fluxCoef are compute_rhs's coefficients along one axis: t2 (tx2, ...),
// the viscous terms' con2..con5 (xxcon2, ...) and dd, the dissipation
// coefficients of the five equations (dx1tx1, ...).
type fluxCoef struct {
	t2, con2, con3, con4, con5 float64
	dd                         [5]float64
}

// consts are the reference's set_constants values.
type consts struct {
	ce                                               [5][13]float64
	c1, c2, c3, c4, c5, bt                           float64
	dnxm1, dnym1, dnzm1                              float64
	c1c2, c1c5, c3c4, c1345, conz1                   float64
	tx1, tx2, tx3, ty1, ty2, ty3, tz1, tz2, tz3      float64
	dx1, dx2, dx3, dx4, dx5, dy1, dy2, dy3, dy4, dy5 float64
	dz1, dz2, dz3, dz4, dz5, dxmax, dymax, dzmax     float64
	dssp, c4dssp, c5dssp                             float64
	dttx1, dttx2, dtty1, dtty2, dttz1, dttz2         float64
	c2dttx1, c2dtty1, c2dttz1, dtdssp                float64
	comz1, comz4, comz5, comz6                       float64
	c3c4tx3, c3c4ty3, c3c4tz3                        float64
	dx1tx1, dx2tx1, dx3tx1, dx4tx1, dx5tx1           float64
	dy1ty1, dy2ty1, dy3ty1, dy4ty1, dy5ty1           float64
	dz1tz1, dz2tz1, dz3tz1, dz4tz1, dz5tz1           float64
	c2iv, con43, con16                               float64
	xxcon1, xxcon2, xxcon3, xxcon4, xxcon5           float64
	yycon1, yycon2, yycon3, yycon4, yycon5           float64
	zzcon1, zzcon2, zzcon3, zzcon4, zzcon5           float64
	dt                                               float64
}

func (s *State) setConstants() {
	k := &s.k
	k.ce = [5][13]float64{
		{2.0, 0.0, 0.0, 4.0, 5.0, 3.0, 0.5, 0.02, 0.01, 0.03, 0.5, 0.4, 0.3},
		{1.0, 0.0, 0.0, 0.0, 1.0, 2.0, 3.0, 0.01, 0.03, 0.02, 0.4, 0.3, 0.5},
		{2.0, 2.0, 0.0, 0.0, 0.0, 2.0, 3.0, 0.04, 0.03, 0.05, 0.3, 0.5, 0.4},
		{2.0, 2.0, 0.0, 0.0, 0.0, 2.0, 3.0, 0.03, 0.05, 0.04, 0.2, 0.1, 0.3},
		{5.0, 4.0, 3.0, 2.0, 0.1, 0.4, 0.3, 0.05, 0.04, 0.03, 0.1, 0.3, 0.2},
	}
	k.c1, k.c2, k.c3, k.c4, k.c5 = 1.4, 0.4, 0.1, 1.0, 1.4
	k.bt = math.Sqrt(0.5)
	k.dnxm1 = 1.0 / float64(s.grid[0]-1)
	k.dnym1 = 1.0 / float64(s.grid[1]-1)
	k.dnzm1 = 1.0 / float64(s.grid[2]-1)
	k.c1c2 = k.c1 * k.c2
	k.c1c5 = k.c1 * k.c5
	k.c3c4 = k.c3 * k.c4
	k.c1345 = k.c1c5 * k.c3c4
	k.conz1 = 1.0 - k.c1c5
	k.tx1 = 1.0 / (k.dnxm1 * k.dnxm1)
	k.tx2 = 1.0 / (2.0 * k.dnxm1)
	k.tx3 = 1.0 / k.dnxm1
	k.ty1 = 1.0 / (k.dnym1 * k.dnym1)
	k.ty2 = 1.0 / (2.0 * k.dnym1)
	k.ty3 = 1.0 / k.dnym1
	k.tz1 = 1.0 / (k.dnzm1 * k.dnzm1)
	k.tz2 = 1.0 / (2.0 * k.dnzm1)
	k.tz3 = 1.0 / k.dnzm1
	k.dx1, k.dx2, k.dx3, k.dx4, k.dx5 = 0.75, 0.75, 0.75, 0.75, 0.75
	k.dy1, k.dy2, k.dy3, k.dy4, k.dy5 = 0.75, 0.75, 0.75, 0.75, 0.75
	k.dz1, k.dz2, k.dz3, k.dz4, k.dz5 = 1.0, 1.0, 1.0, 1.0, 1.0
	k.dxmax = math.Max(k.dx3, k.dx4)
	k.dymax = math.Max(k.dy2, k.dy4)
	k.dzmax = math.Max(k.dz2, k.dz3)
	k.dssp = 0.25 * math.Max(k.dx1, math.Max(k.dy1, k.dz1))
	k.c4dssp = 4.0 * k.dssp
	k.c5dssp = 5.0 * k.dssp
	dt := s.dt
	k.dt = dt
	k.dttx1 = dt * k.tx1
	k.dttx2 = dt * k.tx2
	k.dtty1 = dt * k.ty1
	k.dtty2 = dt * k.ty2
	k.dttz1 = dt * k.tz1
	k.dttz2 = dt * k.tz2
	k.c2dttx1 = 2.0 * k.dttx1
	k.c2dtty1 = 2.0 * k.dtty1
	k.c2dttz1 = 2.0 * k.dttz1
	k.dtdssp = dt * k.dssp
	k.comz1 = k.dtdssp
	k.comz4 = 4.0 * k.dtdssp
	k.comz5 = 5.0 * k.dtdssp
	k.comz6 = 6.0 * k.dtdssp
	k.c3c4tx3 = k.c3c4 * k.tx3
	k.c3c4ty3 = k.c3c4 * k.ty3
	k.c3c4tz3 = k.c3c4 * k.tz3
	k.dx1tx1, k.dx2tx1, k.dx3tx1, k.dx4tx1, k.dx5tx1 = k.dx1*k.tx1, k.dx2*k.tx1, k.dx3*k.tx1, k.dx4*k.tx1, k.dx5*k.tx1
	k.dy1ty1, k.dy2ty1, k.dy3ty1, k.dy4ty1, k.dy5ty1 = k.dy1*k.ty1, k.dy2*k.ty1, k.dy3*k.ty1, k.dy4*k.ty1, k.dy5*k.ty1
	k.dz1tz1, k.dz2tz1, k.dz3tz1, k.dz4tz1, k.dz5tz1 = k.dz1*k.tz1, k.dz2*k.tz1, k.dz3*k.tz1, k.dz4*k.tz1, k.dz5*k.tz1
	k.c2iv = 2.5
	k.con43 = 4.0 / 3.0
	k.con16 = 1.0 / 6.0
	k.xxcon1 = k.c3c4tx3 * k.con43 * k.tx3
	k.xxcon2 = k.c3c4tx3 * k.tx3
	k.xxcon3 = k.c3c4tx3 * k.conz1 * k.tx3
	k.xxcon4 = k.c3c4tx3 * k.con16 * k.tx3
	k.xxcon5 = k.c3c4tx3 * k.c1c5 * k.tx3
	k.yycon1 = k.c3c4ty3 * k.con43 * k.ty3
	k.yycon2 = k.c3c4ty3 * k.ty3
	k.yycon3 = k.c3c4ty3 * k.conz1 * k.ty3
	k.yycon4 = k.c3c4ty3 * k.con16 * k.ty3
	k.yycon5 = k.c3c4ty3 * k.c1c5 * k.ty3
	k.zzcon1 = k.c3c4tz3 * k.con43 * k.tz3
	k.zzcon2 = k.c3c4tz3 * k.tz3
	k.zzcon3 = k.c3c4tz3 * k.conz1 * k.tz3
	k.zzcon4 = k.c3c4tz3 * k.con16 * k.tz3
	k.zzcon5 = k.c3c4tz3 * k.c1c5 * k.tz3
	s.fc[0] = fluxCoef{k.tx2, k.xxcon2, k.xxcon3, k.xxcon4, k.xxcon5, [5]float64{k.dx1tx1, k.dx2tx1, k.dx3tx1, k.dx4tx1, k.dx5tx1}}
	s.fc[1] = fluxCoef{k.ty2, k.yycon2, k.yycon3, k.yycon4, k.yycon5, [5]float64{k.dy1ty1, k.dy2ty1, k.dy3ty1, k.dy4ty1, k.dy5ty1}}
	s.fc[2] = fluxCoef{k.tz2, k.zzcon2, k.zzcon3, k.zzcon4, k.zzcon5, [5]float64{k.dz1tz1, k.dz2tz1, k.dz3tz1, k.dz4tz1, k.dz5tz1}}
}

// perp returns the two axes across axis d: the outer and the inner one of
// the reference's loops.
func perp(d int) (p, q int) {
	switch d {
	case 0:
		return 2, 1
	case 1:
		return 2, 0
	}
	return 1, 0
}
