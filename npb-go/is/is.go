// Command is is the NAS Parallel Benchmarks IS kernel: bucketed integer sort
// (ranking) of keys with a Gaussian-like distribution, redistributing keys
// among ranks by Allreduce of bucket sizes, Alltoall of counts and Alltoallv
// of keys each iteration. Translated from NPB 3.4 MPI IS (is.c).
package main

import (
	"fmt"
	"io"

	"github.com/gompi/gompi/mpi"
	"github.com/gompi/gompi/npb-go/internal/npb"
)

const (
	maxIterations  = 10
	testArraySize  = 5
	numBucketsLog2 = 10
	maxProcs       = 1024
	seed           = 314159265.0
	mult           = 1220703125.0
	tagVerify      = 1000
)

// Timer indices (is.c T_TOTAL, T_RANK, T_RCOMM, T_VERIFY).
const (
	tTotal = iota
	tRank
	tRcomm
	tVerify
	tLast
)

// params are a class's sizes and partial-verification data (is.c).
type params struct {
	totalKeysLog2, maxKeyLog2, bucketsLog2 int
	testIndex, testRank                    [testArraySize]int32
	maxProcs                               int
}

var classes = map[byte]params{
	'S': {16, 11, 9, [5]int32{48427, 17148, 23627, 62548, 4431}, [5]int32{0, 18, 346, 64917, 65463}, 128},
	'W': {20, 16, 10, [5]int32{357773, 934767, 875723, 898999, 404505}, [5]int32{1249, 11698, 1039987, 1043896, 1048018}, maxProcs},
	'A': {23, 19, 10, [5]int32{2112377, 662041, 5336171, 3642833, 4250760}, [5]int32{104, 17523, 123928, 8288932, 8388264}, maxProcs},
	'B': {25, 21, 10, [5]int32{41869, 812306, 5102857, 18232239, 26860214}, [5]int32{33422937, 10244, 59149, 33135281, 99}, maxProcs},
	'C': {27, 23, 10, [5]int32{44172927, 72999161, 74326391, 129606274, 21736814}, [5]int32{61147, 882988, 266290, 133997595, 133525895}, maxProcs},
}

// sorter is one rank's IS state (the reference's globals).
type sorter struct {
	c          *mpi.Comm
	class      byte
	p          params
	rank, size int
	numKeys    int
	maxKey     int32
	numBuckets int

	keyArray, keyBuff1, keyBuff2 []int32
	bucketSize, bucketSizeTotals []int32 // numBuckets + testArraySize
	bucketPtrs                   []int32
	distrib1, distrib2           []int32
	sendCount, recvCount         []int32
	sendCounts, sendDispls       []int
	recvCounts, recvDispls       []int

	passed  int
	timeron bool
	tm      *npb.Timers
	// Kept from the last iteration for the full verification.
	lastMinKey, lastLocalKeys int
	failures                  io.Writer
}

// Run runs IS of the given class on c, whose size must be a power of two.
// Rank 0 writes the NPB report to out and its Results carry the verdict.
func Run(c *mpi.Comm, class byte, out io.Writer) (npb.Results, error) {
	p, ok := classes[class]
	if !ok {
		return npb.Results{}, fmt.Errorf("is: unknown class %q", class)
	}
	size := c.Size()
	if !npb.IsPowerOfTwo(size) {
		return npb.Results{}, fmt.Errorf("is: number of processes %d is not a power of two", size)
	}
	if size > p.maxProcs {
		return npb.Results{}, fmt.Errorf("is: number of processes %d not within range 1-%d for class %c", size, p.maxProcs, class)
	}
	s := newSorter(c, class, p, out)
	if s.rank == 0 {
		fmt.Fprintf(out, "\n\n NAS Parallel Benchmarks 3.4 -- IS Benchmark\n\n")
		fmt.Fprintf(out, " Size:  %d  (class %c)\n", 1<<p.totalKeysLog2, class)
		fmt.Fprintf(out, " Iterations:   %d\n", maxIterations)
		fmt.Fprintf(out, " Number of processes:     %d\n", size)
	}
	timeron, err := npb.BcastTimerFlag(c)
	if err != nil {
		return npb.Results{}, err
	}
	s.timeron = timeron
	s.tm = npb.NewTimers(c, tLast)
	s.createSeq(findMySeed(s.rank, size, 4<<p.totalKeysLog2, seed, mult), mult)

	// One untimed iteration touches every page and table first.
	if err := s.rankKeys(1); err != nil {
		return npb.Results{}, err
	}
	s.passed = 0
	if s.rank == 0 && class != 'S' {
		fmt.Fprintf(out, "\n   iteration\n")
	}
	tm := s.tm
	for i := range tLast {
		tm.Clear(i)
	}
	tm.Start(tTotal)
	for it := 1; it <= maxIterations; it++ {
		if s.rank == 0 && class != 'S' {
			fmt.Fprintf(out, "        %d\n", it)
		}
		if err := s.rankKeys(it); err != nil {
			return npb.Results{}, err
		}
	}
	tm.Stop(tTotal)
	maxTime := []float64{0}
	if err := mpi.Reduce(c, []float64{tm.Read(tTotal)}, maxTime, mpi.Max, 0); err != nil {
		return npb.Results{}, err
	}
	if err := s.fullVerify(); err != nil {
		return npb.Results{}, err
	}
	passed := []int32{0}
	if err := mpi.Reduce(c, []int32{int32(s.passed)}, passed, mpi.Sum, 0); err != nil {
		return npb.Results{}, err
	}
	t := maxTime[0]
	totalKeys := 1 << p.totalKeysLog2
	res := npb.Results{Name: "IS", Class: class, N1: totalKeys, Iterations: maxIterations,
		Seconds: t, Procs: size, ActiveProc: size,
		Mops: npb.Mops(float64(maxIterations)*float64(totalKeys), t), OpType: "keys ranked"}
	if s.rank == 0 {
		res.Verified = allPassed(int(passed[0]), size)
		if err := res.Print(out); err != nil {
			return res, err
		}
	}
	if timeron {
		t := []float64{tm.Read(tTotal), tm.Read(tRank), tm.Read(tRcomm), tm.Read(tVerify)}
		if err := npb.ReportTimers(c, t, []string{"total", "rcomp", "rcomm", "verify"}, out); err != nil {
			return res, err
		}
	}
	return res, nil
}

// allPassed is the verdict: every partial verification (one per test key
// and iteration, counted on the rank that holds the key) and every rank's
// full verification passed.
func allPassed(passed, nprocs int) bool {
	return passed == testArraySize*maxIterations+nprocs
}

func newSorter(c *mpi.Comm, class byte, p params, failures io.Writer) *sorter {
	size := c.Size()
	numKeys := (1 << p.totalKeysLog2) / size
	var bufSize int
	switch {
	case size < 256:
		bufSize = 3 * numKeys / 2
	case size < 512:
		bufSize = 5 * numKeys / 2
	case size < 1024:
		bufSize = 4 * numKeys
	default:
		bufSize = 13 * numKeys / 2
	}
	maxKey := 1 << p.maxKeyLog2
	nb := 1 << p.bucketsLog2
	return &sorter{
		c: c, class: class, p: p, rank: c.Rank(), size: size,
		numKeys: numKeys, maxKey: int32(maxKey), numBuckets: nb,
		keyArray: make([]int32, bufSize),
		// keyBuff1 is also the per-key counting array, spanning up to the
		// whole key range on one rank.
		keyBuff1:         make([]int32, max(bufSize, maxKey)),
		keyBuff2:         make([]int32, bufSize),
		bucketSize:       make([]int32, nb+testArraySize),
		bucketSizeTotals: make([]int32, nb+testArraySize),
		bucketPtrs:       make([]int32, nb),
		distrib1:         make([]int32, nb+testArraySize),
		distrib2:         make([]int32, nb+testArraySize),
		sendCount:        make([]int32, size),
		recvCount:        make([]int32, size),
		sendCounts:       make([]int, size),
		sendDispls:       make([]int, size),
		recvCounts:       make([]int, size),
		recvDispls:       make([]int, size),
		failures:         failures,
	}
}

// findMySeed is the seed of rank kn's part when nn random numbers are
// split evenly over np ranks: s * a^(kn * 2^mq), with 2^mq the part size
// rounded down to a power of two as the reference does.
func findMySeed(kn, np, nn int, s, a float64) float64 {
	mq := 0
	for nq := nn / np; nq > 1; nq /= 2 {
		mq++
	}
	return npb.SkipAhead(s, a, int64(kn)<<mq)
}

// createSeq makes this rank's keys, each the scaled sum of four uniforms.
func (s *sorter) createSeq(seed, a float64) {
	k := float64(s.maxKey / 4)
	keys := s.keyArray[:s.numKeys]
	for i := range keys {
		x := npb.Randlc(&seed, a)
		x += npb.Randlc(&seed, a)
		x += npb.Randlc(&seed, a)
		x += npb.Randlc(&seed, a)
		keys[i] = int32(k * x)
	}
}
