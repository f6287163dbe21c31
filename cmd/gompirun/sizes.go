package main

import (
	"fmt"
	"math"
)

// minRankBytes is the least memory a rank costs its process: a goroutine's
// smallest stack and the rank's inbox and clock. A job whose busiest
// process needs more than its host's memory at this rate cannot start; it
// would die of an out-of-memory trace instead (found with -virtual 99999999999).
const minRankBytes = 4 << 10

// minProcBytes is the least memory a process of a job costs its host (a
// Go runtime's heap, stacks and binary): -np 200000000 made gompirun die of
// an out-of-memory trace keeping track of the processes.
const minProcBytes = 1 << 20

// checkProcs rejects np processes over hosts hosts (1: all on this one)
// when one host would get more than its memory can hold at minProcBytes
// each; other hosts are assumed to have this one's memory, which at that
// rate rejects only what no host could run. Like checkSizes, it runs before
// anything is allocated per process.
func checkProcs(np, hosts int, hostMemory uint64) error {
	if np > math.MaxInt32 {
		return fmt.Errorf("-np %d: at most %d", np, math.MaxInt32)
	}
	perHost := (np + hosts - 1) / hosts
	if need := uint64(perHost) * minProcBytes; hostMemory > 0 && need > hostMemory {
		return fmt.Errorf("-np %d: %d processes on a host need at least %d MiB, more than this host's %d MiB",
			np, perHost, need>>20, hostMemory>>20)
	}
	return nil
}

// checkSizes rejects a job shape that cannot run, before anything starts:
// more ranks than a frame header can address (world ranks travel as 32-bit
// integers), or more ranks per process than this host's memory could hold
// even at minRankBytes each. hostMemory 0 means unknown: no memory check.
func checkSizes(ranks, np int, hostMemory uint64) error {
	if ranks > math.MaxInt32 {
		return fmt.Errorf("%d ranks: at most %d (ranks are 32-bit on the wire)", ranks, math.MaxInt32)
	}
	perProc := (ranks + np - 1) / np
	if need := uint64(perProc) * minRankBytes; hostMemory > 0 && need > hostMemory {
		return fmt.Errorf("%d ranks over %d processes: %d ranks in a process need at least %d MiB, more than this host's %d MiB; use more processes (-np) or hosts",
			ranks, np, perProc, need>>20, hostMemory>>20)
	}
	return nil
}
