package mpi

import (
	"errors"
	"fmt"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/gompi/gompi/internal/launch"
	"github.com/gompi/gompi/transport"
	"github.com/gompi/gompi/transport/inproc"
	"github.com/gompi/gompi/transport/shm"
	"github.com/gompi/gompi/transport/tcp"
)

// closeShm removes this process's shared-memory segment when the process
// exits early (exitJob); nil when it has none.
var closeShm func() error

// joinJob is Main under gompirun: it builds this process's part of the job
// (its block of ranks, the transports to every other rank), meets the other
// processes at the init barrier, runs the ranks, and meets them again at
// the finalize barrier so no process exits while a peer may still need it.
// A failing rank reports itself to gompirun and exits the process at once;
// gompirun then takes the rest of the job down.
func joinJob(fn func(c *Comm) error) (handled bool, exit int) {
	env, ok, err := launch.FromEnv()
	if !ok {
		return false, 0
	}
	if err == nil {
		err = CheckSettings()
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "gompi: %v\n", err)
		return true, 2
	}
	if err := runJob(env, fn); err != nil {
		fmt.Fprintf(os.Stderr, "gompi: process %d: %v\n", env.Proc, err)
		return true, 1
	}
	return true, 0
}

// procInfo is what each process publishes at start-up.
type procInfo struct {
	host    string
	tcpAddr string
	shm     bool   // it shares memory with the processes of its host that do too
	machine string // the kernel it runs on (machineID): shares its cores
}

func (p procInfo) String() string {
	return p.host + "\t" + p.tcpAddr + "\t" + strconv.FormatBool(p.shm) + "\t" + p.machine
}

func parseProcInfo(s string) (procInfo, bool) {
	f := strings.Split(s, "\t")
	if len(f) != 4 {
		return procInfo{}, false
	}
	return procInfo{host: f[0], tcpAddr: f[1], shm: f[2] == "true", machine: f[3]}, true
}

// machineID names the kernel this process runs on: its boot id, which
// processes in other network namespaces, or started as another "host" by
// gompirun's fork launcher, share with this one. They share its cores too,
// which is what the spin and GOMAXPROCS choices count. Without a boot id,
// the host name.
func machineID(host string) string {
	if b, err := os.ReadFile("/proc/sys/kernel/random/boot_id"); err == nil {
		if id := strings.TrimSpace(string(b)); id != "" && !strings.ContainsAny(id, "\t\n") {
			return id
		}
	}
	return "host:" + host
}

func runJob(env *launch.Env, fn func(c *Comm) error) error {
	js, err := readJobSettings(env)
	if err != nil {
		return err
	}
	bases, force, virt := js.bases, js.force, js.virt
	client, err := launch.Dial(env)
	if err != nil {
		return err
	}
	defer client.Close()

	w := newWorld(env.Size, env.RankBase, env.NRanks, js.cfg)
	w.local = env.Procs == 1
	inboxes := make([]*transport.Inbox, len(w.ranks))
	for i, r := range w.ranks {
		inboxes[i] = r.inbox
	}
	w.exitFn = func(code int) { exitJob(w, client, code) }

	host := hostName()
	me := procInfo{host: host, machine: machineID(host)}
	// TCP listens up front only where it will surely be needed; a job of
	// one host listens once shared memory turns out not to reach a peer
	// (lateTCP), so a shared-memory job opens no TCP port at all.
	var tr *tcp.Transport
	onTCPError := func(err error) { w.fail(&Error{Class: ClassOther, Msg: "transport failed", Err: err}) }
	tcpFirst := env.Procs > 1 && (force == "tcp" || env.SpansHosts() || aloneOnHost() || os.Getenv(launch.EnvListen) != "")
	if tcpFirst {
		if tr, me.tcpAddr, err = listenTCP(env, client, inboxes, host, onTCPError); err != nil {
			return err
		}
		defer tr.Close()
	}
	// Whether this process means to share memory; the segments are opened
	// after the init barrier, once every process's host is known (openShm).
	me.shm = env.Procs > 1 && force != "tcp" && !aloneOnHost()
	procs, err := exchangeProcInfos(client, env, me)
	if err != nil {
		return err
	}
	sh, shmPeer, err := openShm(env, client, procs, bases, inboxes, virt != nil, force == "shm")
	if err != nil {
		return err
	}
	if sh != nil {
		defer sh.Close()
	}
	// openShm has marked the processes whose segment did not open; every
	// process of a one-host job sees the same marks, so all of them take
	// the late TCP round, or none (jobs spanning hosts listened first).
	if force != "shm" && lateTCP(procs) {
		late, err := listenLate(env, client, procs, tr, func() (*tcp.Transport, string, error) {
			return listenTCP(env, client, inboxes, host, onTCPError)
		})
		if late != nil {
			tr = late
			defer tr.Close()
		}
		if err != nil {
			return err
		}
	}
	local := inproc.New(env.RankBase, inboxes)
	table, err := wireRoutes(env, js, procs, me.machine, shmPeer, inboxes, local, sh, tr)
	if err != nil {
		return err
	}
	w.agent = watchJob(env, w, table, local, sh)
	w.out = table
	for _, r := range w.ranks {
		r.out = table
	}
	if err := w.run(fn); err != nil {
		return err // not reached: exitFn ends the process on failure
	}
	return finishJob(env, client, w, virt)
}

// jobSettings is what a process of a launched job reads before it talks to
// anyone: the placement, GOMPI_TRANSPORT, the virtual run and the config.
type jobSettings struct {
	bases []int  // launch.Placement: process p hosts ranks bases[p] .. bases[p+1]-1
	force string // GOMPI_TRANSPORT: "", "tcp" or "shm"
	virt  *Virtual
	cfg   *config
}

func readJobSettings(env *launch.Env) (*jobSettings, error) {
	js := &jobSettings{bases: launch.Placement(env.Size, env.Procs), force: os.Getenv(launch.EnvTransport)}
	if js.bases[env.Proc] != env.RankBase || js.bases[env.Proc+1]-js.bases[env.Proc] != env.NRanks {
		return nil, fmt.Errorf("ranks %d+%d do not match the job's placement", env.RankBase, env.NRanks)
	}
	if f := js.force; f != "" && f != "tcp" && f != "shm" {
		return nil, fmt.Errorf("%s=%q: want tcp, shm or nothing", launch.EnvTransport, f)
	}
	var err error
	if js.virt, err = virtualFromEnv(env.Size); err != nil {
		return nil, err
	}
	var opts []Option
	if js.virt != nil {
		opts = append(opts, WithVirtual(js.virt))
	}
	if js.cfg, err = newConfig(opts); err != nil {
		return nil, err
	}
	return js, nil
}

// wireRoutes gives TCP its peers, builds the routing table, and sets how
// this process's ranks wait and compute: the spin, the connections a
// waiting rank drains, GOMAXPROCS beside TCP peers, and a virtual run's
// host concurrency.
func wireRoutes(env *launch.Env, js *jobSettings, procs []procInfo, machine string, shmPeer []bool,
	inboxes []*transport.Inbox, local transport.Transport, sh *shm.Transport, tr *tcp.Transport) (*transport.Table, error) {
	bases := js.bases
	if tr != nil {
		peers := make([]tcp.Peer, env.Procs)
		for i, p := range procs {
			peers[i] = tcp.Peer{Addr: p.tcpAddr, Base: bases[i], N: bases[i+1] - bases[i]}
		}
		tr.SetPeers(peers)
	}
	kinds, err := routeKinds(env.Proc, shmPeer, tr != nil, js.force == "shm")
	if err != nil {
		return nil, err
	}
	var shT, tcpT transport.Transport // nil unless open: no typed nil in an interface
	if sh != nil {
		shT = sh
	}
	if tr != nil {
		tcpT = tr
	}
	table, tcpPeers, shmPeers := routeTable(env.Size, bases, kinds, local, shT, tcpT)
	mine := onMachine(procs, bases, machine)
	spin, err := spinFor(oversubscribed(mine, runtime.NumCPU()), js.virt != nil)
	if err != nil {
		return nil, err
	}
	setWaits(inboxes, spin, tr, tcpPeers, shmPeers)
	if tcpPeers && os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(cpuShare(runtime.NumCPU(), len(mine)))
	}
	if js.virt != nil {
		if err := setHostConcurrency(js.virt, mine); err != nil { // launch_virtual.go
			return nil, err
		}
	}
	return table, nil
}

// finishJob reports a finished world: the agent's last sample, the virtual
// records, and the finalize barrier.
func finishJob(env *launch.Env, client *launch.Client, w *world, virt *Virtual) error {
	if w.agent != nil {
		w.agent.finish()
	}
	if virt != nil {
		if err := virt.Err(); err != nil {
			return err
		}
		if err := publishVirtual(client, env.Proc, virt); err != nil {
			return err
		}
	}
	_, err := client.Barrier(launch.BarrierFinalize)
	return err
}

// exchangeProcInfos publishes this process's procInfo and, after the init
// barrier, reads every process's.
func exchangeProcInfos(client *launch.Client, env *launch.Env, me procInfo) ([]procInfo, error) {
	if err := client.Put("proc/"+strconv.Itoa(env.Proc), me.String()); err != nil {
		return nil, err
	}
	kv, err := client.Barrier(launch.BarrierInit)
	if err != nil {
		return nil, err
	}
	procs := make([]procInfo, env.Procs)
	for i := range procs {
		p, ok := parseProcInfo(kv["proc/"+strconv.Itoa(i)])
		if !ok {
			return nil, fmt.Errorf("process %d published no address", i)
		}
		procs[i] = p
	}
	return procs, nil
}

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

// openShm opens the shared-memory transport between the processes of this
// host that share memory: those that published this host's name (GOMPI_HOST
// in jobs spanning hosts), and only those, so that processes of other hosts
// cost no ring in the segments, nor count as local when the transport
// decides whether to spin. Every process then meets the others at a barrier
// (all segments exist: peers may write into them) and maps its peers'
// segments, which unlinks them (shm.Transport.Join). shmPeer tells by
// process index which peers it reaches. Where a segment cannot be opened,
// the process says so and its peers reach it over TCP, unless shared
// memory is required (GOMPI_TRANSPORT=shm).
func openShm(env *launch.Env, client *launch.Client, procs []procInfo, bases []int, inboxes []*transport.Inbox,
	virtual, required bool) (sh *shm.Transport, shmPeer []bool, err error) {
	shmPeer = make([]bool, len(procs))
	sharing := map[string]int{} // processes sharing memory, by host
	for _, p := range procs {
		if p.shm {
			sharing[p.host]++
		}
	}
	anyShared := false
	for _, n := range sharing {
		anyShared = anyShared || n > 1
	}
	if !anyShared {
		return nil, shmPeer, nil // no barrier: no host has two processes sharing memory
	}
	local, localIdx := sharingHost(procs, bases, env.Proc)
	if localIdx >= 0 && len(local) > 1 {
		// In virtual time a sender must not wait for its receiver to copy
		// (single copy): the receiver may hold the DATA back until its
		// virtual time comes (Algorithm 2), and every such wait becomes a
		// stall that gompirun must resolve (docs/accuracy.md).
		sh, err = shm.Open(shm.Config{JobID: env.Job, Procs: local, LocalProc: localIdx,
			Inboxes: inboxes, NoSingleCopy: virtual})
		if err != nil && required {
			return nil, nil, err
		}
		// Otherwise it publishes no segment, and its peers use TCP.
	}
	if sh != nil {
		closeShm = sh.Close
		if err := client.Put("shm/"+strconv.Itoa(env.Proc), "open"); err != nil {
			sh.Close()
			return nil, nil, err
		}
	}
	kv, err := client.Barrier(barrierShm)
	if err != nil {
		if sh != nil {
			sh.Close()
		}
		return nil, shmPeer, err
	}
	// A process whose segment did not open shares no memory: mark it so
	// in procs, which the TCP decision (lateTCP) reads.
	for i := range procs {
		if procs[i].shm && sharing[procs[i].host] > 1 && kv["shm/"+strconv.Itoa(i)] != "open" {
			procs[i].shm = false
		}
	}
	if sh == nil {
		return nil, shmPeer, nil
	}
	opened := make([]bool, len(local))
	for i, lp := range local {
		opened[i] = kv["shm/"+strconv.Itoa(lp.ID)] == "open"
		shmPeer[lp.ID] = opened[i] && lp.ID != env.Proc
	}
	if err := sh.Join(opened); err != nil {
		sh.Close()
		return nil, nil, err
	}
	return sh, shmPeer, nil
}

// sharingHost lists the processes that share memory with process me (me
// among them, at index idx; -1 when me shares none): those of its host that
// share memory, in process order, which is rank order.
func sharingHost(procs []procInfo, bases []int, me int) (local []shm.Proc, idx int) {
	idx = -1
	if !procs[me].shm {
		return nil, -1
	}
	for p, info := range procs {
		if info.shm && info.host == procs[me].host {
			if p == me {
				idx = len(local)
			}
			local = append(local, shm.Proc{ID: p, Base: bases[p], N: bases[p+1] - bases[p]})
		}
	}
	return local, idx
}

// barrierShm is where the processes meet once every shared-memory segment
// exists.
const barrierShm = "shm"

// watchJob sets up the job-wide quiescence detection (virtual_quiesce.go):
// routes to other processes count what they carry, and an agent reports to
// gompirun, which resolves the stalls of virtual runs and detects
// deadlocks. Without it (gompirun does not answer) the job runs on:
// virtual stalls are resolved speculatively, as the report will say, and
// a deadlock waits for -timeout.
func watchJob(env *launch.Env, w *world, table *transport.Table, local transport.Transport, sh *shm.Transport) *quiesceAgent {
	var completions func() (int64, int64)
	if sh != nil {
		completions = sh.Completions
	}
	a, err := startQuiesce(env, w, completions)
	if err != nil {
		fmt.Fprintf(os.Stderr, "gompi: process %d: no job-wide deadlock detection: %v\n", env.Proc, err)
		return nil
	}
	countRoutes(w, table, local)
	return a
}

// exitJob is the process-level end of a failed job: tell gompirun which
// rank failed and why, then exit with the job's code.
func exitJob(w *world, client *launch.Client, code int) {
	err := w.failure
	rank := -1
	var re *RankError
	var ae *AbortError
	switch {
	case errors.As(err, &ae):
		rank = ae.Rank
	case errors.As(err, &re):
		rank = re.Rank
		if re.Panic {
			// The stack is worth the lines: print it here, the one-line
			// cause goes to gompirun.
			fmt.Fprintf(os.Stderr, "gompi: %v\n", err)
		}
	}
	msg, _, _ := strings.Cut(err.Error(), "\n")
	var de *DeadlockError
	if errors.As(err, &de) {
		// As gompirun reports one over processes; the lines name the
		// ranks, so no rank is named as the one that failed.
		msg = launch.DeadlockReport(strings.Join(de.Blocked, "\n"))
		rank = w.base
	}
	client.Fail(rank, code, msg)
	if closeShm != nil {
		closeShm() // deferred closes do not run past os.Exit; remove the segment
	}
	os.Exit(code)
}

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
//   - Virtual runs: SpinIters checks, then shared memory's
//     SpinBeforeSleep. That keeps a rank on its core through the short
//     waits of an exchange (its measured computation would otherwise
//     suffer the same cold caches), and lets a long wait, an Algorithm 2
//     stall, which gompirun resolves only once every rank sleeps, sleep
//     soon.
//
// GOMPI_SPIN overrides the choice.
func spinFor(sleepAtOnce, virtual bool) (transport.Spin, error) {
	if v := os.Getenv(SpinEnv); v != "" {
		s, err := parseSpin(v)
		if err != nil {
			return s, fmt.Errorf("%s=%q: %v", SpinEnv, v, err)
		}
		return s, nil
	}
	switch {
	case sleepAtOnce:
		return transport.Spin{}, nil
	case virtual:
		return transport.Spin{Checks: transport.SpinIters}, nil
	}
	return transport.Spin{Checks: transport.SpinIters, For: spinTime}, nil
}

// parseSpin reads GOMPI_SPIN: a whole number of checks, or a Go duration
// to spin for.
func parseSpin(v string) (transport.Spin, error) {
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		return transport.Spin{Checks: n}, nil
	}
	if d, err := time.ParseDuration(v); err == nil && d >= 0 {
		return transport.Spin{For: d}, nil
	}
	return transport.Spin{}, fmt.Errorf("want a count of checks (4000) or a duration (100ms)")
}

// cpuShare is GOMAXPROCS for one of procs processes on a machine of cpus
// CPUs: an equal share, as MPI launchers bind one rank per core. For TCP it also keeps a rank woken by the connection's reader
// goroutine on that goroutine's processor instead of waking another
// thread, which cuts small-message TCP latency about fourfold
// (docs/transports-tcp.md). Not for shared memory, whose polling ranks and
// waiter need processors of their own.
func cpuShare(cpus, procs int) int {
	return max(1, cpus/max(procs, 1))
}

// hostName is the host this process runs on as the job names it: gompirun
// sets GOMPI_HOST to the name from its host list, so that "hosts" sharing
// one machine (the fork launcher, network namespaces) still talk over TCP
// to each other and over shared memory within each.
func hostName() string {
	if h := os.Getenv(launch.EnvHost); h != "" {
		return h
	}
	h, _ := os.Hostname()
	return h
}

// aloneOnHost reports whether gompirun said that no other process of the
// job runs on this host (GOMPI_HOST_NPROCS=1, jobs spanning hosts). Such a
// process opens no shared memory: nobody would use it, and its poller
// would only take processor time from the TCP connections.
func aloneOnHost() bool { return os.Getenv(launch.EnvHostProcs) == "1" }

// publicAddr is the address peers dial for a listener bound at addr. A
// wildcard bind (jobs spanning hosts, or GOMPI_TCP_LISTEN=0.0.0.0:0) is
// published under localIP, this end's address of the connection to
// gompirun's exchange over TCP: it works where host names do not resolve.
// Without one (the exchange is a unix socket) the host's name stands in.
func publicAddr(addr, localIP, host string) string {
	h, port, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	ip := net.ParseIP(h)
	switch {
	case ip == nil || !ip.IsUnspecified():
		return addr
	case localIP != "":
		return net.JoinHostPort(localIP, port)
	case host != "":
		return net.JoinHostPort(host, port)
	}
	return addr
}
