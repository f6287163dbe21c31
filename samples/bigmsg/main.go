// Command bigmsg sends one large message from rank 0 to rank 1 and reports
// how long it took and each rank's peak resident memory, the figures
// docs/transports-tcp.md keeps for large TCP messages:
//
//	GOMPI_TRANSPORT=tcp go run ./cmd/gompirun -np 2 ./samples/bigmsg -size 1073741824
//
// Both buffers are touched before the clock starts, so the peak memory
// beyond the message's size is what the library itself used.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"syscall"

	"github.com/gompi/gompi/mpi"
)

func main() {
	size := flag.Int("size", 256<<20, "message size in bytes")
	flag.Parse()
	if *size < 1 {
		fmt.Fprintln(os.Stderr, "bigmsg: -size must be >= 1")
		os.Exit(2)
	}
	mpi.Main(func(c *mpi.Comm) error { return bigmsg(c, *size, os.Stdout) })
}

func bigmsg(c *mpi.Comm, size int, out io.Writer) error {
	if c.Size() < 2 {
		return fmt.Errorf("bigmsg needs 2 ranks, has %d", c.Size())
	}
	me := c.Rank()
	var buf []byte // other ranks only join the barriers
	if me <= 1 {
		buf = make([]byte, size)
	}
	for i := range buf {
		buf[i] = byte(i)
	}
	if err := c.Barrier(); err != nil {
		return err
	}
	t0 := c.Wtime()
	switch me {
	case 0:
		if err := mpi.Send(c, buf, 1, 0); err != nil {
			return err
		}
	case 1:
		clear(buf)
		if _, err := mpi.Recv(c, buf, 0, 0); err != nil {
			return err
		}
		took := c.Wtime() - t0
		for i := range buf {
			if buf[i] != byte(i) {
				return fmt.Errorf("byte %d is %d, want %d", i, buf[i], byte(i))
			}
		}
		fmt.Fprintf(out, "%d bytes in %.3f s: %.0f MB/s\n", size, took, float64(size)/took/1e6)
	}
	if err := c.Barrier(); err != nil || me > 1 {
		return err
	}
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return err
	}
	fmt.Fprintf(out, "rank %d peak RSS %.0f MB (message %.0f MB)\n", me, float64(ru.Maxrss)*1024/1e6, float64(size)/1e6)
	return nil
}
