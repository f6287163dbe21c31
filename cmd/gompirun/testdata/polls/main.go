// Command polls is a test program for temporally sensitive polls in
// virtual time over processes. Every rank but 0 computes (Elapse) for a
// time that grows with its rank and then sends to rank 0, which finds the
// messages by polling:
//
//   - -mode iprobe: Iprobe from AnySource in a loop; it prints each
//     message's source and the Wtime at which the poll found it;
//   - -mode wtime: it polls Iprobe until Wtime passes -deadline, then
//     receives what came, printing how many polls it made and its Wtime;
//   - -mode compute (3 ranks, measured computation): rank 1 sends after
//     5 ms of virtual time, rank 2 after burning 600 ms of CPU; rank 0
//     receives both from AnySource, printing each source and the host
//     time (Unix nanoseconds) it got the first, and rank 2 the host time
//     its computation ended.
//
// With -cpu-scale 0 the output depends only on the target machine.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/gompi/gompi/mpi"
)

func main() {
	mode := flag.String("mode", "iprobe", "iprobe or wtime")
	deadline := flag.Duration("deadline", 500*time.Microsecond, "with -mode wtime: how long rank 0 polls")
	flag.Parse()
	mpi.Main(func(c *mpi.Comm) error {
		if *mode == "compute" {
			return compute(c)
		}
		if c.Rank() != 0 {
			// Highest rank first on the host, last on the target.
			time.Sleep(time.Duration(c.Size()-c.Rank()) * 5 * time.Millisecond)
			c.Elapse(time.Duration(c.Rank()) * 100 * time.Microsecond)
			return mpi.Send(c, []int64{int64(c.Rank())}, 0, 1)
		}
		buf := []int64{0}
		switch *mode {
		case "iprobe":
			for got := 1; got < c.Size(); {
				ok, st, err := c.Iprobe(mpi.AnySource, 1)
				if err != nil {
					return err
				}
				if !ok {
					continue
				}
				fmt.Printf("source %d found at %.9f s\n", st.Source, c.Wtime())
				if _, err := mpi.Recv(c, buf, st.Source, 1); err != nil {
					return err
				}
				got++
			}
		case "wtime":
			polls := 0
			for c.Wtime() < deadline.Seconds() {
				if _, _, err := c.Iprobe(mpi.AnySource, 1); err != nil {
					return err
				}
				polls++
			}
			fmt.Printf("%d polls, Wtime %.9f s\n", polls, c.Wtime())
			for i := 1; i < c.Size(); i++ {
				if _, err := mpi.Recv(c, buf, mpi.AnySource, 1); err != nil {
					return err
				}
			}
		default:
			fmt.Fprintf(os.Stderr, "polls: unknown -mode %q\n", *mode)
			os.Exit(2)
		}
		return nil
	})
}

// compute is -mode compute.
func compute(c *mpi.Comm) error {
	switch c.Rank() {
	case 1:
		c.Elapse(5 * time.Millisecond)
		return mpi.Send(c, []int64{1}, 0, 1)
	case 2:
		x := 1.0
		for start := c.Wtime(); c.Wtime()-start < 0.6; {
			for i := 0; i < 1000; i++ {
				x = x*1.0000001 + 1e-9
			}
		}
		fmt.Printf("slow done at %d %v\n", time.Now().UnixNano(), x == 0)
		return mpi.Send(c, []int64{2}, 0, 1)
	case 0:
		buf := []int64{0}
		for k := 0; k < 2; k++ {
			st, err := mpi.Recv(c, buf, mpi.AnySource, 1)
			if err != nil {
				return err
			}
			if k == 0 {
				fmt.Printf("first at %d\n", time.Now().UnixNano())
			}
			fmt.Printf("source %d\n", st.Source)
		}
	}
	return nil
}
