// Command pingpong measures one-way message time between ranks 0 and 1 for
// sizes from 0 B to 4 MiB, timed with the rank's Wtime (virtual time in a
// virtual run). Other ranks, if any, idle.
//
//	go run ./cmd/gompirun -np 2 ./samples/pingpong
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/gompi/gompi/mpi"
)

func main() {
	iters := flag.Int("iters", 100, "round trips per size")
	maxSize := flag.Int("max", 4<<20, "largest message in bytes")
	flag.Parse()
	if *iters < 1 || *maxSize < 0 {
		fmt.Fprintln(os.Stderr, "pingpong: -iters must be >= 1 and -max >= 0")
		os.Exit(2)
	}
	mpi.Main(func(c *mpi.Comm) error {
		_, err := pingpong(c, sizes(*maxSize), *iters, os.Stdout)
		return err
	})
}

// sizes is 0 and the powers of two up to max.
func sizes(max int) []int {
	s := []int{0}
	for n := 1; n <= max; n *= 2 {
		s = append(s, n)
	}
	return s
}

// pingpong returns the one-way time in seconds per size (on rank 0).
func pingpong(c *mpi.Comm, sizes []int, iters int, out io.Writer) ([]float64, error) {
	if c.Size() < 2 {
		return nil, fmt.Errorf("pingpong needs at least 2 ranks, got %d", c.Size())
	}
	me := c.Rank()
	if me > 1 {
		return nil, nil
	}
	peer := 1 - me
	times := make([]float64, len(sizes))
	if me == 0 {
		fmt.Fprintf(out, "# %10s %14s %12s\n", "bytes", "one-way (us)", "MB/s")
	}
	for k, size := range sizes {
		buf := make([]byte, size)
		// One warm-up round trip, then the timed ones.
		for i := -1; i < iters; i++ {
			if i == 0 {
				times[k] = c.Wtime()
			}
			if me == 0 {
				if err := mpi.Send(c, buf, peer, k); err != nil {
					return nil, err
				}
				if _, err := mpi.Recv(c, buf, peer, k); err != nil {
					return nil, err
				}
			} else {
				if _, err := mpi.Recv(c, buf, peer, k); err != nil {
					return nil, err
				}
				if err := mpi.Send(c, buf, peer, k); err != nil {
					return nil, err
				}
			}
		}
		times[k] = (c.Wtime() - times[k]) / float64(2*iters)
		if me == 0 {
			bw := 0.0
			if times[k] > 0 {
				bw = float64(size) / times[k] / 1e6
			}
			fmt.Fprintf(out, "%12d %14.3f %12.1f\n", size, times[k]*1e6, bw)
		}
	}
	return times, nil
}
