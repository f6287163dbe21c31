package main

import (
	"net"
	"reflect"
	"strings"
	"testing"
)

func TestNetPlanNames(t *testing.T) {
	p := newNetPlan("a1b2c3", "10.232.7")
	for _, dev := range []string{p.Bridge, p.HostVeth[0], p.HostVeth[1], p.NSVeth[0], p.NSVeth[1]} {
		if len(dev) > 15 {
			t.Errorf("interface name %q is longer than Linux's 15 bytes", dev)
		}
		if !strings.Contains(dev, "a1b2c3") {
			t.Errorf("interface name %q does not carry the plan's id", dev)
		}
	}
	if p.NS != [2]string{"gompi-acc-a1b2c3-a", "gompi-acc-a1b2c3-b"} {
		t.Errorf("namespaces %v", p.NS)
	}
	if got := p.hostList(2); got != "gompi-acc-a1b2c3-a,gompi-acc-a1b2c3-b" {
		t.Errorf("hostList(2) = %s", got)
	}
	if got := p.hostList(8); got != "gompi-acc-a1b2c3-a:4,gompi-acc-a1b2c3-b:4" {
		t.Errorf("hostList(8) = %s", got)
	}
}

func TestNetPlanSetupSteps(t *testing.T) {
	p := newNetPlan("0f", "10.232.7")
	want := []string{
		"link add ga0fbr type bridge",
		"netns add gompi-acc-0f-a",
		"netns add gompi-acc-0f-b",
		"addr add 10.232.7.1/24 dev ga0fbr",
		"link set ga0fbr up",
		"link add ga0fh0 type veth peer name ga0fn0",
		"link set ga0fn0 netns gompi-acc-0f-a",
		"link set ga0fh0 master ga0fbr up",
		"-n gompi-acc-0f-a addr add 10.232.7.2/24 dev ga0fn0",
		"-n gompi-acc-0f-a link set ga0fn0 up",
		"-n gompi-acc-0f-a link set lo up",
		"link add ga0fh1 type veth peer name ga0fn1",
		"link set ga0fn1 netns gompi-acc-0f-b",
		"link set ga0fh1 master ga0fbr up",
		"-n gompi-acc-0f-b addr add 10.232.7.3/24 dev ga0fn1",
		"-n gompi-acc-0f-b link set ga0fn1 up",
		"-n gompi-acc-0f-b link set lo up",
	}
	if got := joinSteps(p.setupSteps()); !reflect.DeepEqual(got, want) {
		t.Errorf("setup steps:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	wantDown := []string{
		"netns del gompi-acc-0f-a", "netns del gompi-acc-0f-b",
		"link del ga0fh0", "link del ga0fh1", "link del ga0fbr",
	}
	if got := joinSteps(p.teardownSteps()); !reflect.DeepEqual(got, wantDown) {
		t.Errorf("teardown steps %q, want %q", got, wantDown)
	}
	// tearDown removes only what the harness made, known by the name a
	// setup step created: every teardown step must name one.
	made := map[string]bool{}
	for _, s := range p.setupSteps() {
		made[createdBy(s)] = true
	}
	for _, s := range p.teardownSteps() {
		if !made[s[2]] {
			t.Errorf("teardown step %q removes %s, which no setup step creates", s, s[2])
		}
	}
}

// TestNetPlanShaping: every veth end, on both sides of the bridge, gets an
// htb root whose default class has the link's rate as rate and ceiling.
func TestNetPlanShaping(t *testing.T) {
	p := newNetPlan("0f", "10.232.7")
	wantQdisc := []string{
		"qdisc add dev ga0fh0 root handle 1: htb default 1",
		"qdisc add dev ga0fh1 root handle 1: htb default 1",
		"-n gompi-acc-0f-a qdisc add dev ga0fn0 root handle 1: htb default 1",
		"-n gompi-acc-0f-b qdisc add dev ga0fn1 root handle 1: htb default 1",
	}
	if got := joinSteps(p.qdiscSteps()); !reflect.DeepEqual(got, wantQdisc) {
		t.Errorf("qdisc steps %q, want %q", got, wantQdisc)
	}
	wantRate := []string{
		"class replace dev ga0fh0 parent 1: classid 1:1 htb rate 200mbit ceil 200mbit",
		"class replace dev ga0fh1 parent 1: classid 1:1 htb rate 200mbit ceil 200mbit",
		"-n gompi-acc-0f-a class replace dev ga0fn0 parent 1: classid 1:1 htb rate 200mbit ceil 200mbit",
		"-n gompi-acc-0f-b class replace dev ga0fn1 parent 1: classid 1:1 htb rate 200mbit ceil 200mbit",
	}
	if got := joinSteps(p.rateSteps("200mbit")); !reflect.DeepEqual(got, wantRate) {
		t.Errorf("rate steps %q, want %q", got, wantRate)
	}
}

func TestPickSubnet(t *testing.T) {
	_, taken, _ := net.ParseCIDR("10.205.3.9/24")
	_, wide, _ := net.ParseCIDR("10.210.0.1/16")
	used := []*net.IPNet{taken, wide}
	tests := []struct {
		rnd  []byte
		want string
		ok   bool
	}{
		{[]byte{0, 7}, "10.200.7", true},
		{[]byte{5, 3, 6, 3}, "10.206.3", true},    // 10.205.3.0/24 holds an address here
		{[]byte{10, 200, 1, 1}, "10.201.1", true}, // 10.210.0.0/16 contains 10.210.200.0/24
		{[]byte{31, 0, 2, 0}, "10.202.0", true},   // 10.231.x is gompirun's test's
		{[]byte{5, 3}, "", false},
		{nil, "", false},
	}
	for _, tc := range tests {
		got, ok := pickSubnet(tc.rnd, used)
		if got != tc.want || ok != tc.ok {
			t.Errorf("pickSubnet(%v) = %q, %v; want %q, %v", tc.rnd, got, ok, tc.want, tc.ok)
		}
	}
}

func joinSteps(steps [][]string) []string {
	var s []string
	for _, st := range steps {
		s = append(s, strings.Join(st, " "))
	}
	return s
}
