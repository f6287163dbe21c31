package wireup

import (
	"net"
	"os"
	"strconv"

	"github.com/gompi/gompi/internal/launch"
	"github.com/gompi/gompi/transport"
	"github.com/gompi/gompi/transport/tcp"
)

// listenTCP opens this process's TCP transport and returns the address it
// publishes. It binds only where peers must reach it: loopback in a job of
// one host, and in a job spanning hosts the address through which this
// process reaches gompirun (the one it publishes), not every interface;
// GOMPI_TCP_LISTEN overrides.
func listenTCP(env *launch.Env, client *launch.Client, inboxes []*transport.Inbox, host string, onError func(error)) (*tcp.Transport, string, error) {
	listen := os.Getenv(launch.EnvListen)
	if listen == "" && env.SpansHosts() {
		listen = "0.0.0.0:0"
		if ip := client.LocalIP(); ip != "" {
			listen = net.JoinHostPort(ip, "0")
		}
	}
	tr, err := tcp.Listen(tcp.Config{
		Token: env.Token, Proc: env.Proc, Base: env.RankBase, Inboxes: inboxes,
		Listen: listen, OnError: onError,
	})
	if err != nil {
		return nil, "", err
	}
	return tr, publicAddr(tr.Addr(), client.LocalIP(), host), nil
}

// tcpNeeded reports whether process p reaches another process over TCP:
// the same rule as the routes runJob builds (shared memory needs both
// segments open and one host).
func tcpNeeded(procs []procInfo, p int) bool {
	for q := range procs {
		if q != p && !(procs[p].shm && procs[q].shm && procs[p].host == procs[q].host) {
			return true
		}
	}
	return false
}

// lateTCP reports whether a process that needs TCP published no address
// (it relied on shared memory, which does not reach some peer). Every
// process decides it from the same published records, so all of them
// take the extra round of listenLate, or none.
func lateTCP(procs []procInfo) bool {
	for p := range procs {
		if procs[p].tcpAddr == "" && tcpNeeded(procs, p) {
			return true
		}
	}
	return false
}

// listenLate is the round in which the processes that need TCP but did
// not listen open their transport (with listen, unless tr is open
// already), publish its address, and meet at launch.BarrierTCP; it fills
// in procs' addresses and returns the transport it opened, if any.
func listenLate(env *launch.Env, client *launch.Client, procs []procInfo, tr *tcp.Transport,
	listen func() (*tcp.Transport, string, error)) (*tcp.Transport, error) {
	var opened *tcp.Transport
	key := func(p int) string { return "tcp/" + strconv.Itoa(p) }
	if tr == nil && tcpNeeded(procs, env.Proc) {
		var addr string
		var err error
		if opened, addr, err = listen(); err != nil {
			return nil, err
		}
		if err := client.Put(key(env.Proc), addr); err != nil {
			return opened, err
		}
	}
	kv, err := client.Barrier(launch.BarrierTCP)
	if err != nil {
		return opened, err
	}
	for p := range procs {
		if a := kv[key(p)]; a != "" {
			procs[p].tcpAddr = a
		}
	}
	return opened, nil
}
