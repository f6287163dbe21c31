// Command barrier is the smallest program that involves every rank: each
// rank says hello (counted, not printed), then all meet in a Barrier and an
// Allreduce that counts them. Only rank 0 prints. It measures how many
// virtual ranks a host can carry:
//
//	go run ./cmd/gompirun -np 1 -virtual 100000 -cpu-scale 0 ./samples/barrier
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/gompi/gompi/mpi"
)

func main() {
	mpi.Main(func(c *mpi.Comm) error { return barrier(c, os.Stdout) })
}

func barrier(c *mpi.Comm, out io.Writer) error {
	if err := c.Barrier(); err != nil {
		return err
	}
	count := []int64{0}
	if err := mpi.Allreduce(c, []int64{1}, count, mpi.Sum); err != nil {
		return err
	}
	if int(count[0]) != c.Size() {
		return fmt.Errorf("rank %d: Allreduce counted %d ranks of %d", c.Rank(), count[0], c.Size())
	}
	if c.Rank() == 0 {
		_, err := fmt.Fprintf(out, "hello from %d ranks: barrier and allreduce done at %.6g s\n", c.Size(), c.Wtime())
		return err
	}
	return nil
}
