package main

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gompi/gompi/internal/launch"
)

// newJob lays the processes out: rank blocks, hosts, and one proxy per
// other host. prefixes are the -tag-output prefixes by process.
func newJob(o *options) (*job, []string) {
	j := &job{procs: make([]*proc, o.np)}
	prefixes := make([]string, o.np)
	bases := launch.Placement(o.ranks, o.np)
	byHost := map[string]*proxy{}
	for i := range j.procs {
		p := &proc{idx: i, base: bases[i], n: bases[i+1] - bases[i]}
		if o.hostOf != nil {
			p.host = o.hosts[o.hostOf[i]].Name
			if !isLocal(p.host) {
				px := byHost[p.host]
				if px == nil {
					px = &proxy{host: p.host}
					byHost[p.host] = px
					j.proxies = append(j.proxies, px)
				}
				px.procs = append(px.procs, p)
				p.px = px
			}
		}
		if o.tag {
			prefixes[i] = "[" + strings.TrimPrefix(strings.TrimPrefix(p.name(), "ranks "), "rank ") + "] "
		}
		j.procs[i] = p
	}
	if o.hostOf != nil {
		j.setHostVars()
	}
	return j, prefixes
}

// setHostVars tells each process its host's identity: the name from the
// list (for this machine, whatever it was called, the first such name, so
// that all its processes share memory) and how many processes run there.
func (j *job) setHostVars() {
	here := ""
	ids := make([]string, len(j.procs))
	count := map[string]int{}
	for i, p := range j.procs {
		ids[i] = p.host
		if p.px == nil {
			if here == "" {
				here = p.host
			}
			ids[i] = here
		}
		count[ids[i]]++
	}
	for i, p := range j.procs {
		p.hostVars = []string{launch.EnvHost + "=" + ids[i], launch.EnvHostProcs + "=" + strconv.Itoa(count[ids[i]])}
	}
}

// startProxies serves the exchange over TCP, starts one proxy per other
// host and waits until each has reached the exchange. It returns the
// exchange address for this host's processes: the one the first proxy
// reached, so that the address they publish is one other hosts reach.
func (j *job) startProxies(o *options, ex *launch.Server, jobID, token, exe string, out *lineWriter,
	prefixes []string, sp *spawner, exits chan<- exit, sigs <-chan os.Signal) (string, *failure) {
	fail := func(err error) (string, *failure) { return "", &failure{msg: err.Error(), code: 1} }
	addrs, err := exchangeAddrs(o.iface)
	if err != nil {
		return fail(err)
	}
	// The exchange listens only at the addresses the proxies are given
	// (an -iface that is no address of this machine cannot be served).
	port, served, err := ex.ListenTCP(addrs)
	if err != nil {
		return fail(fmt.Errorf("cannot serve the exchange at %s: %v", strings.Join(addrs, ", "), err))
	}
	addrs = served
	wd, _ := os.Getwd()
	env := environForRemote()
	for _, px := range j.proxies {
		if err := px.prepare(o.launcher, out); err != nil {
			return fail(err)
		}
		spec := &proxySpec{Job: jobID, Host: px.host, Token: token, Addrs: addrs, Port: port, Dir: wd, Env: env}
		for _, p := range px.procs {
			pe := launch.Env{Job: jobID, Token: token, Size: o.ranks, Procs: o.np, Proc: p.idx, RankBase: p.base, NRanks: p.n}
			vars := append(pe.Vars(), p.hostVars...)
			vars = append(vars, o.procEnv()...)
			spec.Procs = append(spec.Procs, proxyProc{Idx: p.idx, Exe: exe, Args: o.args, Env: vars})
			spec.Stdin = spec.Stdin || p.idx == 0
		}
		if err := px.start(sp, spec, out, prefixes, exits); err != nil {
			return fail(err)
		}
		if spec.Stdin {
			go px.forwardStdin()
		}
	}
	var timeout <-chan time.Time
	if o.timeout > 0 {
		timeout = time.After(o.timeout)
	}
	chosen := ""
	for _, px := range j.proxies {
		select {
		case <-px.ready:
		case sig := <-sigs:
			return "", &failure{msg: fmt.Sprintf("received %v while starting the proxies", sig), code: 128 + int(sig.(syscall.Signal))}
		case <-timeout:
			return "", &failure{msg: fmt.Sprintf("job timed out after %v while starting the proxies", o.timeout), code: 124}
		}
		if px.readyErr != nil {
			return fail(px.readyErr)
		}
		if chosen == "" {
			chosen = px.readyIP
		}
	}
	return "tcp:" + net.JoinHostPort(chosen, strconv.Itoa(port)), nil
}
