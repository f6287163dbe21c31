package wireup

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"

	"github.com/gompi/gompi/internal/launch"
)

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

// HostName is the host this process runs on as the job names it
// (hostName): the processes of one host share memory, which is what
// mpi's SplitType(SplitTypeShared) groups ranks by.
func HostName() string { return hostName() }
