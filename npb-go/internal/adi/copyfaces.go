package adi

import "github.com/gompi/gompi/mpi"

// copyFaces copies the face values of u on every cell to the ghost layers
// of the adjacent cells, all six directions at once (the stencil is
// orthogonal), then computes the right-hand side (copy_faces.f). The
// buffers are indexed east, west, north, south, top, bottom: buffer f
// holds the two planes next to face f of every cell that has a neighbour
// there, cell by cell and component by component.
func (s *State) copyFaces() error {
	if s.noNodes == 1 {
		s.computeRHS()
		return nil
	}
	s.t.start(tBpack)
	var pos [6]int
	last := s.ncells - 1
	for c := range s.cells {
		cl := &s.cells[c]
		for m := 0; m < 5; m++ {
			u := cl.u[m*s.cv : (m+1)*s.cv]
			for f := 0; f < 6; f++ {
				axis, upper := f/2, f%2 == 0
				var lo, hi [3]int
				for a := 0; a < 3; a++ {
					lo[a], hi[a] = 0, cl.size[a]
				}
				if upper {
					if cl.coord[axis] == last {
						continue
					}
					lo[axis] = cl.size[axis] - 2
				} else {
					if cl.coord[axis] == 0 {
						continue
					}
					hi[axis] = 2
				}
				n := s.ssnd[f] + pos[f]
				n = s.packBox(u, s.out, n, lo, hi, false)
				pos[f] = n - s.ssnd[f]
			}
		}
	}
	s.t.stop(tBpack)

	s.t.start(tExch)
	q := &s.reqs
	var err error
	recv := [6]struct{ from, tag int }{
		{s.succ[0], tagWest}, {s.pred[0], tagEast},
		{s.succ[1], tagSouth}, {s.pred[1], tagNorth},
		{s.succ[2], tagBottom}, {s.pred[2], tagTop},
	}
	send := [6]struct{ to, tag int }{
		{s.succ[0], tagEast}, {s.pred[0], tagWest},
		{s.succ[1], tagNorth}, {s.pred[1], tagSouth},
		{s.succ[2], tagTop}, {s.pred[2], tagBottom},
	}
	for f := 0; f < 6; f++ {
		if q[f], err = mpi.Irecv(s.rhsComm, s.inBuf[s.ssnd[f]:s.ssnd[f]+s.bsize[f]], recv[f].from, recv[f].tag); err != nil {
			return err
		}
	}
	for f := 0; f < 6; f++ {
		if q[6+f], err = mpi.Isend(s.rhsComm, s.out[s.ssnd[f]:s.ssnd[f]+s.bsize[f]], send[f].to, send[f].tag); err != nil {
			return err
		}
	}
	_, err = mpi.Waitall(q[:])
	clear(q[:])
	if err != nil {
		return err
	}
	s.t.stop(tExch)

	// Unpack: buffer f came from the neighbour across face f and fills
	// the ghost planes beyond that face.
	s.t.start(tBpack)
	pos = [6]int{}
	for c := range s.cells {
		cl := &s.cells[c]
		for m := 0; m < 5; m++ {
			u := cl.u[m*s.cv : (m+1)*s.cv]
			for f := 0; f < 6; f++ {
				axis, upper := f/2, f%2 == 0
				var lo, hi [3]int
				for a := 0; a < 3; a++ {
					lo[a], hi[a] = 0, cl.size[a]
				}
				if upper {
					if cl.coord[axis] == last {
						continue
					}
					lo[axis], hi[axis] = cl.size[axis], cl.size[axis]+2
				} else {
					if cl.coord[axis] == 0 {
						continue
					}
					lo[axis], hi[axis] = -2, 0
				}
				n := s.ssnd[f] + pos[f]
				n = s.packBox(u, s.inBuf, n, lo, hi, true)
				pos[f] = n - s.ssnd[f]
			}
		}
	}
	s.t.stop(tBpack)
	s.computeRHS()
	return nil
}

// packBox copies the box lo..hi-1 of the array u (i fastest) to buf from
// position n on, or back from buf into u when unpack; it returns the
// position after the box.
func (s *State) packBox(u, buf []float64, n int, lo, hi [3]int, unpack bool) int {
	w := hi[0] - lo[0]
	for k := lo[2]; k < hi[2]; k++ {
		for j := lo[1]; j < hi[1]; j++ {
			p := s.idx(lo[0], j, k)
			if unpack {
				copy(u[p:p+w], buf[n:n+w])
			} else {
				copy(buf[n:n+w], u[p:p+w])
			}
			n += w
		}
	}
	return n
}
