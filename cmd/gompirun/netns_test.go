package main

import (
	"crypto/rand"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// TestHostsNetworkNamespaces runs a job over two network namespaces, each
// a "host" with a network stack of its own, joined to the root namespace
// (where gompirun runs) by veth pairs on a bridge: gompirun starts the
// proxies with -launcher "ip netns exec". The processes report their
// namespace and their TCP peers, which shows that ranks on different
// "hosts" really ran apart and talked over TCP between the namespaces'
// addresses. Needs root and ip(8); skipped otherwise.
func TestHostsNetworkNamespaces(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to create network namespaces")
	}
	ipCmd, err := exec.LookPath("ip")
	if err != nil {
		t.Skip("needs ip(8) (iproute2) to create network namespaces")
	}
	var rnd [3]byte
	rand.Read(rnd[:])
	id := fmt.Sprintf("%02x%02x", rnd[0], rnd[1]) // interface names: at most 15 bytes
	subnet := fmt.Sprintf("10.231.%d", rnd[2]%250)
	bridge := "gmb" + id
	ns := []string{"gompi-" + id + "-a", "gompi-" + id + "-b"}
	ip := func(args ...string) error {
		if out, err := exec.Command(ipCmd, args...).CombinedOutput(); err != nil {
			return fmt.Errorf("ip %s: %v: %s", strings.Join(args, " "), err, out)
		}
		return nil
	}
	t.Cleanup(func() {
		for i, n := range ns {
			ip("netns", "del", n)
			ip("link", "del", fmt.Sprintf("gmh%s%d", id, i)) // gone with the namespace, normally
		}
		ip("link", "del", bridge)
	})
	// The first step tells whether this machine allows namespaces at all
	// (a container may not); the later ones must work if it does.
	if err := ip("link", "add", bridge, "type", "bridge"); err != nil {
		t.Skipf("cannot create a bridge here: %v", err)
	}
	if err := ip("netns", "add", ns[0]); err != nil {
		t.Skipf("cannot create network namespaces here: %v", err)
	}
	steps := [][]string{
		{"netns", "add", ns[1]},
		{"addr", "add", subnet + ".1/24", "dev", bridge},
		{"link", "set", bridge, "up"},
	}
	for i, n := range ns {
		host, peer, addr := fmt.Sprintf("gmh%s%d", id, i), fmt.Sprintf("gmn%s%d", id, i), fmt.Sprintf("%s.%d/24", subnet, i+2)
		steps = append(steps,
			[]string{"link", "add", host, "type", "veth", "peer", "name", peer},
			[]string{"link", "set", peer, "netns", n},
			[]string{"link", "set", host, "master", bridge, "up"},
			[]string{"-n", n, "addr", "add", addr, "dev", peer},
			[]string{"-n", n, "link", "set", peer, "up"},
			[]string{"-n", n, "link", "set", "lo", "up"},
		)
	}
	for _, s := range steps {
		if err := ip(s...); err != nil {
			t.Fatal(err)
		}
	}

	r := gorun(t, nil, "-np", "4", "-hosts", ns[0]+":2,"+ns[1]+":2", "-launcher", ipCmd+" netns exec",
		"-timeout", "20s", jobProg, "-mode", "where")
	wantRing(t, r, 4)
	self, err := os.Readlink("/proc/self/ns/net")
	if err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile(`(?m)^where rank (\d) host (\S+) netns (\S+) shm \w+ listens \S* tcp-peers (\S*)$`)
	nsOf, peersOf := map[string]string{}, map[string]string{}
	for _, m := range line.FindAllStringSubmatch(r.stdout, -1) {
		rank, host := m[1], m[2]
		if want := ns[(int(rank[0]-'0'))/2]; host != want {
			t.Errorf("rank %s ran on host %q, want %q", rank, host, want)
		}
		if old, ok := nsOf[host]; ok && old != m[3] {
			t.Errorf("two network namespaces on host %s: %s and %s", host, old, m[3])
		}
		nsOf[host] = m[3]
		peersOf[host] += "," + m[4]
	}
	if len(nsOf) != 2 || nsOf[ns[0]] == nsOf[ns[1]] || nsOf[ns[0]] == self || nsOf[ns[1]] == self {
		t.Fatalf("namespaces %v (gompirun's: %s), want two distinct ones of their own; output:\n%s", nsOf, self, r.stdout)
	}
	// Ranks 1 -> 2 and 3 -> 0 cross between the namespaces: each side has
	// a TCP connection to the other's address.
	for i, n := range ns {
		other := fmt.Sprintf("%s.%d", subnet, 3-i)
		if !strings.Contains(peersOf[n]+",", ","+other+",") {
			t.Errorf("no TCP connection from host %s to %s (peers %s); output:\n%s", n, other, peersOf[n], r.stdout)
		}
	}
}
