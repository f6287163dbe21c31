package wireup

import (
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/gompi/gompi/transport"
	"github.com/gompi/gompi/transport/tcp"
)

// SpinEnv overrides how a waiting rank spins before it sleeps
// (transport.Inbox.SetSpin): a count of checks, or a Go duration.
const SpinEnv = "GOMPI_SPIN"

// spinTime is how long a waiting rank of a real run spins, at most, when
// every rank of its machine has a core. MPICH and Open MPI spin without
// bound; gompi's rank sleeps after spinTime so that a job whose ranks all
// wait for ever is reported as a deadlock (gompirun's detection counts
// sleeping ranks) and a rank that waits long gives its core back. A nap
// costs this VM's rank its caches (docs/accuracy.md, "Error sources"), a
// cost bounded by a cache refill, small beside a wait of spinTime.
const spinTime = 100 * time.Millisecond

// spinFor chooses how waiting ranks spin.
//   - More ranks on this machine than cores: sleep at once; a spin would
//     hold a core a peer needs.
//   - Real runs: SpinIters checks, and on for up to spinTime. Shared
//     memory answers in a fraction of a microsecond, and a TCP answer finds
//     its rank awake. With only TCP peers the spinning rank drains the
//     sockets itself (transport/tcp Poll); beside shared-memory peers it
//     asks the transport's epoll set now and then and sleeps as soon as
//     bytes wait (transport.Handoff), so that the connection goroutine gets
//     the processor. A rank that sleeps through a transfer of milliseconds
//     leaves its core idle, and this VM then runs the rank's next
//     computation measurably slower: NPB CG over a 200 Mbit/s link took 5%
//     longer with a spin of SpinIters checks only (docs/accuracy.md).
//   - Virtual runs whose process hosts no more ranks than its share of
//     the cores (crowded false): as real runs, so that the virtual run
//     takes the host time the real one does (its ranks then also get a
//     processor each, processors), with the spin counted as sleep
//     (transport.Spin.Counted): an Algorithm 2 stall, which gompirun
//     resolves once every rank sleeps, is then seen at once instead of
//     after spinTime. A rank that spins holds its process's processor, so
//     the process's agent, which answers gompirun, ends the spin when
//     gompirun writes to it (mpi's watchJob; launch.Watch.Pending).
//   - Other virtual runs: SpinIters checks, then shared memory's
//     SpinBeforeSleep: their ranks outnumber the processors, and a long
//     spin would take one from a rank with work to do.
//
// GOMPI_SPIN overrides the choice.
func spinFor(sleepAtOnce, virtual, crowded bool) (transport.Spin, error) {
	if v := os.Getenv(SpinEnv); v != "" {
		s, err := ParseSpin(v)
		if err != nil {
			return s, fmt.Errorf("%s=%q: %v", SpinEnv, v, err)
		}
		s.Counted = virtual
		return s, nil
	}
	switch {
	case sleepAtOnce:
		return transport.Spin{}, nil
	case virtual && crowded:
		return transport.Spin{Checks: transport.SpinIters}, nil
	}
	return transport.Spin{Checks: transport.SpinIters, For: spinTime, Counted: virtual}, nil
}

// ParseSpin reads a value of GOMPI_SPIN: a whole number of checks, or a
// Go duration to spin for.
func ParseSpin(v string) (transport.Spin, error) {
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		return transport.Spin{Checks: n}, nil
	}
	if d, err := time.ParseDuration(v); err == nil && d >= 0 {
		return transport.Spin{For: d}, nil
	}
	return transport.Spin{}, fmt.Errorf("want a count of checks (4000) or a duration (100ms)")
}

// setWaits sets how the ranks of this process wait: their spin, and with
// TCP peers the connections a spinning or testing rank asks itself.
func setWaits(inboxes []*transport.Inbox, spin transport.Spin, tr *tcp.Transport, tcpPeers, shmPeers bool) {
	for _, ib := range inboxes {
		ib.SetSpin(spin)
		if tcpPeers {
			// Spinning waits ask the connections now and then, and a
			// test (MPI_Test) drains them itself (Inbox.NextNow).
			ib.AddHandoff(tr)
			if spin != (transport.Spin{}) && !shmPeers {
				// Nothing else to poll: a waiting rank drains the
				// connections itself (transport/tcp Poll).
				ib.AddPoller(tr)
			}
		}
	}
}
