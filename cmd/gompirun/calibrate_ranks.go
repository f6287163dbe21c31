package main

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/gompi/gompi/mpi"
	"github.com/gompi/gompi/vtime"
)

// The ranks of gompirun -calibrate: an ordinary gompi program of two
// ranks, run once on one host (shared memory, and the contention of
// computation: calibrate_cpu.go) and once across two hosts (TCP). Rank 0
// prints what it measured on one line.

// calibrationSizes are the ping-pong message sizes, both sides of the
// eager limit.
var calibrationSizes = []int64{0, 8, 64, 512, 4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20, 4 << 20}

// repetitions bound a ping-pong: round trips per size are budget / size,
// within [min, max], each size after warmUps untimed ones, and the
// first size after `first` round trips of 8 bytes, since a fresh process's
// first thousands of round trips are slower (docs/gompirun.md, BENCHMARKS).
type repetitions struct {
	min, max, first int
	budget          int64
}

var (
	fullReps  = repetitions{min: 30, max: 1000, first: 5000, budget: 256 << 20}
	quickReps = repetitions{min: 10, max: 50, first: 1000, budget: 16 << 20}
)

func (r repetitions) of(size int64) int {
	return int(min(max(r.budget/max(size, 1), int64(r.min)), int64(r.max)))
}

const (
	tagPing   = 1
	tagStream = 2
)

// runCalibrationRanks is one process of a calibration job; mode is
// "shm" or "net", then ",quick" for few repetitions.
func runCalibrationRanks(mode string) {
	phase, quick, _ := strings.Cut(mode, ",")
	mpi.Main(func(c *mpi.Comm) error { return calibrationRank(c, phase, quick == "quick") })
}

// calibrationRank: rank 0 ping-pongs with rank 1 (on its host in phase
// shm, on another in phase net); in phase shm it then measures contention
// on its host, once rank 1 has returned and sleeps in the job's finalize
// barrier.
func calibrationRank(c *mpi.Comm, phase string, quick bool) error {
	if c.Size() != 2 {
		return fmt.Errorf("a calibration job has 2 ranks, not %d", c.Size())
	}
	reps := fullReps
	if quick {
		reps = quickReps
	}
	pp, err := pingPong(c, 1-c.Rank(), c.Rank() == 0, reps)
	if err != nil {
		return err
	}
	shared := false
	var stream *vtime.Stream
	if phase == "net" {
		if shared, err = sameMachine(c); err != nil {
			return err
		}
		if stream, err = streamThroughput(c, quick); err != nil {
			return err
		}
	}
	if c.Rank() != 0 {
		return nil
	}
	cal := &vtime.Calibration{}
	if phase == "net" {
		cal.Net = pp
		cal.NetHostsShareMachine = shared
		cal.NetStream = stream
	} else {
		cal.Shm = pp
		cal.CoresPerNode = runtime.NumCPU()
		cal.EagerLimit, cal.NetEagerLimit = eagerLimits()
		host, _ := os.Hostname()
		cal.Name = "calibrated-" + host
		if cal.Contention, err = measureContention(cal.CoresPerNode, quick); err != nil {
			return err
		}
	}
	line, err := json.Marshal(cal)
	if err != nil {
		return err
	}
	fmt.Println(calibrationMark + string(line))
	return nil
}

// eagerLimits are the limits this process's engine uses between ranks of
// different processes, over shared memory (one host) and over TCP
// (between hosts; mpi/world.go).
func eagerLimits() (shm, net int) {
	if n, err := strconv.Atoi(os.Getenv(mpi.EagerLimitEnv)); err == nil && n >= 0 {
		return n, n
	}
	return mpi.DefaultRemoteEagerLimit, mpi.DefaultNetEagerLimit
}

// pingPong measures one-way times between this rank and peer: each round
// trip is timed on its own and a size's time is half the median round
// trip. The side that does not time only answers.
func pingPong(c *mpi.Comm, peer int, timing bool, reps repetitions) ([]vtime.PingPong, error) {
	roundTrip := func(buf []byte) error {
		if timing {
			if err := mpi.Send(c, buf, peer, tagPing); err != nil {
				return err
			}
			_, err := mpi.Recv(c, buf, peer, tagPing)
			return err
		}
		if _, err := mpi.Recv(c, buf, peer, tagPing); err != nil {
			return err
		}
		return mpi.Send(c, buf, peer, tagPing)
	}
	first := make([]byte, 8)
	for i := 0; i < reps.first; i++ {
		if err := roundTrip(first); err != nil {
			return nil, err
		}
	}
	var out []vtime.PingPong
	for _, size := range calibrationSizes {
		buf := make([]byte, size)
		n := reps.of(size)
		for i := 0; i < warmUps(n, size); i++ {
			if err := roundTrip(buf); err != nil {
				return nil, err
			}
		}
		times := make([]float64, n)
		for i := range times {
			t0 := c.Wtime()
			if err := roundTrip(buf); err != nil {
				return nil, err
			}
			times[i] = c.Wtime() - t0
		}
		if timing {
			out = append(out, vtime.PingPong{Size: size, OneWay: median(times) / 2})
		}
	}
	return out, nil
}

// warmUps is how many untimed round trips precede n timed ones of size
// bytes: a tenth of n, and at least enough to carry warmUpBytes each way
// (up to maxWarmUps round trips). A shared-memory ring's first lap is
// slow (docs/transports-shm.md, "Layout"), and a quick calibration's 4 KiB
// round trips all fell within it (docs/model.md, "Ping-pongs"); the model
// wants the steady state.
func warmUps(n int, size int64) int {
	return max(n/10+1, int(min(warmUpBytes/max(size, 1), maxWarmUps)))
}

const (
	warmUpBytes = 1 << 20
	maxWarmUps  = 4096
)

func median(x []float64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// sameMachine tells rank 0 whether both ranks run on one kernel (the same
// boot id): "hosts" that are network namespaces or containers of one
// machine, whose cores they share.
func sameMachine(c *mpi.Comm) (bool, error) {
	id, _ := os.ReadFile("/proc/sys/kernel/random/boot_id")
	mine := strings.TrimSpace(string(id))
	if c.Rank() == 1 {
		return false, mpi.Send(c, []byte(mine), 0, tagPing)
	}
	buf := make([]byte, 64)
	st, err := mpi.Recv(c, buf, 1, tagPing)
	if err != nil {
		return false, err
	}
	return mine != "" && string(buf[:mpi.Count[byte](st)]) == mine, nil
}

// streamThroughput measures the link's sustained throughput: rank 0 sends
// messages of 1 MiB back to back (32 MiB, 4 MiB when quick), rank 1
// acknowledges the last; the median of three repetitions. Only rank 0's
// result means anything.
func streamThroughput(c *mpi.Comm, quick bool) (*vtime.Stream, error) {
	const message = 1 << 20
	n := 32
	if quick {
		n = 4
	}
	buf := make([]byte, message)
	var ack [1]byte
	times := make([]float64, 3)
	for r := range times {
		t0 := c.Wtime()
		for i := 0; i < n; i++ {
			var err error
			if c.Rank() == 0 {
				err = mpi.Send(c, buf, 1, tagStream)
			} else {
				_, err = mpi.Recv(c, buf, 0, tagStream)
			}
			if err != nil {
				return nil, err
			}
		}
		var err error
		if c.Rank() == 0 {
			_, err = mpi.Recv(c, ack[:], 1, tagStream)
		} else {
			err = mpi.Send(c, ack[:], 0, tagStream)
		}
		if err != nil {
			return nil, err
		}
		times[r] = c.Wtime() - t0
	}
	return &vtime.Stream{Message: message, Bytes: int64(n) * message, Seconds: median(times)}, nil
}
