// Command job is the test program of gompirun's tests: one binary whose
// -mode chooses a behaviour, correct or faulty.
package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gompi/gompi/mpi"
)

func main() {
	mode := flag.String("mode", "ring", "ring, poll, p2pextra, exchange, error, abort, panic, exit0, hang, stuck, mismatch, leave, nonewline, stdin, stdinsum, where, bcasttrunc, nbc, env, procs")
	rounds := flag.Int("rounds", 64, "rounds of the poll mode")
	flag.Parse()
	mpi.Main(func(c *mpi.Comm) error {
		switch *mode {
		case "ring":
			return ring(c)
		case "poll":
			return poll(c, *rounds)
		case "p2pextra":
			return p2pExtra(c)
		case "error":
			if c.Rank() == 1 {
				return errors.New("boom")
			}
			return stuck(c)
		case "abort":
			if c.Rank() == 1 {
				c.Abort(7)
			}
			return stuck(c)
		case "panic":
			if c.Rank() == 1 {
				panic("oops")
			}
			return stuck(c)
		case "exit0":
			if c.Rank() == 1 {
				os.Exit(0)
			}
			return stuck(c)
		case "hang":
			return hang(c)
		case "bcasttrunc":
			return bcastTruncated(c)
		case "nbc":
			return nbc(c)
		case "exchange":
			return exchange(c)
		case "nonewline":
			// A last line without its newline, from every rank.
			fmt.Printf("rank %d", c.Rank())
			return nil
		case "stuck":
			return stuck(c)
		case "mismatch":
			// Rank 0 in Allreduce, the others in Barrier: a deadlock.
			if c.Rank() == 0 {
				return mpi.Allreduce(c, []int{1}, make([]int, 1), mpi.Sum)
			}
			return c.Barrier()
		case "leave":
			// Rank 0 waits for a message from the last rank, which
			// returns without sending it: a deadlock.
			if c.Rank() == 0 {
				_, err := mpi.Recv(c, make([]byte, 1), c.Size()-1, 7)
				return err
			}
			return nil
		case "procs": // each rank prints the GOMAXPROCS its process runs with
			fmt.Printf("rank %d gomaxprocs %d\n", c.Rank(), runtime.GOMAXPROCS(0))
			return nil
		case "env": // each rank prints what -x and -genv set
			fmt.Printf("rank %d: A=%q B=%q\n", c.Rank(), os.Getenv("JOB_TEST_A"), os.Getenv("JOB_TEST_B"))
			return nil
		case "where":
			if err := ring(c); err != nil {
				return err
			}
			return where(c)
		case "stdin":
			if c.Rank() == 0 {
				line, err := bufio.NewReader(os.Stdin).ReadString('\n')
				if err != nil {
					return err
				}
				fmt.Printf("rank 0 read %q\n", line)
			}
			return nil
		case "stdinsum":
			if c.Rank() == 0 {
				h := crc32.NewIEEE()
				n, err := io.Copy(h, os.Stdin)
				if err != nil {
					return err
				}
				fmt.Printf("rank 0 read %d bytes, crc %08x\n", n, h.Sum32())
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

// hang prints the process id, then waits for a message that never comes:
// every rank does, a deadlock.
func hang(c *mpi.Comm) error {
	fmt.Printf("pid %d rank %d\n", os.Getpid(), c.Rank())
	_, err := mpi.Recv(c, make([]byte, 1), mpi.AnySource, 99)
	return err
}

// stuck prints the process id, then never ends without being a deadlock:
// rank 0 computes (sleeps) for an hour, the others wait for its message.
func stuck(c *mpi.Comm) error {
	fmt.Printf("pid %d rank %d\n", os.Getpid(), c.Rank())
	if c.Rank() == 0 {
		time.Sleep(time.Hour)
		return nil
	}
	_, err := mpi.Recv(c, make([]byte, 1), 0, 99)
	return err
}

// where prints where the rank ran and whom its process talks to over TCP:
// its host label, its network namespace, and the remote IPv4 addresses of
// its process's established TCP connections (read from /proc, which shows
// the process's own namespace).
func where(c *mpi.Comm) error {
	ns, err := os.Readlink("/proc/self/ns/net")
	if err != nil {
		return err
	}
	mine := map[string]bool{} // socket inodes of this process
	fds, _ := os.ReadDir("/proc/self/fd")
	for _, fd := range fds {
		l, _ := os.Readlink("/proc/self/fd/" + fd.Name())
		if rest, ok := strings.CutPrefix(l, "socket:["); ok {
			mine[strings.TrimSuffix(rest, "]")] = true
		}
	}
	// Listeners on 0.0.0.0 are dual-stack IPv6 sockets in Go: what they
	// accepted is in tcp6, under IPv4-mapped addresses.
	tab4, err := os.ReadFile("/proc/self/net/tcp")
	if err != nil {
		return err
	}
	tab6, _ := os.ReadFile("/proc/self/net/tcp6")
	var peers, listens []string
	for _, line := range strings.Split(string(tab4)+string(tab6), "\n") {
		f := strings.Fields(line)
		if len(f) < 10 || !mine[f[9]] {
			continue
		}
		switch f[3] {
		case "01": // established
			peers = append(peers, hexIPv4(f[2]))
		case "0A": // listening
			listens = append(listens, hexIPv4(f[1]))
		}
	}
	sort.Strings(peers)
	sort.Strings(listens)
	// Whether this process maps its own shared-memory segment (transport/shm
	// names it by job and process; the file itself is unlinked by now).
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return err
	}
	seg := fmt.Sprintf("/dev/shm/gompi-%s-%s.shm", os.Getenv("GOMPI_JOB"), os.Getenv("GOMPI_PROC"))
	fmt.Printf("where rank %d host %s netns %s shm %v listens %s tcp-peers %s\n", c.Rank(), os.Getenv("GOMPI_HOST"), ns,
		bytes.Contains(maps, []byte(seg)), strings.Join(listens, ","), strings.Join(peers, ","))
	return nil
}

// hexIPv4 turns /proc/net/tcp's "0100007F:1F90" into "127.0.0.1", and
// tcp6's IPv4-mapped "0000000000000000FFFF00000100007F:1F90" too.
func hexIPv4(s string) string {
	h, _, _ := strings.Cut(s, ":")
	if strings.Trim(h, "0") == "" {
		return "*" // a wildcard listener, IPv4 or IPv6
	}
	if v4, ok := strings.CutPrefix(h, "0000000000000000FFFF0000"); ok {
		h = v4
	} else if len(h) != 8 {
		return h
	}
	v, err := strconv.ParseUint(h, 16, 32)
	if err != nil {
		return "?"
	}
	return fmt.Sprintf("%d.%d.%d.%d", v&0xff, v>>8&0xff, v>>16&0xff, v>>24)
}

// bcastTruncated broadcasts from rank 0 into a buffer that is shorter on
// rank 2 than the root's: rank 2 truncates, and must still forward to its
// children in the tree, so every rank reaches the Barrier after it.
func bcastTruncated(c *mpi.Comm) error {
	buf := make([]int64, 64)
	if c.Rank() == 2 {
		buf = buf[:8]
	}
	err := mpi.Bcast(c, buf, 0)
	switch {
	case c.Rank() == 2 && !errors.Is(err, mpi.ErrTruncate):
		return fmt.Errorf("truncating rank: %v, want a truncation error", err)
	case c.Rank() != 2 && err != nil:
		return err
	}
	if err := c.Barrier(); err != nil {
		return err
	}
	fmt.Printf("ok rank %d of %d\n", c.Rank(), c.Size())
	return nil
}
