package mpi

import (
	"os"
	"strings"
	"sync"
	"sync/atomic"
)

// Algorithm selection. The thresholds are MPICH's defaults (its CVARs of the
// same names); docs/collectives.md says which algorithm runs when and what
// it sends. An environment variable GOMPI_COLL_<COLLECTIVE> (for example
// GOMPI_COLL_ALLREDUCE=ring) forces one algorithm for experiments; "auto" or
// empty restores the default choice. A forced algorithm whose preconditions
// do not hold for a call (a ring allreduce with a non-commutative operation,
// say) falls back to the default choice for that call. An unknown name makes
// every call of that collective fail with an ErrArg error naming the
// variable and the valid choices.
const (
	BcastShortMsgSize            = 12288  // MPIR_CVAR_BCAST_SHORT_MSG_SIZE
	BcastLongMsgSize             = 524288 // MPIR_CVAR_BCAST_LONG_MSG_SIZE
	BcastMinProcs                = 8      // MPIR_CVAR_BCAST_MIN_PROCS
	ReduceShortMsgSize           = 2048   // MPIR_CVAR_REDUCE_SHORT_MSG_SIZE
	AllreduceShortMsgSize        = 2048   // MPIR_CVAR_ALLREDUCE_SHORT_MSG_SIZE
	AllgatherShortMsgSize        = 81920  // MPIR_CVAR_ALLGATHER_SHORT_MSG_SIZE
	AllgatherLongMsgSize         = 524288 // MPIR_CVAR_ALLGATHER_LONG_MSG_SIZE
	AlltoallShortMsgSize         = 256    // MPIR_CVAR_ALLTOALL_SHORT_MSG_SIZE
	AlltoallMediumMsgSize        = 32768  // MPIR_CVAR_ALLTOALL_MEDIUM_MSG_SIZE
	AlltoallThrottle             = 32     // MPIR_CVAR_ALLTOALL_THROTTLE
	ReduceScatterCommLongMsgSize = 524288 // MPIR_CVAR_REDSCAT_COMMUTATIVE_LONG_MSG_SIZE
	GathervSsendMinProcs         = 32     // MPIR_CVAR_GATHERV_INTER_SSEND_MIN_PROCS
)

// Where a real run of two ranks departs from MPICH's thresholds. Above
// ReduceShortMsgSize and AllreduceShortMsgSize MPICH takes Rabenseifner's
// algorithms, which at two ranks make one message more than the short
// ones to halve each rank's reduction. A Reduce's are an exchange of
// halves, then a half to the root, against the whole to the root: over
// shared memory the binomial tree was as fast or faster at every size
// from 2 KiB to 1 MiB (the whole message's copy is split between the two
// ends, an exchange's are not). An Allreduce's are two exchanges of
// halves against one of the whole: recursive doubling is faster up to
// allreduceTwoRankMax (docs/collectives.md). A virtual run keeps MPICH's
// choice: the target runs it.
const allreduceTwoRankMax = 16 << 10

// realPair reports whether c is a real run's communicator of two ranks.
func (c *Comm) realPair() bool { return c.Size() == 2 && !c.r.virtual }

// CollEnvPrefix prefixes the variables that force collective algorithms.
const CollEnvPrefix = "GOMPI_COLL_"

type collKind int

const (
	collBcast collKind = iota
	collReduce
	collAllreduce
	collAllgather
	collAlltoall
	collReduceScatter
	nColl
)

var collNames = [nColl]string{"BCAST", "REDUCE", "ALLREDUCE", "ALLGATHER", "ALLTOALL", "REDUCE_SCATTER"}

type algo uint8

const (
	algoAuto algo = iota
	algoBinomial
	algoScatterRing    // bcast: binomial scatter + ring allgather
	algoScatterRecDbl  // bcast: binomial scatter + recursive-doubling allgather
	algoRecDbl         // recursive doubling
	algoRabenseifner   // reduce-scatter (recursive halving) + gather / allgather
	algoRing           // ring
	algoBruck          // Bruck
	algoScattered      // all sends and receives posted at once, in batches
	algoPairwise       // pairwise exchange
	algoRecHalving     // reduce-scatter: recursive halving
	algoNoncommutative // reduce-scatter: recursive halving on bit-reversed blocks (order preserving)
	nAlgo
)

var algoNames = [nAlgo]string{"auto", "binomial", "scatter_ring_allgather", "scatter_recursive_doubling_allgather",
	"recursive_doubling", "rabenseifner", "ring", "bruck", "scattered", "pairwise", "recursive_halving",
	"noncommutative"}

func (a algo) String() string { return algoNames[a] }

// collAlgos lists the algorithms each collective can be forced to.
var collAlgos = [nColl][]algo{
	collBcast:         {algoBinomial, algoScatterRing, algoScatterRecDbl},
	collReduce:        {algoBinomial, algoRabenseifner},
	collAllreduce:     {algoRecDbl, algoRabenseifner, algoRing},
	collAllgather:     {algoRecDbl, algoBruck, algoRing},
	collAlltoall:      {algoBruck, algoScattered, algoPairwise},
	collReduceScatter: {algoRecHalving, algoPairwise, algoRecDbl, algoNoncommutative},
}

type collForce struct {
	algo [nColl]algo
	err  [nColl]error
}

var (
	collForced   atomic.Pointer[collForce]
	collEnvOnce  sync.Once
	collEnvValue *collForce
)

// parseCollEnv reads the GOMPI_COLL_* variables through getenv.
func parseCollEnv(getenv func(string) string) *collForce {
	f := &collForce{}
	for k := range nColl {
		v := strings.TrimSpace(strings.ToLower(getenv(CollEnvPrefix + collNames[k])))
		if v == "" || v == "auto" {
			continue
		}
		found := false
		for _, a := range collAlgos[k] {
			if a.String() == v {
				f.algo[k], found = a, true
			}
		}
		if !found {
			names := []string{"auto"}
			for _, a := range collAlgos[k] {
				names = append(names, a.String())
			}
			f.err[k] = errorf(ClassArg, "%s%s=%q: unknown algorithm; want one of %s",
				CollEnvPrefix, collNames[k], v, strings.Join(names, ", "))
		}
	}
	return f
}

// forced returns the algorithm forced for collective k (algoAuto for none).
func forced(k collKind) (algo, error) {
	f := collForced.Load()
	if f == nil {
		collEnvOnce.Do(func() { collEnvValue = parseCollEnv(os.Getenv) })
		f = collEnvValue
	}
	return f.algo[k], f.err[k]
}

// setForced replaces the forced algorithms (tests); nil restores the
// environment's.
func setForced(f *collForce) { collForced.Store(f) }

func (k collKind) String() string { return collNames[k] }
