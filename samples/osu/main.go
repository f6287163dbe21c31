// Command osu measures what the OSU micro-benchmarks measure, under
// gompirun, so gompi can be compared with MPICH on the same machine
// (docs/gompirun.md, "Benchmarks", shows the MPICH side):
//
//	go run ./cmd/gompirun -np 2 ./samples/osu -test latency
//	go run ./cmd/gompirun -np 2 ./samples/osu -test bw
//	go run ./cmd/gompirun -np 2 ./samples/osu -test bibw
//	go run ./cmd/gompirun -np 4 ./samples/osu -test allreduce
//	go run ./cmd/gompirun -np 4 ./samples/osu -test bcast    (also reduce, alltoall, barrier)
//
// latency is half the round-trip time of a blocking ping-pong between ranks
// 0 and 1 (osu_latency); bw streams a window of non-blocking sends from 0
// to 1, acknowledged once per window (osu_bw); bibw does that in both
// directions at once (osu_bibw); sendrecv is the time of one Sendrecv of
// ranks 0 and 1 with each other (both send at once); allreduce is the average time of an
// Allreduce (sum of float64) over every rank (osu_allreduce), and bcast,
// reduce (sum to rank 0), alltoall (a block of the size to every rank) and
// barrier (no data: one row, size 0) likewise (osu_bcast, osu_reduce,
// osu_alltoall, osu_barrier). scripts/coll-vs-mpich.sh runs the
// collectives beside the same loops in C under MPICH. With -longest a
// collective's row also gives its longest single call on any rank: a mean
// can hide a few calls that took milliseconds. Each call is then timed on
// its own, and the row's mean is that of the timed calls, without the
// clock readings and the loop between them (which, with calls of a fraction
// of a microsecond, could make the mean exceed the longest call).
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"github.com/gompi/gompi/mpi"
)

type params struct {
	test          string
	min, max      int
	iters, warmup int
	window        int
	settle        time.Duration
	cpuprofile    string
	longest       bool
}

func main() {
	var p params
	flag.StringVar(&p.test, "test", "latency", "latency, bw, bibw, sendrecv, allreduce, bcast, reduce, alltoall or barrier")
	flag.IntVar(&p.min, "min", 0, "smallest message in bytes")
	flag.IntVar(&p.max, "max", 4<<20, "largest message in bytes")
	flag.IntVar(&p.iters, "iters", 1000, "timed iterations for messages up to 8 KiB (a tenth, at least 10, above)")
	flag.IntVar(&p.warmup, "warmup", 100, "untimed iterations before each size (a tenth above 8 KiB)")
	flag.IntVar(&p.window, "window", 64, "messages in flight per iteration for bw and bibw")
	flag.DurationVar(&p.settle, "settle", 0, "before the first size, repeat it untimed for at least this long (a process's first tens of milliseconds run slower)")
	flag.StringVar(&p.cpuprofile, "cpuprofile", "", "write each rank's CPU profile of the measurement to this file, .RANK appended (go tool pprof)")
	flag.BoolVar(&p.longest, "longest", false, "collectives: also print the longest single timed call on any rank (us)")
	flag.Parse()
	if err := p.check(); err != nil {
		fmt.Fprintf(os.Stderr, "osu: %v\n", err)
		os.Exit(2)
	}
	mpi.Main(func(c *mpi.Comm) error {
		if p.cpuprofile != "" {
			f, err := os.Create(fmt.Sprintf("%s.%d", p.cpuprofile, c.Rank()))
			if err != nil {
				return err
			}
			defer f.Close()
			if err := pprof.StartCPUProfile(f); err != nil {
				return err
			}
			defer pprof.StopCPUProfile()
		}
		return run(c, &p, os.Stdout)
	})
}

func (p *params) check() error {
	switch {
	case !slices.Contains(tests, p.test):
		return fmt.Errorf("unknown -test %q: want %s", p.test, strings.Join(tests, ", "))
	case p.min < 0 || p.max < p.min:
		return fmt.Errorf("need 0 <= -min <= -max, got %d and %d", p.min, p.max)
	case p.iters < 1 || p.warmup < 0 || p.window < 1 || p.settle < 0:
		return fmt.Errorf("need -iters >= 1, -warmup >= 0, -window >= 1, -settle >= 0")
	case p.longest && slices.Index(tests, p.test) < slices.Index(tests, "allreduce"):
		return fmt.Errorf("-longest is for the collectives, not -test %s", p.test)
	}
	return nil
}

// tests are the measurements -test names; from allreduce on, collectives.
var tests = []string{"latency", "bw", "bibw", "sendrecv", "allreduce", "bcast", "reduce", "alltoall", "barrier"}

// sizes is min, then the powers of two above it up to max (as OSU: 0 or 1,
// 2, 4, ...); barrier has no size: 0.
func (p *params) sizes() []int {
	if p.test == "barrier" {
		return []int{0}
	}
	s := []int{p.min}
	n := 1
	for n <= p.min {
		n *= 2
	}
	for ; n <= p.max; n *= 2 {
		s = append(s, n)
	}
	return s
}

// rounds returns the timed and warm-up iterations for a message size.
func (p *params) rounds(size int) (iters, warmup int) {
	if size <= 8<<10 {
		return p.iters, p.warmup
	}
	return max(p.iters/10, 10), p.warmup / 10
}

func run(c *mpi.Comm, p *params, out io.Writer) error {
	if slices.Index(tests, p.test) < slices.Index(tests, "allreduce") && c.Size() < 2 {
		return fmt.Errorf("-test %s needs 2 ranks, got %d", p.test, c.Size())
	}
	if c.Rank() == 0 {
		unit := "Latency (us)"
		if p.test == "bw" || p.test == "bibw" {
			unit = "Bandwidth (MB/s)"
		}
		fmt.Fprintf(out, "# gompi %s test, %d ranks\n# %-10s %18s", p.test, c.Size(), "Size", unit)
		if p.longest {
			fmt.Fprintf(out, " %18s", "Longest call (us)")
		}
		fmt.Fprintln(out)
	}
	if err := p.settleIn(c); err != nil {
		return err
	}
	for _, size := range p.sizes() {
		iters, warmup := p.rounds(size)
		v, longest, err := p.measure(c, size, iters, warmup)
		if err != nil {
			return err
		}
		if c.Rank() == 0 {
			// Three decimals of a microsecond: shared-memory latencies are
			// about 0.2 us, where two would round by up to 2.5%.
			prec := 3
			if p.test == "bw" || p.test == "bibw" {
				prec = 2
			}
			fmt.Fprintf(out, "%-12d %18.*f", size, prec, v)
			if p.longest {
				fmt.Fprintf(out, " %18.*f", prec, longest)
			}
			fmt.Fprintln(out)
		}
	}
	return nil
}

// measure runs -test at one size: warmup untimed iterations, then iters
// timed, and returns the figure rank 0 prints and, with -longest, the
// longest single call.
func (p *params) measure(c *mpi.Comm, size, iters, warmup int) (v, longest float64, err error) {
	switch p.test {
	case "latency":
		v, err = latency(c, size, iters, warmup)
	case "bw":
		v, err = bandwidth(c, size, iters, warmup, p.window, false)
	case "bibw":
		v, err = bandwidth(c, size, iters, warmup, p.window, true)
	case "sendrecv":
		v, err = sendrecv(c, size, iters, warmup)
	default:
		return collective(c, p.test, size, iters, warmup, p.longest)
	}
	return v, 0, err
}

// settleIn repeats the first size untimed, in batches, until rank 0 has
// spent -settle on it; rank 0 decides after each batch and tells the
// others. A count of warm-up iterations alone leaves the first small
// size inside a process's slower first tens of milliseconds, which a
// sweep then reports as that size's cost (docs/gompirun.md, BENCHMARKS).
func (p *params) settleIn(c *mpi.Comm) error {
	if p.settle == 0 {
		return nil
	}
	size := p.sizes()[0]
	start := time.Now()
	more := []int32{1}
	for more[0] != 0 {
		if _, _, err := p.measure(c, size, 1, 100); err != nil {
			return err
		}
		if c.Rank() == 0 && time.Since(start) >= p.settle {
			more[0] = 0
		}
		if err := mpi.Bcast(c, more, 0); err != nil {
			return err
		}
	}
	return nil
}

// latency returns the one-way time in microseconds (rank 0's measurement).
func latency(c *mpi.Comm, size, iters, warmup int) (float64, error) {
	me := c.Rank()
	buf := filled(size, 'a'+byte(me))
	var t0 float64
	for i := 0; i < warmup+iters; i++ {
		if i == warmup {
			t0 = c.Wtime()
		}
		switch me {
		case 0:
			if err := mpi.Send(c, buf, 1, 1); err != nil {
				return 0, err
			}
			if _, err := mpi.Recv(c, buf, 1, 1); err != nil {
				return 0, err
			}
		case 1:
			if _, err := mpi.Recv(c, buf, 0, 1); err != nil {
				return 0, err
			}
			if err := mpi.Send(c, buf, 0, 1); err != nil {
				return 0, err
			}
		}
	}
	return (c.Wtime() - t0) * 1e6 / float64(2*iters), nil
}

// sendrecv returns rank 0's mean time of a Sendrecv with rank 1, in
// microseconds; ranks above 1 take no part.
func sendrecv(c *mpi.Comm, size, iters, warmup int) (float64, error) {
	me := c.Rank()
	if me > 1 {
		return 0, nil
	}
	in, out := filled(size, byte('b')), filled(size, byte('a'))
	var t0 float64
	for i := 0; i < warmup+iters; i++ {
		if i == warmup {
			t0 = c.Wtime()
		}
		if _, err := mpi.Sendrecv(c, in, 1-me, 1, out, 1-me, 1); err != nil {
			return 0, err
		}
	}
	return (c.Wtime() - t0) * 1e6 / float64(iters), nil
}

// bandwidth returns MB/s (10^6 bytes per second) from rank 0 to rank 1, or
// in both directions together when bidir.
func bandwidth(c *mpi.Comm, size, iters, warmup, window int, bidir bool) (float64, error) {
	me := c.Rank()
	if me > 1 {
		return 0, nil
	}
	peer := 1 - me
	// Separate buffers for what a rank receives and what it sends, as
	// osu_bibw has them: a buffer being sent may not receive meanwhile.
	rbufs, sbufs := make([][]byte, window), make([][]byte, window)
	for i := range rbufs {
		rbufs[i] = filled(size, 'a'+byte(me))
		if bidir {
			sbufs[i] = filled(size, 'a'+byte(me))
		} else {
			sbufs[i] = rbufs[i] // a rank only sends or only receives
		}
	}
	ack := make([]byte, 4)
	reqs := make([]*mpi.Request, 0, 2*window)
	var t0 float64
	for i := 0; i < warmup+iters; i++ {
		if i == warmup {
			t0 = c.Wtime()
		}
		reqs = reqs[:0]
		for w := 0; w < window; w++ {
			var q *mpi.Request
			var err error
			if me == 1 || bidir {
				q, err = mpi.Irecv(c, rbufs[w], peer, 100)
				if err != nil {
					return 0, err
				}
				reqs = append(reqs, q)
			}
		}
		for w := 0; w < window; w++ {
			if me == 0 || bidir {
				q, err := mpi.Isend(c, sbufs[w], peer, 100)
				if err != nil {
					return 0, err
				}
				reqs = append(reqs, q)
			}
		}
		if _, err := mpi.Waitall(reqs); err != nil {
			return 0, err
		}
		// The receiver acknowledges the window (both do, in bibw).
		var err error
		if me == 1 || bidir {
			err = mpi.Send(c, ack, peer, 101)
		}
		if err == nil && (me == 0 || bidir) {
			_, err = mpi.Recv(c, ack, peer, 101)
		}
		if err != nil {
			return 0, err
		}
	}
	elapsed := c.Wtime() - t0
	bytes := float64(size) * float64(window) * float64(iters)
	if bidir {
		bytes *= 2
	}
	return bytes / elapsed / 1e6, nil
}

// collective returns the average over ranks of the mean time of one call
// of the collective test, in microseconds, for size/8 float64s (at least
// one; per destination for alltoall), and with longest the longest timed
// call of any rank (each call then timed on its own).
func collective(c *mpi.Comm, test string, size, iters, warmup int, longest bool) (float64, float64, error) {
	n := max(size/8, 1)
	var call func() error
	switch test {
	case "allreduce":
		in, res := filled(n, 1.0), filled(n, 0.0)
		call = func() error { return mpi.Allreduce(c, in, res, mpi.Sum) }
	case "bcast":
		buf := filled(n, 1.0)
		call = func() error { return mpi.Bcast(c, buf, 0) }
	case "reduce":
		in, res := filled(n, 1.0), filled(n, 0.0)
		call = func() error { return mpi.Reduce(c, in, res, mpi.Sum, 0) }
	case "alltoall":
		in, res := filled(n*c.Size(), 1.0), filled(n*c.Size(), 0.0)
		call = func() error { return mpi.Alltoall(c, in, res) }
	case "barrier":
		call = c.Barrier
	default:
		return 0, 0, fmt.Errorf("-test %s is not a collective", test)
	}
	var t0, slowest, timed float64
	for i := 0; i < warmup+iters; i++ {
		if i == warmup {
			if err := c.Barrier(); err != nil {
				return 0, 0, err
			}
			t0 = c.Wtime()
		}
		var start float64
		if longest {
			start = c.Wtime()
		}
		if err := call(); err != nil {
			return 0, 0, err
		}
		if longest && i >= warmup {
			d := c.Wtime() - start
			slowest, timed = max(slowest, d), timed+d
		}
	}
	mine := []float64{(c.Wtime() - t0) * 1e6 / float64(iters), slowest * 1e6}
	if longest {
		mine[0] = timed * 1e6 / float64(iters)
	}
	sum, most := []float64{0, 0}, []float64{0, 0}
	if err := mpi.Allreduce(c, mine, sum, mpi.Sum); err != nil {
		return 0, 0, err
	}
	if err := mpi.Allreduce(c, mine, most, mpi.Max); err != nil {
		return 0, 0, err
	}
	return sum[0] / float64(c.Size()), most[1], nil
}

// filled returns n elements set to v, as OSU's benchmarks set their
// buffers: memory a program has never written is, on Linux, the one zero
// page mapped again and again, so copying from it reads one page that
// stays in the cache, and a large message would measure half a copy
// (docs/transports-shm.md, "Split copies").
func filled[T byte | float64](n int, v T) []T {
	buf := make([]T, n)
	for i := range buf {
		buf[i] = v
	}
	return buf
}
