// Package launch is the contract between gompirun and the processes it
// starts: the environment variables that describe a process's part of the
// job, and the key-value exchange (msgpack over a local socket) through
// which processes publish their addresses, meet at barriers and report
// failures. gompirun serves the exchange; the mpi package is its client.
package launch

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Environment variables set by gompirun for every process of a job.
const (
	EnvJob   = "GOMPI_JOB"   // job id: unique per gompirun run
	EnvToken = "GOMPI_TOKEN" // per-job secret (hex) authenticating the exchange and the transports
	// EnvExchange is where the exchange is served: a unix socket path
	// ("unix:PATH" or a plain path), or "tcp:HOST:PORT" in jobs spanning
	// hosts.
	EnvExchange = "GOMPI_EXCHANGE"
	EnvSize     = "GOMPI_SIZE"   // world size (ranks)
	EnvProcs    = "GOMPI_NPROCS" // number of processes
	EnvProc     = "GOMPI_PROC"   // this process's index, 0 .. NPROCS-1
	EnvRankBase = "GOMPI_RANK_BASE"
	EnvNRanks   = "GOMPI_NRANKS" // ranks hosted here: RANK_BASE .. RANK_BASE+NRANKS-1

	// EnvTransport forces a transport between processes ("tcp"); empty
	// means automatic: shared memory on one host, TCP between hosts.
	EnvTransport = "GOMPI_TRANSPORT"
	// EnvListen is the address the TCP transport binds (default loopback,
	// or every interface when the job spans hosts).
	EnvListen = "GOMPI_TCP_LISTEN"
	// EnvHost names the host a process runs on, as the host list named it;
	// it overrides os.Hostname() when processes decide who shares a host
	// (shared memory) and who is reached over TCP.
	EnvHost = "GOMPI_HOST"
	// EnvHostProcs is how many processes of the job run on the process's
	// host (set with EnvHost): one alone needs no shared memory.
	EnvHostProcs = "GOMPI_HOST_NPROCS"
)

// Env is a process's part of a job, as read from the environment.
type Env struct {
	Job      string
	Token    string
	Exchange string
	Size     int
	Procs    int
	Proc     int
	RankBase int
	NRanks   int
}

// Placement returns the first rank of each process when size ranks are
// spread over procs processes in contiguous blocks whose sizes differ by at
// most one: process i hosts ranks [b[i], b[i+1]).
func Placement(size, procs int) []int {
	b := make([]int, procs+1)
	for i := range b {
		b[i] = i * size / procs
	}
	return b
}

// SpansHosts reports whether the job spans hosts: gompirun then serves
// the exchange over TCP.
func (e *Env) SpansHosts() bool { return strings.HasPrefix(e.Exchange, "tcp:") }

// Vars returns the environment entries ("K=V") that describe e.
func (e *Env) Vars() []string {
	return []string{
		EnvJob + "=" + e.Job,
		EnvToken + "=" + e.Token,
		EnvExchange + "=" + e.Exchange,
		EnvSize + "=" + strconv.Itoa(e.Size),
		EnvProcs + "=" + strconv.Itoa(e.Procs),
		EnvProc + "=" + strconv.Itoa(e.Proc),
		EnvRankBase + "=" + strconv.Itoa(e.RankBase),
		EnvNRanks + "=" + strconv.Itoa(e.NRanks),
	}
}

// FromEnv reads the job description. ok is false when the process was not
// started by gompirun (no job id), in which case it is a singleton.
func FromEnv() (e *Env, ok bool, err error) {
	job := os.Getenv(EnvJob)
	if job == "" {
		return nil, false, nil
	}
	e = &Env{Job: job, Token: os.Getenv(EnvToken), Exchange: os.Getenv(EnvExchange)}
	ints := []struct {
		name string
		dst  *int
	}{
		{EnvSize, &e.Size}, {EnvProcs, &e.Procs}, {EnvProc, &e.Proc},
		{EnvRankBase, &e.RankBase}, {EnvNRanks, &e.NRanks},
	}
	for _, v := range ints {
		n, err := strconv.Atoi(os.Getenv(v.name))
		if err != nil {
			return nil, true, fmt.Errorf("launch: %s=%q is not a number", v.name, os.Getenv(v.name))
		}
		*v.dst = n
	}
	switch {
	case e.Token == "" || e.Exchange == "":
		return nil, true, fmt.Errorf("launch: %s and %s must be set under %s", EnvToken, EnvExchange, EnvJob)
	case e.Size < 1 || e.Procs < 1 || e.Procs > e.Size:
		return nil, true, fmt.Errorf("launch: bad job shape: %d ranks over %d processes", e.Size, e.Procs)
	case e.Proc < 0 || e.Proc >= e.Procs:
		return nil, true, fmt.Errorf("launch: process index %d out of range 0..%d", e.Proc, e.Procs-1)
	case e.NRanks < 1 || e.RankBase < 0 || e.RankBase+e.NRanks > e.Size:
		return nil, true, fmt.Errorf("launch: ranks %d+%d out of range for size %d", e.RankBase, e.NRanks, e.Size)
	}
	return e, true, nil
}
