// Command ring passes a token around all ranks a number of times; each rank
// adds one, so rank 0 ends with laps x size.
//
//	go run ./cmd/gompirun -np 4 ./samples/ring -laps 10
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/gompi/gompi/mpi"
)

func main() {
	laps := flag.Int("laps", 3, "times the token goes round")
	flag.Parse()
	if *laps < 1 {
		fmt.Fprintln(os.Stderr, "ring: -laps must be at least 1")
		os.Exit(2)
	}
	mpi.Main(func(c *mpi.Comm) error {
		_, err := ring(c, *laps, os.Stdout)
		return err
	})
}

// ring runs the token round and returns the final token (on rank 0).
func ring(c *mpi.Comm, laps int, out io.Writer) (int64, error) {
	me, n := c.Rank(), c.Size()
	next, prev := (me+1)%n, (me+n-1)%n
	token := []int64{0}
	for lap := 0; lap < laps; lap++ {
		if me == 0 {
			token[0]++
			if err := mpi.Send(c, token, next, lap); err != nil {
				return 0, err
			}
			if _, err := mpi.Recv(c, token, prev, lap); err != nil {
				return 0, err
			}
		} else {
			if _, err := mpi.Recv(c, token, prev, lap); err != nil {
				return 0, err
			}
			token[0]++
			if err := mpi.Send(c, token, next, lap); err != nil {
				return 0, err
			}
		}
	}
	if me == 0 {
		fmt.Fprintf(out, "ring: %d laps over %d ranks, token = %d\n", laps, n, token[0])
		if token[0] != int64(laps*n) {
			return token[0], fmt.Errorf("ring: token %d, want %d", token[0], laps*n)
		}
	}
	return token[0], nil
}
