// Command ep is the NAS Parallel Benchmarks EP kernel (embarrassingly
// parallel): each rank generates its share of 2^(m+1) NPB random numbers,
// turns pairs into Gaussian deviates by the Marsaglia polar method, and the
// sums and annulus counts are combined with Allreduce. Translated from
// NPB 3.4 MPI EP (ep.f).
package main

import (
	"fmt"
	"io"
	"math"

	"github.com/gompi/gompi/mpi"
	"github.com/gompi/gompi/npb-go/internal/npb"
)

const (
	mk = 16      // log2 of the pairs per batch
	nk = 1 << mk // pairs per batch
	nq = 10      // annuli counted
	a  = 1220703125.0
	s  = 271828183.0

	epsilon = 1e-8
)

// Timer indices (ep_data: t_total, t_gpairs, t_randn, t_rcomm).
const (
	tTotal = iota
	tGpairs
	tRandn
	tRcomm
	tLast
)

// classM is log2 of the number of pairs for each class.
var classM = map[byte]int{'S': 24, 'W': 25, 'A': 28, 'B': 30, 'C': 32}

// reference holds the published verification sums (sx, sy) by m.
var reference = map[int][2]float64{
	24: {-3.247834652034740e+3, -6.958407078382297e+3},
	25: {-2.863319731645753e+3, -6.320053679109499e+3},
	28: {-4.295875165629892e+3, -1.580732573678431e+4},
	30: {4.033815542441498e+4, -2.660669192809235e+4},
	32: {4.764367927995374e+4, -8.084072988043731e+4},
	36: {1.982481200946593e+5, -1.020596636361769e+5},
	40: {-5.319717441530e+05, -3.688834557731e+05},
	44: {-1.986768071074039e+1, -2.164441190520301e+1},
}

// Sums is what EP computes: the Gaussian sums and annulus counts.
type Sums struct {
	SX, SY float64
	Q      [nq]float64
	Pairs  float64 // Gaussian pairs accepted (sum of Q)
}

// Run runs EP of the given class on c. Rank 0 writes the NPB report to out
// and its Results carry the verification verdict; other ranks' Results
// carry only the timing.
func Run(c *mpi.Comm, class byte, out io.Writer) (npb.Results, Sums, error) {
	m, ok := classM[class]
	if !ok {
		return npb.Results{}, Sums{}, fmt.Errorf("ep: unknown class %q", class)
	}
	node, nodes := c.Rank(), c.Size()
	nn := 1 << (m - mk) // batches
	if nodes > nn {
		return npb.Results{}, Sums{}, fmt.Errorf("ep: too many processes for class %c: %d > %d batches", class, nodes, nn)
	}
	if node == 0 {
		fmt.Fprintf(out, "\n NAS Parallel Benchmarks 3.4 -- EP Benchmark\n\n")
		fmt.Fprintf(out, " Number of random numbers generated: %15.0f  (class %c)\n", math.Ldexp(1, m+1), class)
		fmt.Fprintf(out, " Total number of processes:          %15d\n\n", nodes)
	}
	timeron, err := npb.BcastTimerFlag(c)
	if err != nil {
		return npb.Results{}, Sums{}, err
	}

	// Batches are dealt out in contiguous blocks, the first nn%nodes ranks
	// taking one more.
	np := nn / nodes
	large := nn % nodes
	var offset int
	if node < large {
		np++
		offset = node*np - 1
	} else {
		offset = large*(np+1) + (node-large)*np - 1
	}

	x := make([]float64, 2*nk)
	tm := npb.NewTimers(c, tLast)
	if err := c.Barrier(); err != nil {
		return npb.Results{}, Sums{}, err
	}
	tm.Start(tTotal)

	// an = a^(2^(mk+1)): the multiplier that jumps one batch ahead.
	t1 := a
	for i := 0; i < mk+1; i++ {
		npb.Randlc(&t1, t1)
	}
	an := t1

	var sum Sums
	for k := 1; k <= np; k++ {
		seed := batchSeed(offset+k, an)
		if timeron {
			tm.Start(tRandn)
		}
		npb.VranlcI8(2*nk, &seed, a, x)
		if timeron {
			tm.Stop(tRandn)
			tm.Start(tGpairs)
		}
		gaussianPairs(x, &sum)
		if timeron {
			tm.Stop(tGpairs)
		}
	}

	// Same three reductions as the reference, in the same order.
	if timeron {
		tm.Start(tRcomm)
	}
	send := []float64{sum.SX}
	recv := make([]float64, nq)
	if err := mpi.Allreduce(c, send, recv[:1], mpi.Sum); err != nil {
		return npb.Results{}, Sums{}, err
	}
	sum.SX = recv[0]
	send[0] = sum.SY
	if err := mpi.Allreduce(c, send, recv[:1], mpi.Sum); err != nil {
		return npb.Results{}, Sums{}, err
	}
	sum.SY = recv[0]
	if err := mpi.Allreduce(c, sum.Q[:], recv, mpi.Sum); err != nil {
		return npb.Results{}, Sums{}, err
	}
	copy(sum.Q[:], recv)
	if timeron {
		tm.Stop(tRcomm)
	}
	sum.Pairs = 0
	for _, v := range sum.Q {
		sum.Pairs += v
	}
	tm.Stop(tTotal)
	send[0] = tm.Read(tTotal)
	if err := mpi.Allreduce(c, send, recv[:1], mpi.Max); err != nil {
		return npb.Results{}, Sums{}, err
	}
	t := recv[0]

	res := npb.Results{Name: "EP", Class: class, N1: m + 1, Seconds: t,
		Procs: nodes, ActiveProc: nodes, Mops: npb.Mops(math.Ldexp(1, m+1), t),
		OpType: "Random numbers generated"}
	if node == 0 {
		res.Verified = verify(m, sum)
		if err := report(out, res, m, sum); err != nil {
			return res, sum, err
		}
	}
	if timeron {
		t := []float64{tm.Read(tTotal), tm.Read(tGpairs), tm.Read(tRandn), tm.Read(tRcomm), 0, tm.Read(tRcomm)}
		t[4] = t[0] - t[5]
		names := []string{"total", "gpairs", "randn", "rcomm", " totcomp", " totcomm"}
		if err := npb.ReportTimers(c, t, names, out); err != nil {
			return res, sum, err
		}
	}
	return res, sum, nil
}

// report writes EP's results and the NPB block.
func report(out io.Writer, res npb.Results, m int, sum Sums) error {
	t := res.Seconds
	fmt.Fprintf(out, "EP Benchmark Results:\n\nCPU Time =%10.4f\nN = 2^%5d\nNo. Gaussian Pairs =%15.0f\n", t, m, sum.Pairs)
	fmt.Fprintf(out, "Sums = %25.15E%25.15E\nCounts:\n", sum.SX, sum.SY)
	for i, v := range sum.Q {
		fmt.Fprintf(out, "%3d%15.0f\n", i, v)
	}
	return res.Print(out)
}

// batchSeed is the generator seed at the start of batch kk (0-based): s
// times an^kk.
func batchSeed(kk int, an float64) float64 {
	return npb.SkipAhead(s, an, int64(kk))
}

// gaussianPairs applies the polar method to the uniform pairs in x,
// accumulating into sum.
func gaussianPairs(x []float64, sum *Sums) {
	sx, sy := sum.SX, sum.SY
	q := sum.Q
	// In chunks of pairs, three passes: the acceptance test, the
	// logarithms, the rest. With the logarithm's call inside one loop
	// (logOn01 is too big for Go to inline) the compiler saved and
	// reloaded every value live across it on each accepted pair, as Go's
	// calls preserve no register; the logarithm's own loop has almost
	// none live. Accepted pairs keep their order, so the sums are the
	// one-loop form's, bit for bit.
	const chunk = 256
	var x1s, x2s, t1s, lgs [chunk]float64
	for len(x) >= 2 {
		m := min(len(x)/2, chunk)
		n := 0
		for i := 0; i < m; i++ {
			x1 := 2*x[2*i] - 1
			x2 := 2*x[2*i+1] - 1
			t1 := x1*x1 + x2*x2
			x1s[n], x2s[n], t1s[n] = x1, x2, t1
			if t1 <= 1 {
				n++
			}
		}
		x = x[2*m:]
		for i, t1 := range t1s[:n] {
			lgs[i] = logOn01(t1)
		}
		for i, t1 := range t1s[:n] {
			t2 := math.Sqrt(-2 * lgs[i] / t1)
			t3 := x1s[i] * t2
			t4 := x2s[i] * t2
			// A deviate beyond the last annulus (over 10 sigma) is not
			// counted; the reference would write past its array.
			// max(|t3|, |t4|) on the bits: for floats without a sign bit
			// the integer order is the numeric order, and an integer max
			// is a conditional move, where the float builtin's NaN and
			// signed-zero rules cost a chain of branches here.
			const abs = 1<<63 - 1
			if l := int(math.Float64frombits(max(math.Float64bits(t3)&abs, math.Float64bits(t4)&abs))); l < nq {
				q[l]++
			}
			sx += t3
			sy += t4
		}
	}
	sum.SX, sum.SY = sx, sy
	sum.Q = q
}

func verify(m int, sum Sums) bool {
	ref, ok := reference[m]
	if !ok {
		return false
	}
	sxErr := math.Abs((sum.SX - ref[0]) / ref[0])
	syErr := math.Abs((sum.SY - ref[1]) / ref[1])
	// NaN compares false, so a NaN error fails verification.
	return sxErr <= epsilon && syErr <= epsilon
}
