package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os/exec"
	"slices"
	"strings"
)

// netPlan names the network of the net-* cases: two namespaces, each
// joined by a veth pair to a bridge in the root namespace (where gompirun
// and the predictions run), on a 10.x.y.0/24 subnet of their own. Every
// veth end's egress goes through an htb class of the link's rate, so a
// message between the namespaces crosses two shapers of that rate.
type netPlan struct {
	Bridge   string
	NS       [2]string // the "hosts" of the real job
	HostVeth [2]string // bridge side, in the root namespace
	NSVeth   [2]string // namespace side
	Subnet   string    // first three octets, e.g. "10.232.17"
}

// newNetPlan names everything after id (interface names are limited to 15
// bytes, so id should be short: 6 hex digits).
func newNetPlan(id, subnet string) netPlan {
	p := netPlan{Bridge: "ga" + id + "br", Subnet: subnet}
	for i, side := range []string{"a", "b"} {
		p.NS[i] = "gompi-acc-" + id + "-" + side
		p.HostVeth[i] = fmt.Sprintf("ga%sh%d", id, i)
		p.NSVeth[i] = fmt.Sprintf("ga%sn%d", id, i)
	}
	return p
}

// bridgeAddr is the root namespace's address on the subnet.
func (p netPlan) bridgeAddr() string { return p.Subnet + ".1" }

// hostList is gompirun's -hosts for np processes, half in each namespace.
func (p netPlan) hostList(np int) string {
	if np == 2 {
		return p.NS[0] + "," + p.NS[1]
	}
	return fmt.Sprintf("%s:%d,%s:%d", p.NS[0], np/2, p.NS[1], np/2)
}

// setupSteps are the ip(8) argument lists that build the network, in
// order. The first two create the bridge and a namespace: where they
// fail, this machine does not allow namespaces at all.
func (p netPlan) setupSteps() [][]string {
	steps := [][]string{
		{"link", "add", p.Bridge, "type", "bridge"},
		{"netns", "add", p.NS[0]},
		{"netns", "add", p.NS[1]},
		{"addr", "add", p.bridgeAddr() + "/24", "dev", p.Bridge},
		{"link", "set", p.Bridge, "up"},
	}
	for i, ns := range p.NS {
		addr := fmt.Sprintf("%s.%d/24", p.Subnet, i+2)
		steps = append(steps,
			[]string{"link", "add", p.HostVeth[i], "type", "veth", "peer", "name", p.NSVeth[i]},
			[]string{"link", "set", p.NSVeth[i], "netns", ns},
			[]string{"link", "set", p.HostVeth[i], "master", p.Bridge, "up"},
			[]string{"-n", ns, "addr", "add", addr, "dev", p.NSVeth[i]},
			[]string{"-n", ns, "link", "set", p.NSVeth[i], "up"},
			[]string{"-n", ns, "link", "set", "lo", "up"},
		)
	}
	return steps
}

// createdBy is the namespace or link a setup step creates, or "".
func createdBy(step []string) string {
	if len(step) > 2 && (step[0] == "link" || step[0] == "netns") && step[1] == "add" {
		return step[2]
	}
	return ""
}

// veths lists every veth end as (namespace, device); namespace "" is the
// root one.
func (p netPlan) veths() [][2]string {
	return [][2]string{{"", p.HostVeth[0]}, {"", p.HostVeth[1]}, {p.NS[0], p.NSVeth[0]}, {p.NS[1], p.NSVeth[1]}}
}

// tcIn prefixes tc arguments with the namespace they apply in.
func tcIn(ns string, args ...string) []string {
	if ns == "" {
		return args
	}
	return append([]string{"-n", ns}, args...)
}

// qdiscSteps are the tc(8) argument lists that put an htb root qdisc on
// every veth end, all traffic in its class 1:1 (htb, because this kernel
// has neither netem nor tbf).
func (p netPlan) qdiscSteps() [][]string {
	var steps [][]string
	for _, v := range p.veths() {
		steps = append(steps, tcIn(v[0], "qdisc", "add", "dev", v[1], "root", "handle", "1:", "htb", "default", "1"))
	}
	return steps
}

// rateSteps set class 1:1 of every veth end to rate (created the first
// time, changed afterwards).
func (p netPlan) rateSteps(rate string) [][]string {
	var steps [][]string
	for _, v := range p.veths() {
		steps = append(steps, tcIn(v[0], "class", "replace", "dev", v[1], "parent", "1:", "classid", "1:1",
			"htb", "rate", rate, "ceil", rate))
	}
	return steps
}

// teardownSteps remove everything setupSteps may have made, each step
// naming its object third; deleting a namespace deletes its veth ends,
// and with them their peers.
func (p netPlan) teardownSteps() [][]string {
	return [][]string{
		{"netns", "del", p.NS[0]},
		{"netns", "del", p.NS[1]},
		{"link", "del", p.HostVeth[0]},
		{"link", "del", p.HostVeth[1]},
		{"link", "del", p.Bridge},
	}
}

// pickSubnet chooses 10.X.Y (X from 200 to 249, not 231, which gompirun's
// own namespace test uses) from random bytes, avoiding any subnet that
// contains or is contained in one of this host's addresses.
func pickSubnet(rnd []byte, used []*net.IPNet) (string, bool) {
	for i := 0; i+1 < len(rnd); i += 2 {
		x := 200 + int(rnd[i])%50
		if x == 231 {
			continue
		}
		_, mine, _ := net.ParseCIDR(fmt.Sprintf("10.%d.%d.0/24", x, rnd[i+1]))
		clash := false
		for _, u := range used {
			if u.Contains(mine.IP) || mine.Contains(u.IP) {
				clash = true
			}
		}
		if !clash {
			return fmt.Sprintf("10.%d.%d", x, rnd[i+1]), true
		}
	}
	return "", false
}

// network is a netPlan made real, with the commands that made it (for the
// report).
type network struct {
	plan   netPlan
	ip, tc string // paths of ip(8) and tc(8)
	log    []string
	// made holds the namespaces and links this harness created: only
	// those are removed, should a name clash with someone else's.
	made map[string]bool
}

// setUpNetwork creates the network of a new plan and its htb qdiscs, or
// says in one line why it cannot; on failure nothing is left behind.
func setUpNetwork(ctx context.Context) (*network, error) {
	ipPath, err := exec.LookPath("ip")
	if err != nil {
		return nil, fmt.Errorf("needs ip(8) (iproute2)")
	}
	tcPath, err := exec.LookPath("tc")
	if err != nil {
		return nil, fmt.Errorf("needs tc(8) (iproute2)")
	}
	var rnd [19]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return nil, err
	}
	var used []*net.IPNet
	if addrs, err := net.InterfaceAddrs(); err == nil {
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok {
				used = append(used, n)
			}
		}
	}
	subnet, ok := pickSubnet(rnd[3:], used)
	if !ok {
		return nil, fmt.Errorf("no free 10.x.y.0/24 subnet found")
	}
	n := &network{plan: newNetPlan(hex.EncodeToString(rnd[:3]), subnet), ip: ipPath, tc: tcPath, made: map[string]bool{}}
	for _, s := range n.plan.setupSteps() {
		if err := n.do(ctx, n.ip, s); err != nil {
			n.tearDown()
			return nil, err
		}
		if name := createdBy(s); name != "" {
			n.made[name] = true
		}
	}
	for _, s := range n.plan.qdiscSteps() {
		if err := n.do(ctx, n.tc, s); err != nil {
			n.tearDown()
			return nil, err
		}
	}
	return n, nil
}

// setRate shapes every veth end to rate.
func (n *network) setRate(ctx context.Context, rate string) error {
	for _, s := range n.plan.rateSteps(rate) {
		if err := n.do(ctx, n.tc, s); err != nil {
			return err
		}
	}
	return nil
}

// tearDown removes the network, whatever state it is in, and reports what
// it could not remove. It ignores the context: cleanup runs on the way
// out of an interrupted run too.
func (n *network) tearDown() []string {
	for _, s := range n.plan.teardownSteps() {
		if n.made[s[2]] {
			exec.Command(n.ip, s...).Run() // a veth usually fails: its namespace took it along
		}
	}
	var left []string
	for _, ns := range n.plan.NS {
		if n.made[ns] && exec.Command(n.ip, "netns", "pids", ns).Run() == nil {
			left = append(left, "namespace "+ns)
		}
	}
	if n.made[n.plan.Bridge] && exec.Command(n.ip, "link", "show", n.plan.Bridge).Run() == nil {
		left = append(left, "bridge "+n.plan.Bridge)
	}
	return left
}

// do runs one ip or tc step and logs it.
func (n *network) do(ctx context.Context, path string, args []string) error {
	line := strings.Join(append([]string{shellQuote(path[strings.LastIndex(path, "/")+1:])}, shellQuoteAll(args)...), " ")
	out, err := exec.CommandContext(ctx, path, args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s: %v: %s", line, err, strings.TrimSpace(string(out)))
	}
	if !slices.Contains(n.log, line) { // a rate set again is the same step
		n.log = append(n.log, line)
	}
	return nil
}

func shellQuoteAll(args []string) []string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = shellQuote(a)
	}
	return q
}
