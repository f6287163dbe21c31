// Command skeleton is a deterministic skeleton program for virtual-time
// runs: each iteration accounts computation with Elapse (imbalanced: rank r
// computes (1 + r mod 4) x -work), exchanges halos with both ring
// neighbours by Sendrecv (a small, an eager and a rendezvous message each
// way), and ends with an Allreduce. With -pipeline, each iteration also
// streams two rendezvous messages between the two halves of the job, the
// first by Isend and the second by a blocking Send before waiting for the
// first: the pattern whose waits depend on an early ACK (Algorithm 2's
// stall, docs/model.md). It does no real computation, so with
// -cpu-scale 0 its prediction depends only on its messages and Elapse calls.
// Rank 0 prints its Wtime at the end with full precision.
//
//	go run ./cmd/gompirun -np 2 -virtual 8 -cpu-scale 0 ./samples/skeleton
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/gompi/gompi/mpi"
)

func main() {
	iters := flag.Int("iters", 10, "iterations")
	work := flag.Duration("work", 100*time.Microsecond, "computation per iteration of the least loaded rank")
	big := flag.Int("big", 256<<10, "bytes of the rendezvous halo (the eager one is 32 KiB, the small one 128 B)")
	pipeline := flag.Bool("pipeline", false, "also stream Isend + Send pairs between the two halves of the job")
	flag.Parse()
	if *iters < 0 || *work < 0 || *big < 0 {
		fmt.Fprintln(os.Stderr, "skeleton: -iters, -work and -big must not be negative")
		os.Exit(2)
	}
	mpi.Main(func(c *mpi.Comm) error { return skeleton(c, *iters, *work, *big, *pipeline, os.Stdout) })
}

func skeleton(c *mpi.Comm, iters int, work time.Duration, big int, pipeline bool, out io.Writer) error {
	n, me := c.Size(), c.Rank()
	right, left := (me+1)%n, (me+n-1)%n
	sizes := []int{128, 32 << 10, big}
	send := make([][]byte, len(sizes))
	recv := make([][]byte, len(sizes))
	for i, s := range sizes {
		send[i], recv[i] = make([]byte, s), make([]byte, s)
		for j := range send[i] {
			send[i][j] = byte(me + j)
		}
	}
	sum := []float64{0}
	for it := 0; it < iters; it++ {
		c.Elapse(work * time.Duration(1+me%4))
		for i := range sizes {
			// Right-going then left-going, so every rank both sends and
			// receives on each pair of tags.
			if _, err := mpi.Sendrecv(c, send[i], right, 2*i, recv[i], left, 2*i); err != nil {
				return err
			}
			if _, err := mpi.Sendrecv(c, send[i], left, 2*i+1, recv[i], right, 2*i+1); err != nil {
				return err
			}
		}
		if pipeline {
			if err := stream(c, send[2], recv[2]); err != nil {
				return err
			}
		}
		local := []float64{float64(recv[0][0]) + float64(it)}
		if err := mpi.Allreduce(c, local, sum, mpi.Sum); err != nil {
			return err
		}
	}
	if me == 0 {
		_, err := fmt.Fprintf(out, "skeleton: %d ranks, %d iterations, checksum %g, time %.17g s\n", n, iters, sum[0], c.Wtime())
		return err
	}
	return nil
}

// stream sends two messages from each rank of the lower half to its
// partner in the upper half (in a job spread over processes, usually in
// another process) and then back: the sender starts the first with Isend
// and sends the second with a blocking Send before it waits for the first.
// The receiver takes them in order, so with rendezvous messages the Send's
// ACK comes only after the first DATA, which the sender's Send wait must
// deal with although it belongs to the Isend.
func stream(c *mpi.Comm, send, recv []byte) error {
	n, me := c.Size(), c.Rank()
	half := n / 2
	if me >= 2*half {
		return nil // the odd one out
	}
	peer, first := me+half, true
	if me >= half {
		peer, first = me-half, false
	}
	for turn := 0; turn < 2; turn++ {
		if first == (turn == 0) {
			q, err := mpi.Isend(c, send, peer, 10)
			if err != nil {
				return err
			}
			if err := mpi.Send(c, send, peer, 11); err != nil {
				return err
			}
			if _, err := q.Wait(); err != nil {
				return err
			}
			continue
		}
		for tag := 10; tag <= 11; tag++ {
			if _, err := mpi.Recv(c, recv, peer, tag); err != nil {
				return err
			}
		}
	}
	return nil
}
