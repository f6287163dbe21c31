// Command commskel is the communication skeleton of the virtual-time cost
// figures (scripts/scale.sh; BenchmarkVirtualScale in mpi runs the same in
// one process): each iteration every rank exchanges -n doubles with both
// ring neighbours by Sendrecv, then an Allreduce of one double and a
// Barrier. It computes nothing, so at -cpu-scale 0 its host time is the
// simulation's own cost per message:
//
//	go run ./cmd/gompirun -np 2 -virtual 4096 -cpu-scale 0 ./samples/commskel
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/gompi/gompi/mpi"
)

func main() {
	iters := flag.Int("iters", 10, "iterations")
	n := flag.Int("n", 1024, "doubles each Sendrecv sends")
	flag.Parse()
	if *iters < 1 || *n < 0 {
		fmt.Fprintln(os.Stderr, "commskel: -iters must be at least 1 and -n at least 0")
		os.Exit(2)
	}
	mpi.Main(func(c *mpi.Comm) error { return skeleton(c, *iters, *n, os.Stdout) })
}

// skeleton runs the iterations; rank 0 reports the Allreduce's last sum,
// which must be the number of ranks.
func skeleton(c *mpi.Comm, iters, n int, out io.Writer) error {
	size, me := c.Size(), c.Rank()
	right, left := (me+1)%size, (me+size-1)%size
	send, recv := make([]float64, n), make([]float64, n)
	one, sum := []float64{1}, []float64{0}
	for it := 0; it < iters; it++ {
		if _, err := mpi.Sendrecv(c, send, right, 0, recv, left, 0); err != nil {
			return err
		}
		if _, err := mpi.Sendrecv(c, send, left, 1, recv, right, 1); err != nil {
			return err
		}
		if err := mpi.Allreduce(c, one, sum, mpi.Sum); err != nil {
			return err
		}
		if err := c.Barrier(); err != nil {
			return err
		}
	}
	if int(sum[0]) != size {
		return fmt.Errorf("rank %d: Allreduce summed %v over %d ranks", me, sum[0], size)
	}
	if me == 0 {
		_, err := fmt.Fprintf(out, "commskel: %d ranks, %d iterations of 2 Sendrecv of %d doubles, Allreduce, Barrier\n", size, iters, n)
		return err
	}
	return nil
}
