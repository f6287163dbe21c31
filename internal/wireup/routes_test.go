package wireup

import (
	"reflect"
	"strings"
	"testing"

	"github.com/gompi/gompi/transport"
	"github.com/gompi/gompi/transport/tcp"
)

// TestRouteKinds: the route to each process from process 1 of four.
func TestRouteKinds(t *testing.T) {
	for _, tc := range []struct {
		name              string
		shmPeer           []bool
		haveTCP, forceShm bool
		want              []routeKind
		err               string
	}{
		{"all shared memory", []bool{true, false, true, true}, false, false,
			[]routeKind{routeShm, routeLocal, routeShm, routeShm}, ""},
		{"other hosts by TCP", []bool{true, false, false, false}, true, false,
			[]routeKind{routeShm, routeLocal, routeTCP, routeTCP}, ""},
		{"all TCP", []bool{false, false, false, false}, true, false,
			[]routeKind{routeTCP, routeLocal, routeTCP, routeTCP}, ""},
		{"unreachable", []bool{true, false, false, true}, false, false, nil,
			"process 2 is reachable neither by shared memory nor by TCP"},
		{"shm forced, a peer without", []bool{true, false, false, true}, true, true, nil,
			"=shm, but process 2 is not reachable by shared memory"},
		{"shm forced, all reachable", []bool{true, false, true, true}, false, true,
			[]routeKind{routeShm, routeLocal, routeShm, routeShm}, ""},
	} {
		got, err := routeKinds(1, tc.shmPeer, tc.haveTCP, tc.forceShm)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.err)
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.err == "" && !reflect.DeepEqual(got, tc.want):
			t.Errorf("%s: routes %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestMachineShare: the ranks of each process on this process's machine,
// whether they oversubscribe its cores, and GOMAXPROCS beside TCP peers.
func TestMachineShare(t *testing.T) {
	procs := []procInfo{{machine: "a"}, {machine: "b"}, {machine: "a"}, {machine: "a"}}
	bases := []int{0, 2, 5, 6, 10} // 2, 3, 1 and 4 ranks
	if got, want := onMachine(procs, bases, "a"), []int{2, 1, 4}; !reflect.DeepEqual(got, want) {
		t.Errorf("onMachine(a) = %v, want %v", got, want)
	}
	if got, want := onMachine(procs, bases, "b"), []int{3}; !reflect.DeepEqual(got, want) {
		t.Errorf("onMachine(b) = %v, want %v", got, want)
	}
	for _, tc := range []struct {
		ranks []int
		cpus  int
		want  bool
	}{{[]int{2, 1, 4}, 8, false}, {[]int{2, 1, 4}, 7, false}, {[]int{2, 1, 4}, 6, true}, {[]int{1}, 1, false}, {[]int{2}, 1, true}} {
		if got := oversubscribed(tc.ranks, tc.cpus); got != tc.want {
			t.Errorf("oversubscribed(%v, %d cpus) = %v, want %v", tc.ranks, tc.cpus, got, tc.want)
		}
	}
	for _, tc := range []struct{ cpus, procs, want int }{{2, 2, 1}, {16, 4, 4}, {16, 3, 5}, {2, 4, 1}, {8, 1, 8}, {4, 0, 4}} {
		if got := cpuShare(tc.cpus, tc.procs); got != tc.want {
			t.Errorf("cpuShare(%d cpus, %d procs) = %d, want %d", tc.cpus, tc.procs, got, tc.want)
		}
	}
	for _, tc := range []struct {
		cpus              int
		machineRanks      []int
		hosted            int
		tcp, shm, virtual bool
		want              int
	}{
		{2, []int{1, 1}, 1, true, false, false, 1},               // TCP: the share
		{2, []int{1, 1}, 1, false, true, false, 1},               // shared memory, real: the share
		{16, []int{1, 1, 1, 1}, 1, true, true, false, 4},         // both
		{2, []int{1}, 1, false, false, false, 0},                 // one process, no peers: as it is
		{2, []int{1, 1}, 1, false, true, true, 1},                // virtual, a rank a core: the share, as real
		{2, []int{131072, 131072}, 131072, false, true, true, 1}, // virtual, crowded: the share
		{16, []int{4, 4}, 4, false, true, true, 8},
		{16, []int{9, 8}, 9, false, true, true, 8},
		{8, []int{100}, 100, false, false, true, 8}, // one process: all of them
		{2, []int{2, 2, 2, 2}, 2, false, true, true, 1},
	} {
		if got := processors(tc.cpus, tc.machineRanks, tc.hosted, tc.tcp, tc.shm, tc.virtual); got != tc.want {
			t.Errorf("processors(%d cpus, %v, %d hosted, tcp %v, shm %v, virtual %v) = %d, want %d",
				tc.cpus, tc.machineRanks, tc.hosted, tc.tcp, tc.shm, tc.virtual, got, tc.want)
		}
	}
}

// fakeRoute is a transport told apart by its name.
type fakeRoute string

func (fakeRoute) Send(*transport.Frame) error { return nil }
func (fakeRoute) Close() error                { return nil }

// TestRouteTable: every rank of a process gets its process's route, and
// the table says which kinds of peer there are.
func TestRouteTable(t *testing.T) {
	local, sh, tr := fakeRoute("local"), fakeRoute("shm"), fakeRoute("tcp")
	bases := []int{0, 2, 3, 6} // 2, 1 and 3 ranks
	for _, tc := range []struct {
		kinds              []routeKind
		want               []fakeRoute
		tcpPeers, shmPeers bool
	}{
		{[]routeKind{routeShm, routeLocal, routeTCP}, []fakeRoute{"shm", "shm", "local", "tcp", "tcp", "tcp"}, true, true},
		{[]routeKind{routeLocal, routeShm, routeShm}, []fakeRoute{"local", "local", "shm", "shm", "shm", "shm"}, false, true},
		{[]routeKind{routeTCP, routeTCP, routeLocal}, []fakeRoute{"tcp", "tcp", "tcp", "local", "local", "local"}, true, false},
	} {
		table, tcpPeers, shmPeers := routeTable(6, bases, tc.kinds, local, sh, tr)
		for r, want := range tc.want {
			if got := table.Routes[r]; got != transport.Transport(want) {
				t.Errorf("kinds %v: rank %d routed by %v, want %v", tc.kinds, r, got, want)
			}
		}
		if tcpPeers != tc.tcpPeers || shmPeers != tc.shmPeers {
			t.Errorf("kinds %v: tcpPeers %v shmPeers %v, want %v %v", tc.kinds, tcpPeers, shmPeers, tc.tcpPeers, tc.shmPeers)
		}
	}
}

// TestOverTCP: Part.OverTCP says which ranks the routing table reaches
// over TCP (the engine sends them up to mpi.DefaultNetEagerLimit eagerly),
// and is nil where none is.
func TestOverTCP(t *testing.T) {
	local, sh := &nullTransport{}, &nullTransport{}
	p := &Part{tcp: &tcp.Transport{}}
	p.Routes, _, _ = routeTable(6, []int{0, 2, 4, 6}, []routeKind{routeLocal, routeShm, routeTCP}, local, sh, p.tcp)
	over := p.OverTCP()
	if over == nil {
		t.Fatal("OverTCP is nil with two ranks over TCP")
	}
	for r, want := range []bool{false, false, false, false, true, true} {
		if over(r) != want {
			t.Errorf("rank %d over TCP: %v, want %v", r, over(r), want)
		}
	}
	if over(-1) || over(6) {
		t.Error("a rank outside the job is over TCP")
	}
	p.Routes, _, _ = routeTable(4, []int{0, 2, 4}, []routeKind{routeLocal, routeShm}, local, sh, p.tcp)
	if p.OverTCP() != nil {
		t.Error("OverTCP is not nil with no rank over TCP")
	}
}

// nullTransport is a route that is never used.
type nullTransport struct{ _ int }

func (*nullTransport) Send(*transport.Frame) error { return nil }
func (*nullTransport) Close() error                { return nil }
