package main

import (
	"fmt"
	"io"
	"math"

	"github.com/gompi/gompi/mpi"
)

// ssor performs niter pseudo-time steps of the SSOR iteration (ssor.f):
// each scales the residual by dt, sweeps the lower triangular system
// plane by plane upwards (k = 2 .. nz-1) and the upper one downwards, the
// planes pipelined over the process grid by exchange1, updates u and
// recomputes the residual. The timed section is the loop; maxtime is its
// maximum over the ranks.
func (s *luState) ssor(niter int, out io.Writer) error {
	root := s.id == 0
	tmp := 1.0 / (s.omega * (2.0 - s.omega))
	s.jac.init(s)
	if err := s.rhs(); err != nil {
		return err
	}
	var err error
	if s.rsdnm, err = s.l2norm(s.rsd); err != nil {
		return err
	}
	for i := 0; i < tLast; i++ {
		s.t.Clear(i)
	}
	if err := s.comm.Barrier(); err != nil {
		return err
	}
	s.t.Clear(tTotal)
	s.t.startAlways(tTotal)

	nz := s.nz
	for istep := 1; istep <= niter; istep++ {
		if root && (istep%20 == 0 || istep == s.itmax || istep == 1) && niter > 1 {
			fmt.Fprintf(out, " Time step %4d\n", istep)
		}
		dt := s.dt
		for k := 2; k <= nz-1; k++ {
			for j := s.jst; j <= s.jend; j++ {
				r := s.rsd[s.ix(s.ist, j, k) : s.ix(s.iend, j, k)+5]
				for n := range r {
					r[n] = dt * r[n]
				}
			}
		}
		for k := 2; k <= nz-1; k++ {
			// Receive data from the north and the west.
			s.t.start(tLcomm)
			err := s.exchange1(s.rsd, k, 0)
			s.t.stop(tLcomm)
			if err != nil {
				return err
			}
			s.t.start(tBlts)
			for j := s.jst; j <= s.jend; j++ {
				s.lowerLine(j, k)
			}
			s.t.stop(tBlts)
			// Send data to the east and the south.
			s.t.start(tLcomm)
			err = s.exchange1(s.rsd, k, 2)
			s.t.stop(tLcomm)
			if err != nil {
				return err
			}
		}
		for k := nz - 1; k >= 2; k-- {
			// Receive data from the south and the east.
			s.t.start(tUcomm)
			err := s.exchange1(s.rsd, k, 1)
			s.t.stop(tUcomm)
			if err != nil {
				return err
			}
			s.t.start(tButs)
			for j := s.jend; j >= s.jst; j-- {
				s.upperLine(j, k)
			}
			s.t.stop(tButs)
			// Send data to the north and the west.
			s.t.start(tUcomm)
			err = s.exchange1(s.rsd, k, 3)
			s.t.stop(tUcomm)
			if err != nil {
				return err
			}
		}
		// Update the variables.
		for k := 2; k <= nz-1; k++ {
			for j := s.jst; j <= s.jend; j++ {
				lo, hi := s.ix(s.ist, j, k), s.ix(s.iend, j, k)+5
				u, r := s.u[lo:hi], s.rsd[lo:hi]
				for n := range u {
					u[n] = u[n] + tmp*r[n]
				}
			}
		}
		// The norm of the corrections (computed, not printed, as in the
		// reference).
		if istep%s.inorm == 0 {
			if _, err := s.l2norm(s.rsd); err != nil {
				return err
			}
		}
		if err := s.rhs(); err != nil {
			return err
		}
		if istep%s.inorm == 0 || istep == s.itmax {
			if s.rsdnm, err = s.l2norm(s.rsd); err != nil {
				return err
			}
		}
		converged := true
		for m := 0; m < 5; m++ {
			converged = converged && s.rsdnm[m] < s.tolrsd[m]
		}
		if converged {
			if root {
				fmt.Fprintf(out, " \n convergence was achieved after %4d pseudo-time steps\n", istep)
			}
			break
		}
	}
	s.t.stopAlways(tTotal)
	mt := []float64{0}
	if err := mpi.Allreduce(s.comm, []float64{s.t.Read(tTotal)}, mt, mpi.Max); err != nil {
		return err
	}
	s.maxtime = mt[0]
	return nil
}

// l2norm is the RMS norm of each component of v over the interior, summed
// over the ranks by an Allreduce.
func (s *luState) l2norm(v []float64) ([5]float64, error) {
	dummy := make([]float64, 5)
	for k := 2; k <= s.nz0-1; k++ {
		for j := s.jst; j <= s.jend; j++ {
			row := s.ix(0, j, k)
			for i := s.ist; i <= s.iend; i++ {
				x := v5(v, row+5*i)
				for m := 0; m < 5; m++ {
					dummy[m] = dummy[m] + x[m]*x[m]
				}
			}
		}
	}
	sum := make([]float64, 5)
	s.t.start(tRcomm)
	err := mpi.Allreduce(s.comm, dummy, sum, mpi.Sum)
	s.t.stop(tRcomm)
	var norm [5]float64
	for m := 0; m < 5; m++ {
		norm[m] = math.Sqrt(sum[m] / (float64(s.nx0-2) * float64(s.ny0-2) * float64(s.nz0-2)))
	}
	return norm, err
}

// lowerLine is jacld and blts for line (j, k) of rsd, point by point:
// the blocks of point i (d, and a, b, c from its k-1, j-1 and i-1
// neighbours) are formed just before its solve, so that forming them,
// which does not depend on the sweep, overlaps the sweep's chain of
// dependent operations from point to point. The solve is the reference's
// v <- L^-1 v (ldz = a, ldy = b, ldx = c) in its order of operations,
// with the diagonal block's elimination reduced to its non-trivial part
// (diagLU).
func (s *luState) lowerLine(j, k int) {
	var a, b, c mat5
	var d diagLU
	u, v := s.u, s.rsd
	omega := s.omega
	sj, sk := s.sj, s.sk
	jc := &s.jac
	row := s.ix(0, j, k)
	for i := s.ist; i <= s.iend; i++ {
		p := row + 5*i
		jc.diag(v5(u, p), &d)
		jc.zl.zBlock(v5(u, p-sk), &a)
		jc.yl.yBlock(v5(u, p-sj), &b)
		jc.xl.xBlock(v5(u, p-5), &c)

		vv := v5(v, p)
		vk, vj, vi := v5(v, p-sk), v5(v, p-sj), v5(v, p-5)
		for m := 0; m < 5; m++ {
			vv[m] = vv[m] - omega*(a[5*m]*vk[0]+a[5*m+1]*vk[1]+a[5*m+2]*vk[2]+a[5*m+3]*vk[3]+a[5*m+4]*vk[4])
		}
		for m := 0; m < 5; m++ {
			vv[m] = vv[m] - omega*(b[5*m]*vj[0]+c[5*m]*vi[0]+
				b[5*m+1]*vj[1]+c[5*m+1]*vi[1]+
				b[5*m+2]*vj[2]+c[5*m+2]*vi[2]+
				b[5*m+3]*vj[3]+c[5*m+3]*vi[3]+
				b[5*m+4]*vj[4]+c[5*m+4]*vi[4])
		}
		d.solve(vv)
	}
}

// upperLine is jacu and buts for line (j, k) of rsd, i descending, point
// by point as lowerLine: d, and a, b, c from the i+1, j+1 and k+1
// neighbours, then the reference's v <- U^-1 v (udx = a, udy = b,
// udz = c).
func (s *luState) upperLine(j, k int) {
	var a, b, c mat5
	var d diagLU
	u, v := s.u, s.rsd
	omega := s.omega
	sj, sk := s.sj, s.sk
	jc := &s.jac
	row := s.ix(0, j, k)
	for i := s.iend; i >= s.ist; i-- {
		p := row + 5*i
		jc.diag(v5(u, p), &d)
		jc.xu.xBlock(v5(u, p+5), &a)
		jc.yu.yBlock(v5(u, p+sj), &b)
		jc.zu.zBlock(v5(u, p+sk), &c)

		vv := v5(v, p)
		vk, vj, vi := v5(v, p+sk), v5(v, p+sj), v5(v, p+5)
		var tv [5]float64
		for m := 0; m < 5; m++ {
			tv[m] = omega * (c[5*m]*vk[0] + c[5*m+1]*vk[1] + c[5*m+2]*vk[2] + c[5*m+3]*vk[3] + c[5*m+4]*vk[4])
		}
		for m := 0; m < 5; m++ {
			tv[m] = tv[m] + omega*(b[5*m]*vj[0]+a[5*m]*vi[0]+
				b[5*m+1]*vj[1]+a[5*m+1]*vi[1]+
				b[5*m+2]*vj[2]+a[5*m+2]*vi[2]+
				b[5*m+3]*vj[3]+a[5*m+3]*vi[3]+
				b[5*m+4]*vj[4]+a[5*m+4]*vi[4])
		}
		d.solve(&tv)
		for m := 0; m < 5; m++ {
			vv[m] = vv[m] - tv[m]
		}
	}
}
