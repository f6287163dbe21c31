// Command job is the test program of gompirun's tests: one binary whose
// -mode chooses a behaviour, correct or faulty.
package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/gompi/gompi/mpi"
)

func main() {
	mode := flag.String("mode", "ring", "ring, error, abort, panic, exit0, hang, stdin")
	flag.Parse()
	mpi.Main(func(c *mpi.Comm) error {
		switch *mode {
		case "ring":
			return ring(c)
		case "error":
			if c.Rank() == 1 {
				return errors.New("boom")
			}
			return hang(c)
		case "abort":
			if c.Rank() == 1 {
				c.Abort(7)
			}
			return hang(c)
		case "panic":
			if c.Rank() == 1 {
				panic("oops")
			}
			return hang(c)
		case "exit0":
			if c.Rank() == 1 {
				os.Exit(0)
			}
			return hang(c)
		case "hang":
			return hang(c)
		case "stdin":
			if c.Rank() == 0 {
				line, err := bufio.NewReader(os.Stdin).ReadString('\n')
				if err != nil {
					return err
				}
				fmt.Printf("rank 0 read %q\n", line)
			}
			return nil
		}
		return fmt.Errorf("unknown mode %q", *mode)
	})
}

// ring passes messages of eager and rendezvous sizes around the ring and
// checks their contents.
func ring(c *mpi.Comm) error {
	me, n := c.Rank(), c.Size()
	next, prev := (me+1)%n, (me+n-1)%n
	for _, size := range []int{0, 8, 1000, 100 << 10, 3 << 20} {
		out := bytes.Repeat([]byte{byte(me + size)}, size)
		in := make([]byte, size)
		req, err := mpi.Irecv(c, in, prev, size%1000)
		if err != nil {
			return err
		}
		if err := mpi.Send(c, out, next, size%1000); err != nil {
			return err
		}
		if _, err := req.Wait(); err != nil {
			return err
		}
		if !bytes.Equal(in, bytes.Repeat([]byte{byte(prev + size)}, size)) {
			return fmt.Errorf("size %d from rank %d: wrong contents", size, prev)
		}
	}
	fmt.Printf("ok rank %d of %d\n", me, n)
	return nil
}

// hang prints the process id, then waits for a message that never comes.
func hang(c *mpi.Comm) error {
	fmt.Printf("pid %d rank %d\n", os.Getpid(), c.Rank())
	_, err := mpi.Recv(c, make([]byte, 1), mpi.AnySource, 99)
	return err
}
