package npb

import (
	"fmt"
	"io"
	"math"
	"runtime"
	"strings"
)

// Version is the NPB release whose specification these kernels follow.
const Version = "3.4.2"

// Results is what a kernel reports at the end of a run (the arguments of
// NPB's print_results).
type Results struct {
	Name  string // two-letter benchmark name: "EP", "IS", ...
	Class byte
	// N1, N2, N3 give the problem size: a grid N1xN2xN3, or, when N2 and N3
	// are 0, a single size N1 (for EP, N1 is the log2 of the pair count).
	N1, N2, N3 int
	Iterations int
	Seconds    float64
	Procs      int // total processes
	ActiveProc int // processes that computed
	Mops       float64
	OpType     string
	Verified   bool
}

// Print writes the NPB result block (print_results.f layout) to w.
func (r Results) Print(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "\n\n %s Benchmark Completed.\n", r.Name)
	fmt.Fprintf(&b, " Class           = %24c\n", r.Class)
	switch {
	case r.N2 == 0 && r.N3 == 0 && r.Name == "EP":
		fmt.Fprintf(&b, " Size            = %24.0f\n", math.Ldexp(1, r.N1))
	case r.N2 == 0 && r.N3 == 0:
		fmt.Fprintf(&b, " Size            = %24d\n", r.N1)
	default:
		fmt.Fprintf(&b, " Size            =  %9s%4dx%4dx%4d\n", "", r.N1, r.N2, r.N3)
	}
	fmt.Fprintf(&b, " Iterations      = %24d\n", r.Iterations)
	fmt.Fprintf(&b, " Time in seconds = %24.2f\n", r.Seconds)
	fmt.Fprintf(&b, " Total processes = %24d\n", r.Procs)
	fmt.Fprintf(&b, " Active procs    = %24d\n", r.ActiveProc)
	fmt.Fprintf(&b, " Mop/s total     = %24.2f\n", r.Mops)
	fmt.Fprintf(&b, " Mop/s/process   = %24.2f\n", r.Mops/float64(max(r.Procs, 1)))
	fmt.Fprintf(&b, " Operation type  = %24s\n", r.OpType)
	verdict := "UNSUCCESSFUL"
	if r.Verified {
		verdict = "SUCCESSFUL"
	}
	fmt.Fprintf(&b, " Verification    = %24s\n", verdict)
	fmt.Fprintf(&b, " Version         = %24s\n", Version)
	fmt.Fprintf(&b, "\n Compile options:\n")
	fmt.Fprintf(&b, "    GO           = %s\n", runtime.Version())
	fmt.Fprintf(&b, "    GOOS/GOARCH  = %s/%s\n", runtime.GOOS, runtime.GOARCH)
	fmt.Fprintf(&b, "    MPI          = gompi\n")
	fmt.Fprintf(&b, "    RAND         = randdp\n")
	fmt.Fprintf(&b, "\n\n Please send feedbacks and/or the results of this run to:\n\n")
	fmt.Fprintf(&b, " NPB Development Team\n Internet: npb@nas.nasa.gov\n\n\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// Mops is the usual NPB rate: ops operations in t seconds, in millions per
// second, or 0 when no time was measured.
func Mops(ops, t float64) float64 {
	if t <= 0 {
		return 0
	}
	return ops / t / 1e6
}

// IsPowerOfTwo reports whether n is 1, 2, 4, 8, ...
func IsPowerOfTwo(n int) bool { return n > 0 && n&(n-1) == 0 }
