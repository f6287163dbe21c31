package mpi

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
)

// ProfileEnv names the environment variable that makes each process of a
// gompirun job profile itself: with GOMPI_PROFILE=PREFIX, process p writes
// the CPU profile of its ranks' run to PREFIX.cpu.p and the heap in use
// when its ranks have returned (what the job keeps per rank: the ranks'
// state, not their stacks) to PREFIX.heap.p, for go tool pprof. It is how
// the per-rank costs of large virtual runs are found (docs/model.md).
const ProfileEnv = "GOMPI_PROFILE"

// startProfile starts process proc's CPU profile if ProfileEnv asks for
// one; the function it returns stops it and writes the heap profile.
func startProfile(proc int) (stop func() error, err error) {
	prefix := os.Getenv(ProfileEnv)
	if prefix == "" {
		return func() error { return nil }, nil
	}
	cpu, err := os.Create(fmt.Sprintf("%s.cpu.%d", prefix, proc))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", ProfileEnv, err)
	}
	if err := pprof.StartCPUProfile(cpu); err != nil {
		cpu.Close()
		return nil, fmt.Errorf("%s: %v", ProfileEnv, err)
	}
	return func() error {
		pprof.StopCPUProfile()
		if err := cpu.Close(); err != nil {
			return err
		}
		// A collection first: the profile's in-use figures are as of the
		// last one, and its allocation figures then cover the whole run.
		runtime.GC()
		heap, err := os.Create(fmt.Sprintf("%s.heap.%d", prefix, proc))
		if err != nil {
			return err
		}
		if err := pprof.WriteHeapProfile(heap); err != nil {
			heap.Close()
			return err
		}
		return heap.Close()
	}, nil
}
