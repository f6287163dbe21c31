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

// line returns the n values of a starting at o (one grid line). The
// stencils name the neighbour lines of the line at offset o, in a block of
// lines of n1 values and planes of p = n1*n2 values: ym/yp are the lines
// at i2-1/i2+1, zm/zp at i3-1/i3+1, and mm, pm, mp, pp the diagonal ones
// (i2-1,i3-1), (i2+1,i3-1), (i2-1,i3+1), (i2+1,i3+1).
func line(a []float64, o, n int) []float64 { return a[o : o+n : o+n] }

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
			p := n1 * n2
			rr := line(r, o, len(ur))
			ym, yp, zm, zp := line(r, o-n1, len(ur)), line(r, o+n1, len(ur)), line(r, o-p, len(ur)), line(r, o+p, len(ur))
			mm, pm := line(r, o-p-n1, len(ur)), line(r, o-p+n1, len(ur))
			mp, pp := line(r, o+p-n1, len(ur)), line(r, o+p+n1, len(ur))
			if len(ur) < 3 {
				continue
			}
			if haveAVX2 && len(ur) >= 6 {
				r1, r2 := s.sums(len(ur))
				lineSums(r1, ym, yp, zm, zp)
				lineSums(r2, mm, pm, mp, pp)
				psinvLine(ur, rr, r1, r2, c0, c1, c2)
				continue
			}
			r1m := ym[0] + yp[0] + zm[0] + zp[0]
			r1c := ym[1] + yp[1] + zm[1] + zp[1]
			r2c := mm[1] + pm[1] + mp[1] + pp[1]
			// Two points per trip, so that the window shifts without
			// register moves.
			i1 := 1
			for ; i1 < len(ur)-2; i1 += 2 {
				r1p := ym[i1+1] + yp[i1+1] + zm[i1+1] + zp[i1+1]
				r2p := mm[i1+1] + pm[i1+1] + mp[i1+1] + pp[i1+1]
				ur[i1] = ur[i1] +
					c0*rr[i1] +
					c1*(rr[i1-1]+rr[i1+1]+r1c) +
					c2*(r2c+r1m+r1p)
				r1q := ym[i1+2] + yp[i1+2] + zm[i1+2] + zp[i1+2]
				r2q := mm[i1+2] + pm[i1+2] + mp[i1+2] + pp[i1+2]
				ur[i1+1] = ur[i1+1] +
					c0*rr[i1+1] +
					c1*(rr[i1]+rr[i1+2]+r1p) +
					c2*(r2p+r1c+r1q)
				r1m, r1c, r2c = r1p, r1q, r2q
			}
			if i1 < len(ur)-1 {
				r1p := ym[i1+1] + yp[i1+1] + zm[i1+1] + zp[i1+1]
				ur[i1] = ur[i1] +
					c0*rr[i1] +
					c1*(rr[i1-1]+rr[i1+1]+r1c) +
					c2*(r2c+r1m+r1p)
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
			p := n1 * n2
			uc := line(u, o, len(rr))
			ym, yp, zm, zp := line(u, o-n1, len(rr)), line(u, o+n1, len(rr)), line(u, o-p, len(rr)), line(u, o+p, len(rr))
			mm, pm := line(u, o-p-n1, len(rr)), line(u, o-p+n1, len(rr))
			mp, pp := line(u, o+p-n1, len(rr)), line(u, o+p+n1, len(rr))
			if len(rr) < 3 {
				continue
			}
			if haveAVX2 && len(rr) >= 6 {
				u1, u2 := s.sums(len(rr))
				lineSums(u1, ym, yp, zm, zp)
				lineSums(u2, mm, pm, mp, pp)
				residLine(rr, vr, uc, u1, u2, a0, a2, a3)
				continue
			}
			u1m := ym[0] + yp[0] + zm[0] + zp[0]
			u2m := mm[0] + pm[0] + mp[0] + pp[0]
			u1c := ym[1] + yp[1] + zm[1] + zp[1]
			u2c := mm[1] + pm[1] + mp[1] + pp[1]
			// Two points per trip, so that the window shifts without
			// register moves.
			i1 := 1
			for ; i1 < len(rr)-2; i1 += 2 {
				u1p := ym[i1+1] + yp[i1+1] + zm[i1+1] + zp[i1+1]
				u2p := mm[i1+1] + pm[i1+1] + mp[i1+1] + pp[i1+1]
				rr[i1] = vr[i1] -
					a0*uc[i1] -
					a2*(u2c+u1m+u1p) -
					a3*(u2m+u2p)
				u1q := ym[i1+2] + yp[i1+2] + zm[i1+2] + zp[i1+2]
				u2q := mm[i1+2] + pm[i1+2] + mp[i1+2] + pp[i1+2]
				rr[i1+1] = vr[i1+1] -
					a0*uc[i1+1] -
					a2*(u2p+u1c+u1q) -
					a3*(u2c+u2q)
				u1m, u1c = u1p, u1q
				u2m, u2c = u2p, u2q
			}
			if i1 < len(rr)-1 {
				u1p := ym[i1+1] + yp[i1+1] + zm[i1+1] + zp[i1+1]
				u2p := mm[i1+1] + pm[i1+1] + mp[i1+1] + pp[i1+1]
				rr[i1] = vr[i1] -
					a0*uc[i1] -
					a2*(u2c+u1m+u1p) -
					a3*(u2m+u2p)
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
	st.t.start(tRprj3)
	for j3 := 1; j3 < m3j-1; j3++ {
		i3 := 2*j3 + 1 - d3
		for j2 := 1; j2 < m2j-1; j2++ {
			i2 := 2*j2 + 1 - d2
			f, p := m1k*(i2+m2k*i3), m1k*m2k
			c, ym, yp, zm, zp := line(r, f, m1k), line(r, f-m1k, m1k), line(r, f+m1k, m1k), line(r, f-p, m1k), line(r, f+p, m1k)
			mm, pm := line(r, f-p-m1k, m1k), line(r, f-p+m1k, m1k)
			mp, pp := line(r, f+p-m1k, m1k), line(r, f+p+m1k, m1k)
			o := m1j * (j2 + m2j*j3)
			sr := s[o : o+m1j : o+m1j]
			// The reference's x1(i1-1), y1(i1-1) and r(i1-1) carry over
			// from one coarse point to the next as x1(i1+1), y1(i1+1)
			// and r(i1+1): a sliding window instead of the x1, y1 lines.
			i1 := 3 - d1 // fine index of coarse j1 = 1
			x1m := ym[i1-1] + yp[i1-1] + zm[i1-1] + zp[i1-1]
			y1m := mm[i1-1] + mp[i1-1] + pm[i1-1] + pp[i1-1]
			cm := c[i1-1]
			for j1 := 1; j1 < len(sr)-1; j1++ {
				// Fine points i1 and i1+1 of each row.
				c2 := c[i1 : i1+2 : i1+2]
				ym2, yp2, zm2, zp2 := ym[i1:i1+2:i1+2], yp[i1:i1+2:i1+2], zm[i1:i1+2:i1+2], zp[i1:i1+2:i1+2]
				mm2, mp2, pm2, pp2 := mm[i1:i1+2:i1+2], mp[i1:i1+2:i1+2], pm[i1:i1+2:i1+2], pp[i1:i1+2:i1+2]
				x1p := ym2[1] + yp2[1] + zm2[1] + zp2[1]
				y1p := mm2[1] + mp2[1] + pm2[1] + pp2[1]
				y2 := mm2[0] + mp2[0] + pm2[0] + pp2[0]
				x2 := ym2[0] + yp2[0] + zm2[0] + zp2[0]
				sr[j1] = 0.5*c2[0] +
					0.25*(cm+c2[1]+x2) +
					0.125*(x1m+x1p+y2) +
					0.0625*(y1m+y1p)
				x1m, y1m, cm = x1p, y1p, c2[1]
				i1 += 2
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
		// The reference's lines z1, z2, z3 become a sliding window, and
		// its four passes over i1 (one per fine row) one pass.
		for i3 := 0; i3 < mm3-1; i3++ {
			for i2 := 0; i2 < mm2-1; i2++ {
				zr := func(j2, j3 int) []float64 {
					o := mm1 * (j2 + mm2*j3)
					return z[o : o+mm1 : o+mm1]
				}
				z00 := zr(i2, i3)
				z10, z01, z11 := zr(i2+1, i3)[:len(z00)], zr(i2, i3+1)[:len(z00)], zr(i2+1, i3+1)[:len(z00)]
				ur := func(j2, j3 int) []float64 {
					o := n1 * (j2 + n2*j3)
					return u[o : o+n1 : o+n1]
				}
				// Fine rows 2*i2 and 2*i2+1 of fine planes 2*i3 and 2*i3+1.
				u00, u10 := ur(2*i2, 2*i3), ur(2*i2+1, 2*i3)
				u01, u11 := ur(2*i2, 2*i3+1), ur(2*i2+1, 2*i3+1)
				z1c := z10[0] + z00[0]
				z2c := z01[0] + z00[0]
				z3c := z11[0] + z01[0] + z1c
				for i1 := 0; i1 < len(z00)-1; i1++ {
					z1p := z10[i1+1] + z00[i1+1]
					z2p := z01[i1+1] + z00[i1+1]
					z3p := z11[i1+1] + z01[i1+1] + z1p
					f := 2 * i1
					a := u00[f : f+2 : f+2]
					a[0] += z00[i1]
					a[1] += 0.5 * (z00[i1+1] + z00[i1])
					b := u10[f : f+2 : f+2]
					b[0] += 0.5 * z1c
					b[1] += 0.25 * (z1c + z1p)
					c := u01[f : f+2 : f+2]
					c[0] += 0.5 * z2c
					c[1] += 0.25 * (z2c + z2p)
					d := u11[f : f+2 : f+2]
					d[0] += 0.25 * z3c
					d[1] += 0.125 * (z3c + z3p)
					z1c, z2c, z3c = z1p, z2p, z3p
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
				// abs(x) > rnmu, without moving x through an integer
				// register as math.Abs does.
				if x > rnmu {
					rnmu = x
				} else if -x > rnmu {
					rnmu = -x
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
