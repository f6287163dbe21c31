package main

import (
	"fmt"
	"io"
	"math"

	"github.com/gompi/gompi/mpi"
	"github.com/gompi/gompi/npb-go/internal/npb"
)

// epsilon is the reference's verification tolerance (relative).
const epsilon = 1.0e-08

// errorNorm is error.f: the RMS norm over the interior of the difference
// between u and the exact solution, summed over the ranks by an Allreduce.
func (s *luState) errorNorm() error {
	dummy := make([]float64, 5)
	var ue [5]float64
	for k := 2; k <= s.nz-1; k++ {
		for j := s.jst; j <= s.jend; j++ {
			for i := s.ist; i <= s.iend; i++ {
				s.exact(s.ipt+i, s.jpt+j, k, &ue)
				u := v5(s.u, s.ix(i, j, k))
				for m := 0; m < 5; m++ {
					tmp := ue[m] - u[m]
					dummy[m] = dummy[m] + tmp*tmp
				}
			}
		}
	}
	sum := make([]float64, 5)
	if err := mpi.Allreduce(s.comm, dummy, sum, mpi.Sum); err != nil {
		return err
	}
	for m := 0; m < 5; m++ {
		s.errnm[m] = math.Sqrt(sum[m] / (float64(s.nx0-2) * float64(s.ny0-2) * float64(s.nz0-2)))
	}
	return nil
}

// pressure is c2 times the pressure at point p of u, the integrand of
// pintgr.
func (s *luState) pressure(p int) float64 {
	u := v5(s.u, p)
	return s.c2 * (u[4] - 0.50*(u[1]*u[1]+u[2]*u[2]+u[3]*u[3])/u[0])
}

// allreduceSum sums one value over the ranks.
func (s *luState) allreduceSum(v float64) (float64, error) {
	out := []float64{0}
	err := mpi.Allreduce(s.comm, []float64{v}, out, mpi.Sum)
	return out[0], err
}

// pintgr is pintgr.f: the surface integral of the pressure over three
// faces of the box [ii1, ii2] x [ji1, ji2] x [ki1, ki2], each face's sum
// taken over the ranks holding it, with exchange_4, 5 and 6 supplying the
// neighbours' edge values.
func (s *luState) pintgr() error {
	nx, ny := s.nx, s.ny
	ipt, jpt := s.ipt, s.jpt
	ii1, ii2, ji1, ji2, ki1, ki2 := s.ii1, s.ii2, s.ji1, s.ji2, s.ki1, s.ki2

	// This rank's part of the integration domain.
	ibeg, ifin := nx+1, 0
	iglob1, iglob2 := ipt+1, ipt+nx
	if iglob1 >= ii1 && iglob2 < ii2+nx {
		ibeg = 1
	}
	if iglob1 > ii1-nx && iglob2 <= ii2 {
		ifin = nx
	}
	if ii1 >= iglob1 && ii1 <= iglob2 {
		ibeg = ii1 - ipt
	}
	if ii2 >= iglob1 && ii2 <= iglob2 {
		ifin = ii2 - ipt
	}
	jbeg, jfin := ny+1, 0
	jglob1, jglob2 := jpt+1, jpt+ny
	if jglob1 >= ji1 && jglob2 < ji2+ny {
		jbeg = 1
	}
	if jglob1 > ji1-ny && jglob2 <= ji2 {
		jfin = ny
	}
	if ji1 >= jglob1 && ji1 <= jglob2 {
		jbeg = ji1 - jpt
	}
	if ji2 >= jglob1 && ji2 <= jglob2 {
		jfin = ji2 - jpt
	}
	ifin1, jfin1 := ifin, jfin
	if ipt+ifin1 == ii2 {
		ifin1 = ifin - 1
	}
	if jpt+jfin1 == ji2 {
		jfin1 = jfin - 1
	}
	phi1, phi2 := s.phi1, s.phi2
	// quad sums the four corners of the cell (a, b) of phi1 and phi2.
	quad := func(a, b int) float64 {
		p := s.phi(a, b)
		q := p + s.phiStride
		return phi1[p] + phi1[p+1] + phi1[q] + phi1[q+1] +
			phi2[p] + phi2[p+1] + phi2[q] + phi2[q+1]
	}

	// The bottom and top faces, k = ki1 and ki2.
	clear(phi1)
	clear(phi2)
	for j := jbeg; j <= jfin; j++ {
		for i := ibeg; i <= ifin; i++ {
			phi1[s.phi(i, j)] = s.pressure(s.ix(i, j, ki1))
			phi2[s.phi(i, j)] = s.pressure(s.ix(i, j, ki2))
		}
	}
	if err := s.exchange4(phi1, phi2, ibeg, ifin1, jbeg, jfin1); err != nil {
		return err
	}
	frc1 := 0.0
	for j := jbeg; j <= jfin1; j++ {
		for i := ibeg; i <= ifin1; i++ {
			frc1 = frc1 + quad(i, j)
		}
	}
	frc1, err := s.allreduceSum(frc1)
	if err != nil {
		return err
	}
	frc1 = s.dxi * s.deta * frc1

	// The faces j = ji1 and ji2.
	clear(phi1)
	clear(phi2)
	ind1 := jpt+jbeg == ji1
	if ind1 {
		for k := ki1; k <= ki2; k++ {
			for i := ibeg; i <= ifin; i++ {
				phi1[s.phi(i, k)] = s.pressure(s.ix(i, jbeg, k))
			}
		}
	}
	ind2 := jpt+jfin == ji2
	if ind2 {
		for k := ki1; k <= ki2; k++ {
			for i := ibeg; i <= ifin; i++ {
				phi2[s.phi(i, k)] = s.pressure(s.ix(i, jfin, k))
			}
		}
	}
	if ind1 {
		if err := s.exchange5(phi1, ibeg, ifin1); err != nil {
			return err
		}
	}
	if ind2 {
		if err := s.exchange5(phi2, ibeg, ifin1); err != nil {
			return err
		}
	}
	frc2 := 0.0
	for k := ki1; k <= ki2-1; k++ {
		for i := ibeg; i <= ifin1; i++ {
			frc2 = frc2 + quad(i, k)
		}
	}
	if frc2, err = s.allreduceSum(frc2); err != nil {
		return err
	}
	frc2 = s.dxi * s.dzeta * frc2

	// The faces i = ii1 and ii2.
	clear(phi1)
	clear(phi2)
	ind1 = ipt+ibeg == ii1
	if ind1 {
		for k := ki1; k <= ki2; k++ {
			for j := jbeg; j <= jfin; j++ {
				phi1[s.phi(j, k)] = s.pressure(s.ix(ibeg, j, k))
			}
		}
	}
	ind2 = ipt+ifin == ii2
	if ind2 {
		for k := ki1; k <= ki2; k++ {
			for j := jbeg; j <= jfin; j++ {
				phi2[s.phi(j, k)] = s.pressure(s.ix(ifin, j, k))
			}
		}
	}
	if ind1 {
		if err := s.exchange6(phi1, jbeg, jfin1); err != nil {
			return err
		}
	}
	if ind2 {
		if err := s.exchange6(phi2, jbeg, jfin1); err != nil {
			return err
		}
	}
	frc3 := 0.0
	for k := ki1; k <= ki2-1; k++ {
		for j := jbeg; j <= jfin1; j++ {
			frc3 = frc3 + quad(j, k)
		}
	}
	if frc3, err = s.allreduceSum(frc3); err != nil {
		return err
	}
	frc3 = s.deta * s.dzeta * frc3
	s.frc = 0.25 * (frc1 + frc2 + frc3)
	return nil
}

// relDiff is |(x - ref) / ref|.
func relDiff(x, ref float64) float64 { return math.Abs((x - ref) / ref) }

// within reports whether a relative difference passes: not NaN and at most
// epsilon.
func within(dif float64) bool { return !math.IsNaN(dif) && dif <= epsilon }

// verify is verify.f: it compares the residual norms xcr, the error norms
// xce and the surface integral xci with the class's published values,
// writes the reference's comparison to w and reports whether all agree to
// within epsilon (and dt is the class's).
func verify(w io.Writer, class byte, p params, dt float64, xcr, xce [5]float64, xci float64) bool {
	e := func(v float64) string { return npb.FortranE(v, 20, 13) }
	fmt.Fprintf(w, "\n Verification being performed for class %c\n", class)
	fmt.Fprintf(w, " Accuracy setting for epsilon = %s\n", e(epsilon))
	verified := math.Abs(dt-p.dt) <= epsilon
	if !verified {
		fmt.Fprintf(w, " DT does not match the reference value of %s\n", npb.FortranE(p.dt, 15, 8))
		fmt.Fprintf(w, " RMS-norms of residual\n")
		for m := 0; m < 5; m++ {
			fmt.Fprintf(w, "          %2d  %s\n", m+1, e(xcr[m]))
		}
		fmt.Fprintf(w, " RMS-norms of solution error\n")
		for m := 0; m < 5; m++ {
			fmt.Fprintf(w, "          %2d  %s\n", m+1, e(xce[m]))
		}
		fmt.Fprintf(w, " Surface integral\n          %4s%s\n", "", e(xci))
		fmt.Fprintf(w, " No reference values provided\n No verification performed\n")
		return false
	}
	table := func(title string, got, ref [5]float64) {
		fmt.Fprintf(w, " %s\n", title)
		for m := 0; m < 5; m++ {
			dif := relDiff(got[m], ref[m])
			prefix := "          "
			if !within(dif) {
				verified = false
				prefix = " FAILURE: "
			}
			fmt.Fprintf(w, "%s%2d  %s%s%s\n", prefix, m+1, e(got[m]), e(ref[m]), e(dif))
		}
	}
	table("Comparison of RMS-norms of residual", xcr, p.xcr)
	table("Comparison of RMS-norms of solution error", xce, p.xce)
	fmt.Fprintf(w, " Comparison of surface integral\n")
	dif := relDiff(xci, p.xci)
	prefix := "          "
	if !within(dif) {
		verified = false
		prefix = " FAILURE: "
	}
	fmt.Fprintf(w, "%s    %s%s%s\n", prefix, e(xci), e(p.xci), e(dif))
	if verified {
		fmt.Fprintf(w, " Verification Successful\n")
	} else {
		fmt.Fprintf(w, " Verification failed\n")
	}
	return verified
}
