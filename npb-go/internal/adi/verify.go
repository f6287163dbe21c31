package adi

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/gompi/gompi/mpi"
	"github.com/gompi/gompi/npb-go/internal/npb"
)

// epsilon is the reference's verification tolerance (relative).
const epsilon = 1.0e-08

// errorNorm is the RMS norm over the grid of the difference between u and
// the exact solution (error_norm).
func (s *State) errorNorm() ([5]float64, error) {
	k := &s.k
	work := make([]float64, 5)
	var ue [5]float64
	for c := range s.cells {
		cl := &s.cells[c]
		for kk, kg := 0, cl.low[2]; kg <= cl.high[2]; kk, kg = kk+1, kg+1 {
			zeta := float64(kg) * k.dnzm1
			for jj, jg := 0, cl.low[1]; jg <= cl.high[1]; jj, jg = jj+1, jg+1 {
				eta := float64(jg) * k.dnym1
				for ii, ig := 0, cl.low[0]; ig <= cl.high[0]; ii, ig = ii+1, ig+1 {
					xi := float64(ig) * k.dnxm1
					k.exactSolution(xi, eta, zeta, &ue)
					p := s.idx(ii, jj, kk)
					for m := 0; m < 5; m++ {
						add := cl.u[m*s.cv+p] - ue[m]
						work[m] += add * add
					}
				}
			}
		}
	}
	return s.finishNorm(work)
}

// rhsNorm is the RMS norm of the right-hand side over the interior
// (rhs_norm).
func (s *State) rhsNorm() ([5]float64, error) {
	work := make([]float64, 5)
	for c := range s.cells {
		cl := &s.cells[c]
		for kk := cl.start[2]; kk < cl.size[2]-cl.end[2]; kk++ {
			for j := cl.start[1]; j < cl.size[1]-cl.end[1]; j++ {
				for i := cl.start[0]; i < cl.size[0]-cl.end[0]; i++ {
					p := s.idx(i, j, kk)
					for m := 0; m < 5; m++ {
						add := cl.rhs[m*s.cv+p]
						work[m] += add * add
					}
				}
			}
		}
	}
	return s.finishNorm(work)
}

// finishNorm sums the ranks' squares (Allreduce) and scales them to an RMS
// norm.
func (s *State) finishNorm(work []float64) ([5]float64, error) {
	sum := make([]float64, 5)
	var rms [5]float64
	if err := mpi.Allreduce(s.setup, work, sum, mpi.Sum); err != nil {
		return rms, err
	}
	for m := 0; m < 5; m++ {
		v := sum[m]
		for d := 0; d < 3; d++ {
			v /= float64(s.grid[d] - 2)
		}
		rms[m] = math.Sqrt(v)
	}
	return rms, nil
}

// relDiff is |x - ref| / |ref|.
func relDiff(x, ref float64) float64 { return math.Abs((x - ref) / ref) }

// within reports whether a relative difference passes: not NaN and at most
// epsilon.
func within(dif float64) bool { return !math.IsNaN(dif) && dif <= epsilon }

// verify computes the error and residual norms (on every rank: they take
// an Allreduce and a face exchange) and, on rank 0, compares them with the
// published values and prints the comparison (verify.f).
func (s *State) verify(class byte, p params, out io.Writer, res *Result) (bool, error) {
	xce, err := s.errorNorm()
	if err != nil {
		return false, err
	}
	if err := s.copyFaces(); err != nil {
		return false, err
	}
	xcr, err := s.rhsNorm()
	if err != nil {
		return false, err
	}
	for m := range xcr {
		xcr[m] /= s.dt
	}
	res.Xcr, res.Xce = xcr, xce
	if s.node != 0 {
		return false, nil
	}
	var b strings.Builder
	verified := verifyNorms(&b, class, p, s.dt, xcr, xce)
	_, err = io.WriteString(out, b.String())
	return verified, err
}

// verifyNorms compares the norms with the class's published values and
// writes the reference's comparison table; it reports whether all ten
// agree to within epsilon and dt is the class's.
func verifyNorms(w io.Writer, class byte, p params, dt float64, xcr, xce [5]float64) bool {
	e := func(v float64) string { return npb.FortranE(v, 20, 13) }
	fmt.Fprintf(w, " Verification being performed for class %c\n", class)
	fmt.Fprintf(w, " accuracy setting for epsilon = %s\n", e(epsilon))
	verified := math.Abs(dt-p.dt) <= epsilon
	if !verified {
		fmt.Fprintf(w, " DT does not match the reference value of %s\n", npb.FortranE(p.dt, 15, 8))
		fmt.Fprintf(w, " RMS-norms of residual\n")
		for m := 0; m < 5; m++ {
			fmt.Fprintf(w, "          %2d%s\n", m+1, e(xcr[m]))
		}
		fmt.Fprintf(w, " RMS-norms of solution error\n")
		for m := 0; m < 5; m++ {
			fmt.Fprintf(w, "          %2d%s\n", m+1, e(xce[m]))
		}
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
			fmt.Fprintf(w, "%s%2d%s%s%s\n", prefix, m+1, e(got[m]), e(ref[m]), e(dif))
		}
	}
	table("Comparison of RMS-norms of residual", xcr, p.xcr)
	table("Comparison of RMS-norms of solution error", xce, p.xce)
	if verified {
		fmt.Fprintf(w, " Verification Successful\n")
	} else {
		fmt.Fprintf(w, " Verification failed\n")
	}
	return verified
}
