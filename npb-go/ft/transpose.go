package main

import "github.com/gompi/gompi/mpi"

// The distributed transposes of the reference: a local reordering, one
// Alltoall over a slice communicator, and a local unpacking. In the 1-D
// layout (transpose2_*) a rank owns whole x-y planes before and whole
// z-x lines after; in the 2-D layout (transpose_x_y, transpose_x_z) each
// transpose exchanges within one row or column of the np1 x np2 grid.

const (
	transblock    = 32
	transblockpad = 34
)

// dim returns the reference's dims(i, l) (both 1-based).
func (s *ftState) dim(i, l int) int { return s.dims[i-1][l-1] }

// transposeXYZ is transpose_xy_z: layout-l1 data (x-y planes) to z lines.
func (s *ftState) transposeXYZ(l1, l2 int, xin, xout []complex128) error {
	n1, n2 := s.dim(1, l1)*s.dim(2, l1), s.dim(3, l1)
	s.transpose2Local(n1, n2, xin, xout)
	if err := s.transpose2Global(xout, xin); err != nil {
		return err
	}
	s.transpose2Finish(n1, n2, xin, xout)
	return nil
}

// transposeXYZInv is transpose_x_yz: z lines back to x-y planes.
func (s *ftState) transposeXYZInv(l1, l2 int, xin, xout []complex128) error {
	n1, n2 := s.dim(1, l1), s.dim(2, l1)*s.dim(3, l1)
	s.transpose2Local(n1, n2, xin, xout)
	if err := s.transpose2Global(xout, xin); err != nil {
		return err
	}
	s.transpose2Finish(n1, n2, xin, xout)
	return nil
}

// transpose2Local sets xout(n2,n1) to the transpose of xin(n1,n2), in
// transblock x transblock tiles when both sides are large enough.
func (s *ftState) transpose2Local(n1, n2 int, xin, xout []complex128) {
	s.t.start(tTransxzloc)
	defer s.t.stop(tTransxzloc)
	if n1 < transblock || n2 < transblock {
		if n1 >= n2 {
			for j := 0; j < n2; j++ {
				for i := 0; i < n1; i++ {
					xout[j+n2*i] = xin[i+n1*j]
				}
			}
		} else {
			for i := 0; i < n1; i++ {
				for j := 0; j < n2; j++ {
					xout[j+n2*i] = xin[i+n1*j]
				}
			}
		}
		return
	}
	z := &s.tile // z[ii][jj] is the reference's z(jj,ii)
	for j := 0; j < n2; j += transblock {
		for i := 0; i < n1; i += transblock {
			for jj := 0; jj < transblock; jj++ {
				src := (*[transblock]complex128)(xin[i+n1*(j+jj):][:transblock])
				for ii, v := range src {
					z[ii][jj] = v
				}
			}
			for ii := range z {
				copy(xout[j+n2*(i+ii):][:transblock], z[ii][:transblock])
			}
		}
	}
}

// transpose2Global is the all-to-all of the 1-D layout over commslice1.
func (s *ftState) transpose2Global(xin, xout []complex128) error {
	s.t.start(tTransxzglo)
	defer s.t.stop(tTransxzglo)
	return mpi.Alltoall(s.slice1, xin[:s.ntdivnp], xout[:s.ntdivnp])
}

// transpose2Finish gathers the np2 received pieces xin(n2, n1/np2, np2)
// into xout(n2*np2, n1/np2).
func (s *ftState) transpose2Finish(n1, n2 int, xin, xout []complex128) {
	s.t.start(tTransxzfin)
	defer s.t.stop(tTransxzfin)
	np2, m := s.np2, n1/s.np2
	for p := 0; p < np2; p++ {
		ioff := p * n2
		for j := 0; j < m; j++ {
			copy(xout[ioff+n2*np2*j:][:n2], xin[n2*(j+m*p):])
		}
	}
}

// transposeXZ is transpose_x_z of the 2-D layout.
func (s *ftState) transposeXZ(l1, l2 int, xin, xout []complex128) error {
	s.transposeXZLocal(s.dim(1, l1), s.dim(2, l1), s.dim(3, l1), xin, xout)
	s.t.start(tTransxzglo)
	n := s.dim(1, l1) * s.dim(2, l1) * s.dim(3, l1)
	err := mpi.Alltoall(s.slice1, xout[:n], xin[:n])
	s.t.stop(tTransxzglo)
	if err != nil {
		return err
	}
	s.transposeXZFinish(s.dim(1, l2), s.dim(2, l2), s.dim(3, l2), xin, xout)
	return nil
}

// transposeXZLocal sets xout(d3,d2,d1) from xin(d1,d2,d3), tiled as in the
// reference when d1 and d3 allow.
func (s *ftState) transposeXZLocal(d1, d2, d3 int, xin, xout []complex128) {
	s.t.start(tTransxzloc)
	defer s.t.stop(tTransxzloc)
	if d1 < 32 || d3 == 1 {
		for j := 0; j < d2; j++ {
			for k := 0; k < d3; k++ {
				for i := 0; i < d1; i++ {
					xout[k+d3*(j+d2*i)] = xin[i+d1*(j+d2*k)]
				}
			}
		}
		return
	}
	block3 := min(d3, transblock)
	block1 := d1
	if block1*block3 > transblock*transblock {
		block1 = transblock * transblock / block3
	}
	buf := s.xzbuf
	for j := 0; j < d2; j++ {
		for kk := 0; kk <= d3-block3; kk += block3 {
			for ii := 0; ii <= d1-block1; ii += block1 {
				for k := 0; k < block3; k++ {
					src := xin[ii+d1*(j+d2*(k+kk)):][:block1]
					for i, v := range src {
						buf[k+transblockpad*i] = v
					}
				}
				for i := 0; i < block1; i++ {
					copy(xout[kk+d3*(j+d2*(i+ii)):][:block3], buf[transblockpad*i:])
				}
			}
		}
	}
}

// transposeXZFinish sets xout(d1,d2,d3) from the np2 pieces
// xin(d1/np2, d2, d3, np2).
func (s *ftState) transposeXZFinish(d1, d2, d3 int, xin, xout []complex128) {
	s.t.start(tTransxzfin)
	defer s.t.stop(tTransxzfin)
	m := d1 / s.np2
	for p := 0; p < s.np2; p++ {
		for k := 0; k < d3; k++ {
			for j := 0; j < d2; j++ {
				copy(xout[p*m+d1*(j+d2*k):][:m], xin[m*(j+d2*(k+d3*p)):])
			}
		}
	}
}

// transposeXY is transpose_x_y of the 2-D layout (over commslice2).
func (s *ftState) transposeXY(l1, l2 int, xin, xout []complex128) error {
	d1, d2, d3 := s.dim(1, l1), s.dim(2, l1), s.dim(3, l1)
	s.t.start(tTransxyloc)
	for k := 0; k < d3; k++ {
		for i := 0; i < d1; i++ {
			for j := 0; j < d2; j++ {
				xout[j+d2*(k+d3*i)] = xin[i+d1*(j+d2*k)]
			}
		}
	}
	s.t.stop(tTransxyloc)
	s.t.start(tTransxyglo)
	n := d1 * d2 * d3
	err := mpi.Alltoall(s.slice2, xout[:n], xin[:n])
	s.t.stop(tTransxyglo)
	if err != nil {
		return err
	}
	// xout(d1,d2,d3) of layout l2 from the np1 pieces xin(d1/np1, d3, d2, np1).
	d1, d2, d3 = s.dim(1, l2), s.dim(2, l2), s.dim(3, l2)
	s.t.start(tTransxyfin)
	m := d1 / s.np1
	for p := 0; p < s.np1; p++ {
		for k := 0; k < d3; k++ {
			for j := 0; j < d2; j++ {
				for i := 0; i < m; i++ {
					xout[i+p*m+d1*(j+d2*k)] = xin[i+m*(k+d3*(j+d2*p))]
				}
			}
		}
	}
	s.t.stop(tTransxyfin)
	return nil
}
