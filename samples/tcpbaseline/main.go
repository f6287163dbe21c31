// Command tcpbaseline is the yardstick for gompi's TCP transport: a plain Go
// ping-pong between two processes over one loopback connection with
// TCP_NODELAY, blocking reads and writes, nothing else. It starts its own
// peer process and prints the one-way time, to set beside
//
//	GOMPI_TRANSPORT=tcp go run ./cmd/gompirun -np 2 ./samples/osu -test latency
//
// With -handoff each process receives through a reader goroutine that
// passes every message to the main goroutine over a channel, as gompi's
// connection goroutines hand frames to ranks: the difference between the
// two runs (with GOMAXPROCS=1, as gompirun sets for TCP jobs) is the cost
// of that hand-off alone.
//
// Usage: go run ./samples/tcpbaseline [-size 8] [-iters 20000] [-handoff]
package main

import (
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"time"
)

// peerEnv, when set, makes the process the echoing peer: it dials the
// address and echoes messages of the given size.
const peerEnv = "TCPBASELINE_PEER"

func main() {
	size := flag.Int("size", 8, "message size in bytes")
	iters := flag.Int("iters", 20000, "round trips")
	handoff := flag.Bool("handoff", false, "receive through a reader goroutine and a channel")
	flag.Parse()
	if *size < 1 || *iters < 1 {
		fmt.Fprintln(os.Stderr, "tcpbaseline: -size and -iters must be at least 1")
		os.Exit(2)
	}
	var err error
	if addr := os.Getenv(peerEnv); addr != "" {
		err = echo(addr, *size, *iters, *handoff)
	} else {
		var d time.Duration
		if d, err = measure(*size, *iters, *handoff); err == nil {
			how := ""
			if *handoff {
				how = ", received through a reader goroutine"
			}
			fmt.Printf("plain Go TCP ping-pong, 2 processes%s, %d B: one-way %.2f us\n",
				how, *size, float64(d.Nanoseconds())/float64(2**iters)/1e3)
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "tcpbaseline: %v\n", err)
		os.Exit(1)
	}
}

// measure listens, starts the peer, and times iters round trips.
func measure(size, iters int, handoff bool) (time.Duration, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	self, err := os.Executable()
	if err != nil {
		return 0, err
	}
	peer := exec.Command(self, fmt.Sprintf("-size=%d", size), fmt.Sprintf("-iters=%d", iters),
		fmt.Sprintf("-handoff=%t", handoff))
	peer.Env = append(os.Environ(), peerEnv+"="+ln.Addr().String())
	peer.Stderr = os.Stderr
	if err := peer.Start(); err != nil {
		return 0, err
	}
	defer peer.Wait()
	ln.(*net.TCPListener).SetDeadline(time.Now().Add(30 * time.Second))
	c, err := ln.Accept()
	if err != nil {
		peer.Process.Kill()
		return 0, err
	}
	defer c.Close()
	c.(*net.TCPConn).SetNoDelay(true)
	buf := make([]byte, size)
	recv := receiver(c, size, handoff)
	t0 := time.Now()
	for i := 0; i < iters; i++ {
		if _, err := c.Write(buf); err != nil {
			return 0, err
		}
		if err := recv(buf); err != nil {
			return 0, err
		}
	}
	return time.Since(t0), nil
}

// receiver returns the function that reads the next message into buf:
// straight from c, or with handoff from a reader goroutine that reads each
// message into a buffer of its own and sends it over a channel.
func receiver(c net.Conn, size int, handoff bool) func(buf []byte) error {
	if !handoff {
		return func(buf []byte) error {
			_, err := io.ReadFull(c, buf)
			return err
		}
	}
	type msg struct {
		b   []byte
		err error
	}
	ch := make(chan msg, 1)
	go func() {
		for {
			b := make([]byte, size)
			_, err := io.ReadFull(c, b)
			ch <- msg{b, err}
			if err != nil {
				return
			}
		}
	}()
	return func(buf []byte) error {
		m := <-ch
		copy(buf, m.b)
		return m.err
	}
}

// echo is the peer: it sends every message back.
func echo(addr string, size, iters int, handoff bool) error {
	c, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	c.(*net.TCPConn).SetNoDelay(true)
	buf := make([]byte, size)
	recv := receiver(c, size, handoff)
	for i := 0; i < iters; i++ {
		if err := recv(buf); err != nil {
			return err
		}
		if _, err := c.Write(buf); err != nil {
			return err
		}
	}
	return nil
}
