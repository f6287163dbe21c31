package wireup

import (
	"fmt"

	"github.com/gompi/gompi/internal/launch"
	"github.com/gompi/gompi/transport"
)

// routeKind is how this process reaches the ranks of another.
type routeKind uint8

const (
	routeLocal routeKind = iota // this process: the in-process transport
	routeShm                    // shared memory
	routeTCP                    // TCP
)

// routeKinds decides the route to every process: this one is local, one
// whose shared memory opened (shmPeer) is reached through it, any other by
// TCP, which must then exist. GOMPI_TRANSPORT=shm (forceShm) makes a
// process without shared memory an error rather than a TCP peer.
func routeKinds(me int, shmPeer []bool, haveTCP, forceShm bool) ([]routeKind, error) {
	kinds := make([]routeKind, len(shmPeer))
	for p := range shmPeer {
		switch {
		case p == me:
			kinds[p] = routeLocal
		case shmPeer[p]:
			kinds[p] = routeShm
		case forceShm:
			return nil, fmt.Errorf("%s=shm, but process %d is not reachable by shared memory", launch.EnvTransport, p)
		case !haveTCP:
			return nil, fmt.Errorf("process %d is reachable neither by shared memory nor by TCP", p)
		default:
			kinds[p] = routeTCP
		}
	}
	return kinds, nil
}

// routeTable gives every rank the transport of its process's route, and
// says whether any peer is reached by TCP and any by shared memory.
func routeTable(size int, bases []int, kinds []routeKind, local, sh, tr transport.Transport) (table *transport.Table, tcpPeers, shmPeers bool) {
	table = &transport.Table{Routes: make([]transport.Transport, size)}
	for p, k := range kinds {
		route := local
		switch k {
		case routeShm:
			route, shmPeers = sh, true
		case routeTCP:
			route, tcpPeers = tr, true
		}
		for r := bases[p]; r < bases[p+1]; r++ {
			table.Routes[r] = route
		}
	}
	return table, tcpPeers, shmPeers
}

// onMachine is the number of ranks of each process that runs on machine
// (the same kernel as this process: processes there share its cores),
// counted by machine and not by host name, since "hosts" that are
// namespaces or forked proxies share the cores.
func onMachine(procs []procInfo, bases []int, machine string) []int {
	var ranks []int
	for p, info := range procs {
		if info.machine == machine {
			ranks = append(ranks, bases[p+1]-bases[p])
		}
	}
	return ranks
}

// oversubscribed reports whether the machine holds more ranks than cores:
// then a spinning rank would only hold a core its peer needs.
func oversubscribed(procRanks []int, cpus int) bool {
	n := 0
	for _, r := range procRanks {
		n += r
	}
	return n > cpus
}

// cpuShare is GOMAXPROCS for one of procs processes on a machine of cpus
// CPUs: an equal share, as MPI launchers bind one rank per core. For TCP it also keeps a rank woken by the connection's reader
// goroutine on that goroutine's processor instead of waking another
// thread, which cuts small-message TCP latency about fourfold
// (docs/transports-tcp.md).
func cpuShare(cpus, procs int) int {
	return max(1, cpus/max(procs, 1))
}

// processors is GOMAXPROCS for a process hosting hosted ranks, one of the
// processes whose ranks machineRanks lists on a machine of cpus CPUs, or 0
// to leave it as it is: cpuShare beside TCP peers, for a process with
// shared-memory peers on a machine with a core for each of its ranks
// (real or virtual: a virtual run should take the host time the real one
// does), and for a process of a virtual run hosting more ranks than its
// share of the CPUs.
//
// A rank with a core of its own polls its peers while it waits
// (spinFor), so it needs one processor; with more, shared memory's small
// messages and large reads were slower (docs/transports-shm.md),
// presumably because the runtime woke spare threads (for a goroutine it
// readied, or to look for work) that took the other processes' cores from
// their polling ranks.
// The rank's waiter goroutine needs no processor of its own: it runs when
// the rank sleeps or yields, and while the rank is awake it waits in the
// network poller, which holds no processor (transport/shm, wake.go). On a machine with more
// ranks than cores the ranks sleep at once and the waiters wake them, and
// there one processor a process made whole programs slower (the same
// page). Virtual ranks that outnumber the share sleep at once when
// they wait (transport.SpinGroup) instead of polling, so such a process
// has no use for more processors either: with more, the processes of one
// machine took each other's processors and their own threads contended
// for the rings (docs/model.md, "Two processes"). A virtual process
// hosting no more ranks than its share gets the share, a processor for
// each rank, as a real one does (it once kept all of the machine's, and
// ran measurably slower than the real run: docs/model.md, "Virtual as
// fast as real"); its GOMAXPROCS bounds how many ranks compute at once,
// which the model's host concurrency counts.
func processors(cpus int, machineRanks []int, hosted int, tcpPeers, shmPeers, virtual bool) int {
	polling := shmPeers && !oversubscribed(machineRanks, cpus)
	if tcpPeers || polling || virtual && crowded(cpus, machineRanks, hosted) {
		return cpuShare(cpus, len(machineRanks))
	}
	return 0
}

// crowded reports whether a process hosting hosted ranks has more of
// them than its share of the machine's cpus (cpuShare).
func crowded(cpus int, machineRanks []int, hosted int) bool {
	return hosted > cpuShare(cpus, len(machineRanks))
}
