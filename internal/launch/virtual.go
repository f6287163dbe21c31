package launch

import "strconv"

// Virtual runs (gompirun -virtual P): gompirun validates the machine and
// hands it to every process in the environment, so processes need no file
// of their own; each process publishes its ranks' records under
// VirtualKey(proc) before the finalize barrier, and gompirun merges them
// into the prediction report.
const (
	EnvMachine  = "GOMPI_VMACHINE"   // the target machine as JSON (vtime.Machine); set only in virtual runs
	EnvCPUScale = "GOMPI_VCPU_SCALE" // multiplier of measured computation (decimal)
	// EnvHostConcurrency overrides k_h, how many of the job's ranks the
	// host computes at once on one machine's cores (the contention factor
	// of docs/model.md). Unset, each process counts it from the job's
	// processes on its machine, its cores and its GOMAXPROCS.
	EnvHostConcurrency = "GOMPI_VHOST_CONCURRENCY"
	// EnvRecord is the directory where each process of a virtual run
	// writes its ranks' records (gompirun -record DIR).
	EnvRecord = "GOMPI_RECORD"
)

// VirtualKey is the exchange key under which process proc publishes the
// JSON array of its ranks' records (mpi.RankRecord).
func VirtualKey(proc int) string { return virtualKeyPrefix + strconv.Itoa(proc) }

const virtualKeyPrefix = "vresult/"

// Get returns the value published under key, if any. gompirun reads the
// processes' virtual-time records with it once the job is over.
func (s *Server) Get(key string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.kv[key]
	return v, ok
}
