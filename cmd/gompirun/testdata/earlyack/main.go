// Command earlyack is a test program for Algorithm 2's stall handling in a
// world spread over processes. Rank 0 starts a rendezvous Isend to rank 1,
// waits in a Recv for a small message from rank 2, computes (Elapse) and
// only then waits for the Isend. Rank 2 sends late in host time (it
// sleeps first), so rank 0 sits in its Recv with rank 1's ACK in its early
// queue. On the target the ACK is dealt with when rank 0 next enters MPI,
// after the computation, so rank 1 gets its DATA then.
//
// With -chain, rank 2 sends only after rank 1 has its data (rank 1 tells
// it): every rank then waits, a real stall of Algorithm 2 that rank 0
// resolves by dealing with the ACK at its arrival. With -poll too, rank 1
// waits for its data by polling with Test; each poll waits for the job to
// settle, so the stall is resolved as without it.
package main

import (
	"flag"
	"time"

	"github.com/gompi/gompi/mpi"
)

func main() {
	work := flag.Duration("work", time.Millisecond, "rank 0's computation between its Recv and its Wait")
	sleep := flag.Duration("sleep", 200*time.Millisecond, "host time rank 2 sleeps before sending")
	chain := flag.Bool("chain", false, "rank 2 sends after rank 1 has its data, not after a sleep")
	poll := flag.Bool("poll", false, "with -chain: rank 1 polls with Test for its data")
	flag.Parse()
	mpi.Main(func(c *mpi.Comm) error {
		big := make([]byte, 256<<10)
		small := make([]byte, 8)
		switch c.Rank() {
		case 0:
			q, err := mpi.Isend(c, big, 1, 1)
			if err != nil {
				return err
			}
			if _, err := mpi.Recv(c, small, 2, 2); err != nil {
				return err
			}
			c.Elapse(*work)
			_, err = q.Wait()
			return err
		case 1:
			if !*chain {
				_, err := mpi.Recv(c, big, 0, 1)
				return err
			}
			q, err := mpi.Irecv(c, big, 0, 1)
			if err != nil {
				return err
			}
			if *poll {
				for done := false; !done && err == nil; {
					done, _, err = q.Test()
				}
			} else {
				_, err = q.Wait()
			}
			if err != nil {
				return err
			}
			return mpi.Send(c, small, 2, 3)
		case 2:
			if *chain {
				if _, err := mpi.Recv(c, small, 1, 3); err != nil {
					return err
				}
			} else {
				time.Sleep(*sleep) // host time only: not computation with -cpu-scale 0
			}
			return mpi.Send(c, small, 0, 2)
		}
		return nil
	})
}
