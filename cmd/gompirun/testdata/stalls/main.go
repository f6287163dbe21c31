// Command stalls is a test program for Algorithm 2's stalls between two
// processes whose ranks have a core each (and so spin while they wait).
// Each of -n rounds stalls once: rank 0 starts a rendezvous Isend to rank
// 1 and then a blocking rendezvous Send to it; rank 1 receives the first,
// then the second. Rank 1's ACK for the first arrives while rank 0 waits
// for the second's, which rank 1 sends only once it has the first's DATA:
// every rank waits, and the stall is resolved by rank 0 dealing with that
// ACK at its arrival.
package main

import (
	"flag"

	"github.com/gompi/gompi/mpi"
)

func main() {
	rounds := flag.Int("n", 10, "rounds, one stall each")
	flag.Parse()
	mpi.Main(func(c *mpi.Comm) error {
		a := make([]byte, 256<<10)
		b := make([]byte, 256<<10)
		for i := 0; i < *rounds; i++ {
			switch c.Rank() {
			case 0:
				q, err := mpi.Isend(c, a, 1, 1)
				if err != nil {
					return err
				}
				if err := mpi.Send(c, b, 1, 2); err != nil {
					return err
				}
				if _, err := q.Wait(); err != nil {
					return err
				}
			case 1:
				if _, err := mpi.Recv(c, a, 0, 1); err != nil {
					return err
				}
				if _, err := mpi.Recv(c, b, 0, 2); err != nil {
					return err
				}
			}
		}
		return nil
	})
}
