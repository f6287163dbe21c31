package mpi

import (
	"fmt"
	"io"
	"iter"
	"os"
	"runtime"
	"strconv"

	"github.com/gompi/gompi/internal/launch"
	"github.com/gompi/gompi/vtime"
)

// virtualFromEnv builds the virtual-time setup of a process of a
// `gompirun -virtual` job, or returns nil in a real run.
func virtualFromEnv(size int) (*Virtual, error) {
	spec := os.Getenv(launch.EnvMachine)
	if spec == "" {
		if os.Getenv(launch.EnvRecord) != "" {
			return nil, fmt.Errorf("%s: a record is made of a virtual run (gompirun -virtual P -record DIR)", launch.EnvRecord)
		}
		return nil, nil
	}
	m, err := vtime.ParseMachine([]byte(spec))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", launch.EnvMachine, err)
	}
	scale := 1.0
	if s := os.Getenv(launch.EnvCPUScale); s != "" {
		if scale, err = strconv.ParseFloat(s, 64); err != nil {
			return nil, fmt.Errorf("%s=%q: not a number", launch.EnvCPUScale, s)
		}
	}
	v, err := NewVirtual(m, size, scale)
	if err != nil {
		return nil, err
	}
	if dir := os.Getenv(launch.EnvRecord); dir != "" {
		if err := v.Record(dir); err != nil {
			return nil, fmt.Errorf("%s: %v", launch.EnvRecord, err)
		}
	}
	return v, nil
}

// setHostConcurrency tells v how many of the job's ranks this machine
// computes at once (k_h, for the contention factor): the processes that
// share this machine's cores (same boot id) host machineProcRanks ranks
// each. GOMPI_VHOST_CONCURRENCY overrides it.
func setHostConcurrency(v *Virtual, machineProcRanks []int) error {
	if s := os.Getenv(launch.EnvHostConcurrency); s != "" {
		k, err := strconv.Atoi(s)
		if err != nil || k < 1 {
			return fmt.Errorf("%s=%q: want a count >= 1", launch.EnvHostConcurrency, s)
		}
		v.SetHostConcurrency(k)
		return nil
	}
	if v.cpu == nil {
		return nil // nothing is measured
	}
	v.SetHostConcurrency(machineConcurrency(runtime.NumCPU(), v.computeWidth(), machineProcRanks))
	return nil
}

// machineConcurrency is k_h for one machine of cores cores whose processes
// host procRanks ranks each and compute at most width of them at once:
// no more ranks compute at once than the machine has cores, than it hosts,
// or than its processes let compute. Every process is assumed to have this
// one's width: gompirun starts them alike, and their GOMAXPROCS follows
// the same rule (cpuShare).
func machineConcurrency(cores, width int, procRanks []int) int {
	hosted, computing := 0, 0
	for _, n := range procRanks {
		hosted += n
		computing += min(width, n)
	}
	return max(1, min(cores, hosted, computing))
}

// publishVirtual hands this process's per-rank records to gompirun.
func publishVirtual(client *launch.Client, proc int, v *Virtual) error {
	return v.withRecords(func(n int, rs iter.Seq[RankRecord]) error {
		return putRankRecords(client, proc, n, rs)
	})
}

// putRankRecords publishes the n records rs yields as process proc's,
// written to the exchange as they are encoded (writeRankRecords): at a
// million ranks they are tens of megabytes, which the process would hold
// at its peak. rs is read twice, to size them and to write them.
func putRankRecords(client *launch.Client, proc, n int, rs iter.Seq[RankRecord]) error {
	return client.PutFrom(launch.VirtualKey(proc), rankRecordsSize(n, rs), func(w io.Writer) error {
		return writeRankRecords(w, n, rs)
	})
}
