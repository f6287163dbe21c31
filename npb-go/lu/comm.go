package main

import "github.com/gompi/gompi/mpi"

// exchange1 is exchange_1, the SSOR sweeps' pipeline for plane k of g:
//
//	iex 0: receive row 0 from the north, then column 0 from the west
//	iex 1: receive row nx+1 from the south, then column ny+1 from the east
//	iex 2: send row nx to the south, then column ny to the east
//	iex 3: send row 1 to the north, then column 1 to the west
//
// with blocking receives and sends, as in the reference.
func (s *luState) exchange1(g []float64, k, iex int) error {
	c := s.comm
	nj := 5 * (s.jend - s.jst + 1)
	ni := 5 * (s.iend - s.ist + 1)
	switch iex {
	case 0, 1:
		nb, row, tagNS := s.north, 0, fromN
		eb, col, tagWE := s.west, 0, fromW
		if iex == 1 {
			nb, row, tagNS = s.south, s.nx+1, fromS
			eb, col, tagWE = s.east, s.ny+1, fromE
		}
		if nb != -1 {
			if _, err := mpi.Recv(c, s.buf1[:nj], nb, tagNS); err != nil {
				return err
			}
			for j := s.jst; j <= s.jend; j++ {
				copy(g[s.ix(row, j, k):][:5], s.buf1[5*(j-s.jst):][:5])
			}
		}
		if eb != -1 {
			if _, err := mpi.Recv(c, s.buf1[:ni], eb, tagWE); err != nil {
				return err
			}
			copy(g[s.ix(s.ist, col, k):][:ni], s.buf1[:ni])
		}
	default:
		nb, row, tagNS := s.south, s.nx, fromN
		eb, col, tagWE := s.east, s.ny, fromW
		if iex == 3 {
			nb, row, tagNS = s.north, 1, fromS
			eb, col, tagWE = s.west, 1, fromE
		}
		if nb != -1 {
			for j := s.jst; j <= s.jend; j++ {
				copy(s.buf[5*(j-s.jst):][:5], g[s.ix(row, j, k):][:5])
			}
			if err := mpi.Send(c, s.buf[:nj], nb, tagNS); err != nil {
				return err
			}
		}
		if eb != -1 {
			copy(s.buf[:ni], g[s.ix(s.ist, col, k):][:ni])
			if err := mpi.Send(c, s.buf[:ni], eb, tagWE); err != nil {
				return err
			}
		}
	}
	return nil
}

// exchange3 is exchange_3: two planes of g to each neighbour across the
// x axis (iex 0: north and south) or the y axis (iex 1: west and east),
// each direction an Irecv, a Send and a Wait.
func (s *luState) exchange3(g []float64, iex int) error {
	nx, ny := s.nx, s.ny
	if iex == 0 {
		// Rows nx-1 and nx go south, -1 and 0 come from the north; then
		// rows 2 and 1 go north, nx+2 and nx+1 come from the south.
		if err := s.shift(g, iex, s.north, s.south, fromN, nx-1, nx, -1, 0); err != nil {
			return err
		}
		return s.shift(g, iex, s.south, s.north, fromS, 2, 1, nx+2, nx+1)
	}
	if err := s.shift(g, iex, s.west, s.east, fromW, ny-1, ny, -1, 0); err != nil {
		return err
	}
	return s.shift(g, iex, s.east, s.west, fromE, 2, 1, ny+2, ny+1)
}

// shift is one direction of exchange_3: post the receive from src (when
// there is one), send planes out1 and out2 to dst (when there is one),
// then wait for the receive and store it in planes in1 and in2.
func (s *luState) shift(g []float64, iex, src, dst, tag, out1, out2, in1, in2 int) error {
	n := 10 * s.ny * s.nz
	if iex == 1 {
		n = 10 * s.nx * s.nz
	}
	var q *mpi.Request
	if src != -1 {
		var err error
		if q, err = mpi.Irecv(s.comm, s.buf1[:n], src, tag); err != nil {
			return err
		}
	}
	if dst != -1 {
		s.planes(g, s.buf[:n], iex, out1, out2, true)
		if err := mpi.Send(s.comm, s.buf[:n], dst, tag); err != nil {
			return err
		}
	}
	if src != -1 {
		if _, err := q.Wait(); err != nil {
			return err
		}
		s.planes(g, s.buf1[:n], iex, in1, in2, false)
	}
	return nil
}

// planes copies planes p1 and p2 of g (rows i = p1, p2 for iex 0, columns
// j = p1, p2 for iex 1) into the first and second half of buf (pack) or
// back.
func (s *luState) planes(g, buf []float64, iex, p1, p2 int, pack bool) {
	nx, ny, nz := s.nx, s.ny, s.nz
	half := len(buf) / 2
	cp := func(q, p int, n int) {
		if pack {
			copy(buf[q:q+n], g[p:p+n])
		} else {
			copy(g[p:p+n], buf[q:q+n])
		}
	}
	for k := 1; k <= nz; k++ {
		if iex == 0 {
			for j := 1; j <= ny; j++ {
				q := 5 * ((k-1)*ny + j - 1)
				cp(q, s.ix(p1, j, k), 5)
				cp(half+q, s.ix(p2, j, k), 5)
			}
		} else {
			// A column's points are contiguous in g.
			q := 5 * (k - 1) * nx
			cp(q, s.ix(1, p1, k), 5*nx)
			cp(half+q, s.ix(1, p2, k), 5*nx)
		}
	}
}

// recvWait is an Irecv followed at once by its Wait, as exchange_4/5/6 do.
func (s *luState) recvWait(buf []float64, src, tag int) error {
	q, err := mpi.Irecv(s.comm, buf, src, tag)
	if err != nil {
		return err
	}
	_, err = q.Wait()
	return err
}

// phi is the index of (a, b) in the surface integral's work arrays, the
// reference's phi1(0:isiz2+1, 0:isiz3+1).
func (s *luState) phi(a, b int) int { return a + b*s.phiStride }

// exchange4 is exchange_4: the surface integral's phi1 and phi2 (indexed
// (i, j)) take column ny+1 from the east and row nx+1 from the south.
func (s *luState) exchange4(g, h []float64, ibeg, ifin1, jbeg, jfin1 int) error {
	nx, ny := s.nx, s.ny
	ny2 := ny + 2
	dum := s.dum
	if jfin1 == ny {
		if err := s.recvWait(dum[:2*nx], s.east, fromE); err != nil {
			return err
		}
		for i := 1; i <= nx; i++ {
			g[s.phi(i, ny+1)] = dum[i-1]
			h[s.phi(i, ny+1)] = dum[i+nx-1]
		}
	}
	if jbeg == 1 {
		for i := 1; i <= nx; i++ {
			dum[i-1] = g[s.phi(i, 1)]
			dum[i+nx-1] = h[s.phi(i, 1)]
		}
		if err := mpi.Send(s.comm, dum[:2*nx], s.west, fromE); err != nil {
			return err
		}
	}
	if ifin1 == nx {
		if err := s.recvWait(dum[:2*ny2], s.south, fromS); err != nil {
			return err
		}
		for j := 0; j <= ny+1; j++ {
			g[s.phi(nx+1, j)] = dum[j]
			h[s.phi(nx+1, j)] = dum[j+ny2]
		}
	}
	if ibeg == 1 {
		for j := 0; j <= ny+1; j++ {
			dum[j] = g[s.phi(1, j)]
			dum[j+ny2] = h[s.phi(1, j)]
		}
		if err := mpi.Send(s.comm, dum[:2*ny2], s.north, fromS); err != nil {
			return err
		}
	}
	return nil
}

// exchange5 is exchange_5: g (indexed (i, k)) takes row nx+1 from the
// south and gives row 1 to the north.
func (s *luState) exchange5(g []float64, ibeg, ifin1 int) error {
	nx, nz := s.nx, s.nz
	dum := s.dum[:nz]
	if ifin1 == nx {
		if err := s.recvWait(dum, s.south, fromS); err != nil {
			return err
		}
		for k := 1; k <= nz; k++ {
			g[s.phi(nx+1, k)] = dum[k-1]
		}
	}
	if ibeg == 1 {
		for k := 1; k <= nz; k++ {
			dum[k-1] = g[s.phi(1, k)]
		}
		return mpi.Send(s.comm, dum, s.north, fromS)
	}
	return nil
}

// exchange6 is exchange_6: g (indexed (j, k)) takes column ny+1 from the
// east and gives column 1 to the west.
func (s *luState) exchange6(g []float64, jbeg, jfin1 int) error {
	ny, nz := s.ny, s.nz
	dum := s.dum[:nz]
	if jfin1 == ny {
		if err := s.recvWait(dum, s.east, fromE); err != nil {
			return err
		}
		for k := 1; k <= nz; k++ {
			g[s.phi(ny+1, k)] = dum[k-1]
		}
	}
	if jbeg == 1 {
		for k := 1; k <= nz; k++ {
			dum[k-1] = g[s.phi(1, k)]
		}
		return mpi.Send(s.comm, dum, s.west, fromE)
	}
	return nil
}
