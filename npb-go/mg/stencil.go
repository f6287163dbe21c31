package main

import (
	"math"

	"github.com/gompi/gompi/mpi"
)

// The grid operators of the reference. Arrays are the reference's
// u(n1,n2,n3) in column-major order, 0-based here: element (i1,i2,i3) is at
// i1 + n1*(i2 + n2*i3), planes 0 and n-1 of each axis are ghosts. Inner
// loops work on row slices re-sliced to one length so that the compiler
// drops bounds checks, and keep the reference's summation order.

// zero3 clears a whole n1 x n2 x n3 block.
func zero3(z []float64, n1, n2, n3 int) {
	clear(z[:n1*n2*n3])
}

// rows returns the five rows (i2,i3), (i2-1,i3), (i2+1,i3), (i2,i3-1),
// (i2,i3+1) and the four diagonal rows (i2-1,i3-1), (i2+1,i3-1),
// (i2-1,i3+1), (i2+1,i3+1) of a block, each of length n1.
type rowSet struct {
	c, ym, yp, zm, zp, mm, pm, mp, pp []float64
}

func rowsAt(a []float64, n1, n2, i2, i3 int) rowSet {
	row := func(j2, j3 int) []float64 {
		o := n1 * (j2 + n2*j3)
		return a[o : o+n1 : o+n1]
	}
	return rowSet{
		c: row(i2, i3), ym: row(i2-1, i3), yp: row(i2+1, i3), zm: row(i2, i3-1), zp: row(i2, i3+1),
		mm: row(i2-1, i3-1), pm: row(i2+1, i3-1), mp: row(i2-1, i3+1), pp: row(i2+1, i3+1),
	}
}

// psinv applies the smoother: u += C r, then refreshes u's ghosts. The
// reference's line sums r1 (edge neighbours) and r2 (corner neighbours)
// are kept in registers as a sliding window over i1 instead of in scratch
// lines; the arithmetic is the same.
func (s *mgState) psinv(r, u []float64, n1, n2, n3, k int) error {
	c0, c1, c2 := s.c[0], s.c[1], s.c[2]
	s.t.start(tPsinv)
	for i3 := 1; i3 < n3-1; i3++ {
		for i2 := 1; i2 < n2-1; i2++ {
			o := n1 * (i2 + n2*i3)
			ur := u[o : o+n1 : o+n1]
			rs := rowsAt(r, n1, n2, i2, i3)
			rr := rs.c[:len(ur)]
			ym, yp, zm, zp := rs.ym[:len(ur)], rs.yp[:len(ur)], rs.zm[:len(ur)], rs.zp[:len(ur)]
			mm, pm, mp, pp := rs.mm[:len(ur)], rs.pm[:len(ur)], rs.mp[:len(ur)], rs.pp[:len(ur)]
			if len(ur) < 3 {
				continue
			}
			r1m := ym[0] + yp[0] + zm[0] + zp[0]
			r1c := ym[1] + yp[1] + zm[1] + zp[1]
			r2c := mm[1] + pm[1] + mp[1] + pp[1]
			for i1 := 1; i1 < len(ur)-1; i1++ {
				r1p := ym[i1+1] + yp[i1+1] + zm[i1+1] + zp[i1+1]
				r2p := mm[i1+1] + pm[i1+1] + mp[i1+1] + pp[i1+1]
				ur[i1] = ur[i1] +
					c0*rr[i1] +
					c1*(rr[i1-1]+rr[i1+1]+r1c) +
					c2*(r2c+r1m+r1p)
				r1m, r1c, r2c = r1c, r1p, r2p
			}
		}
	}
	s.t.stop(tPsinv)
	return s.comm3(u, n1, n2, n3, k)
}

// resid computes r = v - A u (r may alias v), then refreshes r's ghosts.
// As in psinv, the reference's line sums u1 and u2 become a sliding
// window in registers.
func (s *mgState) resid(u, v, r []float64, n1, n2, n3, k int) error {
	a0, a2, a3 := s.a[0], s.a[2], s.a[3]
	s.t.start(tResid)
	for i3 := 1; i3 < n3-1; i3++ {
		for i2 := 1; i2 < n2-1; i2++ {
			o := n1 * (i2 + n2*i3)
			rr := r[o : o+n1 : o+n1]
			vr := v[o : o+n1 : o+n1][:len(rr)]
			us := rowsAt(u, n1, n2, i2, i3)
			uc := us.c[:len(rr)]
			ym, yp, zm, zp := us.ym[:len(rr)], us.yp[:len(rr)], us.zm[:len(rr)], us.zp[:len(rr)]
			mm, pm, mp, pp := us.mm[:len(rr)], us.pm[:len(rr)], us.mp[:len(rr)], us.pp[:len(rr)]
			if len(rr) < 3 {
				continue
			}
			u1m := ym[0] + yp[0] + zm[0] + zp[0]
			u2m := mm[0] + pm[0] + mp[0] + pp[0]
			u1c := ym[1] + yp[1] + zm[1] + zp[1]
			u2c := mm[1] + pm[1] + mp[1] + pp[1]
			for i1 := 1; i1 < len(rr)-1; i1++ {
				u1p := ym[i1+1] + yp[i1+1] + zm[i1+1] + zp[i1+1]
				u2p := mm[i1+1] + pm[i1+1] + mp[i1+1] + pp[i1+1]
				rr[i1] = vr[i1] -
					a0*uc[i1] -
					a2*(u2c+u1m+u1p) -
					a3*(u2m+u2p)
				u1m, u1c = u1c, u1p
				u2m, u2c = u2c, u2p
			}
		}
	}
	s.t.stop(tResid)
	return s.comm3(r, n1, n2, n3, k)
}

// rprj3 projects the level-k residual r (m1k x m2k x m3k) onto the coarser
// level k-1 grid s (m1j x m2j x m3j) with the full-weighting stencil.
func (st *mgState) rprj3(r []float64, m1k, m2k, m3k int, s []float64, m1j, m2j, m3j, k int) error {
	// d is the reference's d1/d2/d3 (2 when the fine block is a single
	// point thick): the fine index of coarse index j (both 0-based) is
	// 2j+1-d.
	d := func(m int) int {
		if m == 3 {
			return 2
		}
		return 1
	}
	d1, d2, d3 := d(m1k), d(m2k), d(m3k)
	x1, y1 := st.w1, st.w2
	st.t.start(tRprj3)
	for j3 := 1; j3 < m3j-1; j3++ {
		i3 := 2*j3 + 1 - d3
		for j2 := 1; j2 < m2j-1; j2++ {
			i2 := 2*j2 + 1 - d2
			rs := rowsAt(r, m1k, m2k, i2, i3)
			for j1 := 1; j1 < m1j; j1++ {
				i1 := 2*j1 + 1 - d1
				x1[i1-1] = rs.ym[i1-1] + rs.yp[i1-1] + rs.zm[i1-1] + rs.zp[i1-1]
				y1[i1-1] = rs.mm[i1-1] + rs.mp[i1-1] + rs.pm[i1-1] + rs.pp[i1-1]
			}
			o := m1j * (j2 + m2j*j3)
			sr := s[o : o+m1j : o+m1j]
			for j1 := 1; j1 < m1j-1; j1++ {
				i1 := 2*j1 + 1 - d1
				y2 := rs.mm[i1] + rs.mp[i1] + rs.pm[i1] + rs.pp[i1]
				x2 := rs.ym[i1] + rs.yp[i1] + rs.zm[i1] + rs.zp[i1]
				sr[j1] = 0.5*rs.c[i1] +
					0.25*(rs.c[i1-1]+rs.c[i1+1]+x2) +
					0.125*(x1[i1-1]+x1[i1+1]+y2) +
					0.0625*(y1[i1-1]+y1[i1+1])
			}
		}
	}
	st.t.stop(tRprj3)
	return st.comm3(s, m1j, m2j, m3j, k-1)
}

// interp adds the trilinear interpolation of the coarse grid z
// (mm1 x mm2 x mm3) to the level-k grid u (n1 x n2 x n3).
func (s *mgState) interp(z []float64, mm1, mm2, mm3 int, u []float64, n1, n2, n3, k int) error {
	s.t.start(tInterp)
	if n1 != 3 && n2 != 3 && n3 != 3 {
		z1, z2, z3 := s.w1[:mm1], s.w2[:mm1], s.w3[:mm1]
		for i3 := 0; i3 < mm3-1; i3++ {
			for i2 := 0; i2 < mm2-1; i2++ {
				zr := func(j2, j3 int) []float64 {
					o := mm1 * (j2 + mm2*j3)
					return z[o : o+mm1 : o+mm1][:len(z1)]
				}
				z00, z10, z01, z11 := zr(i2, i3), zr(i2+1, i3), zr(i2, i3+1), zr(i2+1, i3+1)
				z2 := z2[:len(z1)]
				z3 := z3[:len(z1)]
				for i1 := range z1 {
					z1[i1] = z10[i1] + z00[i1]
					z2[i1] = z01[i1] + z00[i1]
					z3[i1] = z11[i1] + z01[i1] + z1[i1]
				}
				ur := func(j2, j3 int) []float64 {
					o := n1 * (j2 + n2*j3)
					return u[o : o+n1 : o+n1]
				}
				// Fine rows 2*i2 and 2*i2+1 of fine planes 2*i3 and 2*i3+1.
				u00, u10 := ur(2*i2, 2*i3), ur(2*i2+1, 2*i3)
				u01, u11 := ur(2*i2, 2*i3+1), ur(2*i2+1, 2*i3+1)
				for i1 := 0; i1 < mm1-1; i1++ {
					u00[2*i1] += z00[i1]
					u00[2*i1+1] += 0.5 * (z00[i1+1] + z00[i1])
				}
				for i1 := 0; i1 < mm1-1; i1++ {
					u10[2*i1] += 0.5 * z1[i1]
					u10[2*i1+1] += 0.25 * (z1[i1] + z1[i1+1])
				}
				for i1 := 0; i1 < mm1-1; i1++ {
					u01[2*i1] += 0.5 * z2[i1]
					u01[2*i1+1] += 0.25 * (z2[i1] + z2[i1+1])
				}
				for i1 := 0; i1 < mm1-1; i1++ {
					u11[2*i1] += 0.25 * z3[i1]
					u11[2*i1+1] += 0.125 * (z3[i1] + z3[i1+1])
				}
			}
		}
	} else {
		interpThin(z, mm1, mm2, mm3, u, n1, n2, n3)
	}
	s.t.stop(tInterp)
	return s.comm3Ex(u, n1, n2, n3, k)
}

// interpThin is interp's branch for a fine block one point thick along
// some axis (n == 3), kept in the reference's 1-based form: it only runs
// on the tiny coarse levels of many-rank runs.
func interpThin(z []float64, mm1, mm2, mm3 int, u []float64, n1, n2, n3 int) {
	zi := func(i1, i2, i3 int) float64 { return z[(i1-1)+mm1*((i2-1)+mm2*(i3-1))] }
	add := func(i1, i2, i3 int, v float64) { u[(i1-1)+n1*((i2-1)+n2*(i3-1))] += v }
	dt := func(n int) (d, t int) {
		if n == 3 {
			return 2, 1
		}
		return 1, 0
	}
	d1, t1 := dt(n1)
	d2, t2 := dt(n2)
	d3, t3 := dt(n3)
	for i3 := d3; i3 <= mm3-1; i3++ {
		for i2 := d2; i2 <= mm2-1; i2++ {
			for i1 := d1; i1 <= mm1-1; i1++ {
				add(2*i1-d1, 2*i2-d2, 2*i3-d3, zi(i1, i2, i3))
			}
			for i1 := 1; i1 <= mm1-1; i1++ {
				add(2*i1-t1, 2*i2-d2, 2*i3-d3, 0.5*(zi(i1+1, i2, i3)+zi(i1, i2, i3)))
			}
		}
		for i2 := 1; i2 <= mm2-1; i2++ {
			for i1 := d1; i1 <= mm1-1; i1++ {
				add(2*i1-d1, 2*i2-t2, 2*i3-d3, 0.5*(zi(i1, i2+1, i3)+zi(i1, i2, i3)))
			}
			for i1 := 1; i1 <= mm1-1; i1++ {
				add(2*i1-t1, 2*i2-t2, 2*i3-d3, 0.25*(zi(i1+1, i2+1, i3)+zi(i1+1, i2, i3)+
					zi(i1, i2+1, i3)+zi(i1, i2, i3)))
			}
		}
	}
	for i3 := 1; i3 <= mm3-1; i3++ {
		for i2 := d2; i2 <= mm2-1; i2++ {
			for i1 := d1; i1 <= mm1-1; i1++ {
				add(2*i1-d1, 2*i2-d2, 2*i3-t3, 0.5*(zi(i1, i2, i3+1)+zi(i1, i2, i3)))
			}
			for i1 := 1; i1 <= mm1-1; i1++ {
				add(2*i1-t1, 2*i2-d2, 2*i3-t3, 0.25*(zi(i1+1, i2, i3+1)+zi(i1, i2, i3+1)+
					zi(i1+1, i2, i3)+zi(i1, i2, i3)))
			}
		}
		for i2 := 1; i2 <= mm2-1; i2++ {
			for i1 := d1; i1 <= mm1-1; i1++ {
				add(2*i1-d1, 2*i2-t2, 2*i3-t3, 0.25*(zi(i1, i2+1, i3+1)+zi(i1, i2, i3+1)+
					zi(i1, i2+1, i3)+zi(i1, i2, i3)))
			}
			for i1 := 1; i1 <= mm1-1; i1++ {
				add(2*i1-t1, 2*i2-t2, 2*i3-t3, 0.125*(zi(i1+1, i2+1, i3+1)+zi(i1+1, i2, i3+1)+
					zi(i1, i2+1, i3+1)+zi(i1, i2, i3+1)+
					zi(i1+1, i2+1, i3)+zi(i1+1, i2, i3)+
					zi(i1, i2+1, i3)+zi(i1, i2, i3)))
			}
		}
	}
}

// norm2u3 returns the L2 norm and the max norm of r's interior over all
// ranks (two Allreduce calls, max then sum, as in the reference); dn is
// the global number of points.
func (s *mgState) norm2u3(r []float64, n1, n2, n3 int, dn float64) (rnm2, rnmu float64, err error) {
	s.t.start(tNorm2u3)
	sum := 0.0
	for i3 := 1; i3 < n3-1; i3++ {
		for i2 := 1; i2 < n2-1; i2++ {
			o := n1 * (i2 + n2*i3)
			row := r[o+1 : o+n1-1]
			for _, x := range row {
				sum += x * x
				if a := math.Abs(x); a > rnmu {
					rnmu = a
				}
			}
		}
	}
	s.t.stop(tNorm2u3)
	s.t.start(tRcomm)
	in, out := []float64{rnmu}, []float64{0}
	if err = mpi.Allreduce(s.comm, in, out, mpi.Max); err != nil {
		return 0, 0, err
	}
	rnmu = out[0]
	in[0] = sum
	if err = mpi.Allreduce(s.comm, in, out, mpi.Sum); err != nil {
		return 0, 0, err
	}
	sum = out[0]
	s.t.stop(tRcomm)
	return math.Sqrt(sum / dn), rnmu, nil
}
