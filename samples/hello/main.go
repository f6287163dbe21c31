// Command hello prints one line per rank: the smallest MPI program.
//
//	go run ./cmd/gompirun -np 4 ./samples/hello
package main

import (
	"fmt"
	"io"
	"os"
	"runtime"

	"github.com/gompi/gompi/mpi"
)

func main() {
	mpi.Main(func(c *mpi.Comm) error { return hello(c, os.Stdout) })
}

func hello(c *mpi.Comm, out io.Writer) error {
	host, _ := os.Hostname()
	_, err := fmt.Fprintf(out, "hello from rank %d of %d on %s (pid %d, %s)\n",
		c.Rank(), c.Size(), host, os.Getpid(), runtime.Version())
	return err
}
