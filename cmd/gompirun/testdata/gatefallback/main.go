// Command gatefallback is a test program for the gate across processes
// (package mpi, coll_bulk_procs.go). Rank 0 computes a millisecond and
// sends the last rank a small message, which the last rank receives only
// after the first Barrier: the last rank enters that Barrier with the
// message travelling, in its inbox or in its early queue (it arrives on the
// target after the rank's clock), whatever the host's timing, so the
// Barrier cannot be computed at the gate and every process must run it by
// messages. The second Barrier has nothing pending and is computed there.
//
// With -stuck the last rank waits instead for a message nobody sends, and
// the others wait at the gate for it: a deadlock gompirun must report.
package main

import (
	"flag"
	"fmt"
	"time"

	"github.com/gompi/gompi/mpi"
)

func main() {
	stuck := flag.Bool("stuck", false, "the last rank waits for a message nobody sends instead of entering the Barrier")
	flag.Parse()
	mpi.Main(func(c *mpi.Comm) error {
		last := c.Size() - 1
		msg := make([]byte, 8)
		if *stuck && c.Rank() == last {
			_, err := mpi.Recv(c, msg, mpi.AnySource, 99)
			return err
		}
		if c.Rank() == 0 {
			c.Elapse(time.Millisecond)
			if err := mpi.Send(c, msg, last, 7); err != nil {
				return err
			}
		}
		if err := c.Barrier(); err != nil {
			return err
		}
		if c.Rank() == last {
			if _, err := mpi.Recv(c, msg, 0, 7); err != nil {
				return err
			}
		}
		if err := c.Barrier(); err != nil {
			return err
		}
		if c.Rank() == 0 {
			fmt.Println("gatefallback: done")
		}
		return nil
	})
}
