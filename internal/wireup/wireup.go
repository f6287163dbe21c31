// Package wireup builds one process's part of a job that gompirun
// launched: through the job's exchange (internal/launch) it learns which
// processes share its host and its machine, opens the transports that
// reach them (shared memory within a host, TCP between hosts, the
// in-process route for its own ranks), and hands package mpi a Part: a
// route to every rank, with the ranks' inboxes set to wait as the machine
// allows (spin policy, GOMAXPROCS). It is the process manager's side of
// MPI start-up, as MPICH's PMI is: package mpi calls Wire once and knows
// nothing of hosts, boot ids, listeners or segments, and a PMI-2 or Slurm
// start-up could sit beside this one.
//
// It imports internal/launch and the transports, never package mpi. The
// pure decisions (routeKinds, routeTable, onMachine, oversubscribed,
// cpuShare, processors, spinFor, tcpNeeded, lateTCP, sharingHost) are functions with
// table tests; Wire runs them in order.
package wireup

import (
	"os"
	"runtime"
	"slices"

	"github.com/gompi/gompi/internal/launch"
	"github.com/gompi/gompi/transport"
	"github.com/gompi/gompi/transport/inproc"
	"github.com/gompi/gompi/transport/shm"
	"github.com/gompi/gompi/transport/tcp"
)

// Options is what Wire needs to know of the run besides the job.
type Options struct {
	// Virtual marks a virtual run: shared memory without single copy, and
	// virtual time's spin (spinFor).
	Virtual bool
	// Force is GOMPI_TRANSPORT: "", "tcp" or "shm".
	Force string
	// OnTransportError is told of a TCP connection that failed.
	OnTransportError func(error)
}

// Part is this process's part of the job, wired.
type Part struct {
	// Routes holds the transport to every rank of the job.
	Routes *transport.Table
	// Local is the route between this process's own ranks (one of
	// Routes' transports; the job watcher counts the others).
	Local transport.Transport
	// Completions is shared memory's count of receives completed for
	// this process's sends and by its ranks (shm.Transport.Completions);
	// nil without shared memory.
	Completions func() (sent, done int64)
	// MachineRanks lists the ranks of each process on this process's
	// machine (itself included): they share its cores.
	MachineRanks []int
	// Spin is how this process's ranks wait (spinFor).
	Spin transport.Spin

	tcp *tcp.Transport
	shm *shm.Transport
}

// OverTCP returns whether a world rank is reached over TCP, or nil when
// none is.
func (p *Part) OverTCP() func(worldRank int) bool {
	if p.tcp == nil || p.Routes == nil {
		return nil
	}
	var tr transport.Transport = p.tcp
	routes := p.Routes.Routes
	if !slices.Contains(routes, tr) {
		return nil
	}
	return func(r int) bool { return r >= 0 && r < len(routes) && routes[r] == tr }
}

// Wire builds the part of the job env describes, whose ranks own inboxes
// (env.NRanks of them, in rank order), meeting the job's other processes
// through client. On error nothing it opened stays open.
func Wire(env *launch.Env, client *launch.Client, inboxes []*transport.Inbox, opt Options) (*Part, error) {
	p := &Part{}
	if err := p.wire(env, client, inboxes, opt); err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}

// Close closes the transports Wire opened.
func (p *Part) Close() {
	if p.tcp != nil {
		p.tcp.Close()
	}
	if p.shm != nil {
		p.shm.Close()
	}
}

func (p *Part) wire(env *launch.Env, client *launch.Client, inboxes []*transport.Inbox, opt Options) error {
	bases := launch.Placement(env.Size, env.Procs)
	host := hostName()
	me := procInfo{host: host, machine: machineID(host)}
	listen := func() (*tcp.Transport, string, error) {
		return listenTCP(env, client, inboxes, host, opt.OnTransportError)
	}
	// TCP listens up front only where it will surely be needed; a job of
	// one host listens once shared memory turns out not to reach a peer
	// (lateTCP), so a shared-memory job opens no TCP port at all.
	var err error
	if env.Procs > 1 && (opt.Force == "tcp" || env.SpansHosts() || aloneOnHost() || os.Getenv(launch.EnvListen) != "") {
		if p.tcp, me.tcpAddr, err = listen(); err != nil {
			return err
		}
	}
	// Whether this process means to share memory; the segments are opened
	// after the init barrier, once every process's host is known (openShm).
	me.shm = env.Procs > 1 && opt.Force != "tcp" && !aloneOnHost()
	procs, err := exchangeProcInfos(client, env, me)
	if err != nil {
		return err
	}
	sh, shmPeer, err := openShm(env, client, procs, bases, inboxes, opt.Virtual, opt.Force == "shm")
	if err != nil {
		return err
	}
	p.shm = sh
	// openShm has marked the processes whose segment did not open; every
	// process of a one-host job sees the same marks, so all of them take
	// the late TCP round, or none (jobs spanning hosts listened first).
	if opt.Force != "shm" && lateTCP(procs) {
		late, err := listenLate(env, client, procs, p.tcp, listen)
		if late != nil {
			p.tcp = late
		}
		if err != nil {
			return err
		}
	}
	p.Local = inproc.New(env.RankBase, inboxes)
	return p.route(env, opt, bases, procs, me.machine, shmPeer, inboxes)
}

// route gives TCP its peers, builds the routing table, and sets how this
// process's ranks wait and compute: the spin, the connections a waiting
// rank drains, and GOMAXPROCS (processors).
func (p *Part) route(env *launch.Env, opt Options, bases []int, procs []procInfo, machine string, shmPeer []bool,
	inboxes []*transport.Inbox) error {
	if p.tcp != nil {
		peers := make([]tcp.Peer, env.Procs)
		for i, q := range procs {
			peers[i] = tcp.Peer{Addr: q.tcpAddr, Base: bases[i], N: bases[i+1] - bases[i]}
		}
		p.tcp.SetPeers(peers)
	}
	kinds, err := routeKinds(env.Proc, shmPeer, p.tcp != nil, opt.Force == "shm")
	if err != nil {
		return err
	}
	var shT, tcpT transport.Transport // nil unless open: no typed nil in an interface
	if p.shm != nil {
		shT = p.shm
		p.Completions = p.shm.Completions
	}
	if p.tcp != nil {
		tcpT = p.tcp
	}
	table, tcpPeers, shmPeers := routeTable(env.Size, bases, kinds, p.Local, shT, tcpT)
	p.Routes = table
	p.MachineRanks = onMachine(procs, bases, machine)
	cpus := runtime.NumCPU()
	spin, err := spinFor(oversubscribed(p.MachineRanks, cpus), opt.Virtual, crowded(cpus, p.MachineRanks, len(inboxes)))
	if err != nil {
		return err
	}
	p.Spin = spin
	setWaits(inboxes, spin, p.tcp, tcpPeers, shmPeers)
	if n := processors(cpus, p.MachineRanks, len(inboxes), tcpPeers, shmPeers, opt.Virtual); n > 0 && os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(n)
	}
	return nil
}
