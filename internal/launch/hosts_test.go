package launch

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

func TestParseHosts(t *testing.T) {
	good := map[string][]Host{
		"a":                  {{Name: "a", Slots: 1}},
		"a,b:2,c":            {{Name: "a", Slots: 1}, {Name: "b", Slots: 2}, {Name: "c", Slots: 1}},
		" node1:4 , node2 ":  {{Name: "node1", Slots: 4}, {Name: "node2", Slots: 1}},
		"10.0.0.1:3":         {{Name: "10.0.0.1", Slots: 3}},
		"[fe80::1]:2,[::1]":  {{Name: "fe80::1", Slots: 2}, {Name: "::1", Slots: 1}},
		"fd00::2":            {{Name: "fd00::2", Slots: 1}}, // bare IPv6: no slots
		"a.example.org:16,a": {{Name: "a.example.org", Slots: 16}, {Name: "a", Slots: 1}},
	}
	for in, want := range good {
		got, err := ParseHosts(in)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("ParseHosts(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", ",", "a,,b", "a:", ":2", "a:0", "a:-1", "a:x", "[::1", "[::1]x", "a b", "a;b", "$(x)"} {
		if got, err := ParseHosts(in); err == nil {
			t.Errorf("ParseHosts(%q) = %v, want an error", in, got)
		}
	}
}

func TestParseHostfile(t *testing.T) {
	text := `# cluster
node1 slots=4
node2:2   # MPICH style

  node3
node4 slots=1 # trailing comment
node5 max_slots=3 slots=2
`
	got, err := parseHostfile(strings.NewReader(text), "hf")
	want := []Host{{Name: "node1", Slots: 4}, {Name: "node2", Slots: 2}, {Name: "node3", Slots: 1}, {Name: "node4", Slots: 1}, {Name: "node5", Slots: 2, MaxSlots: 3}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, %v; want %v", got, err, want)
	}
	bad := map[string]string{
		"a\nb slots=0\n":          "hf:2:",
		"a\nb c\n":                "hf:2:",
		"a slots=2 extra\n":       "hf:1:",
		"a slots=\n":              "hf:1:",
		"# only comments\n\n":     "no hosts",
		"a:b:c\n":                 "hf:1:",
		"a slots=2 max_slots=1\n": "hf:1:",
		"a slots=2 slots=3\n":     "hf:1:",
		"a max_slots=x\n":         "hf:1:",
	}
	for in, msg := range bad {
		if _, err := parseHostfile(strings.NewReader(in), "hf"); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("host file %q: error %v, want one containing %q", in, err, msg)
		}
	}
	if _, err := ReadHostfile("testdata-no-such-file"); err == nil {
		t.Error("missing host file: no error")
	}
}

func TestAssignHosts(t *testing.T) {
	hosts := []Host{{Name: "a", Slots: 2}, {Name: "b", Slots: 1}, {Name: "c", Slots: 3}}
	cases := map[int][]int{
		1:  {0},
		3:  {0, 0, 1},
		6:  {0, 0, 1, 2, 2, 2},
		8:  {0, 0, 1, 2, 2, 2, 0, 0}, // cycles over the list again
		13: {0, 0, 1, 2, 2, 2, 0, 0, 1, 2, 2, 2, 0},
	}
	for np, want := range cases {
		if got, err := AssignHosts(hosts, np); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("AssignHosts(%d) = %v, want %v", np, got, want)
		}
	}
	// max_slots caps a host across passes; too few places is an error.
	capped := []Host{{Name: "a", Slots: 2, MaxSlots: 3}, {Name: "b", Slots: 1, MaxSlots: 1}}
	if got, err := AssignHosts(capped, 4); err != nil || !reflect.DeepEqual(got, []int{0, 0, 1, 0}) {
		t.Errorf("AssignHosts(capped, 4) = %v, %v", got, err)
	}
	if got, err := AssignHosts(capped, 5); err == nil {
		t.Errorf("AssignHosts(capped, 5) = %v, want an error (4 places)", got)
	}
	if n := TotalSlots(hosts); n != 6 {
		t.Errorf("TotalSlots = %d, want 6", n)
	}
	// Rank blocks stay contiguous per process whatever the hosts: 7 ranks
	// over 3 processes on a:2,b:1 put ranks 0-3 on a and 4-6 on b.
	at, _ := AssignHosts([]Host{{Name: "a", Slots: 2}, {Name: "b", Slots: 1}}, 3)
	bases := Placement(7, 3)
	if !reflect.DeepEqual(at, []int{0, 0, 1}) || !reflect.DeepEqual(bases, []int{0, 2, 4, 7}) {
		t.Errorf("placement %v, hosts %v", bases, at)
	}
}

func TestIsThisHost(t *testing.T) {
	me, _ := os.Hostname()
	for _, h := range []string{"localhost", "127.0.0.1", "127.0.1.1", "::1", me} {
		if !IsThisHost(h) {
			t.Errorf("IsThisHost(%q) = false", h)
		}
	}
	for _, h := range []string{"a", "10.1.2.3", me + "-other", "node7"} {
		if h != "" && IsThisHost(h) {
			t.Errorf("IsThisHost(%q) = true", h)
		}
	}
}

func TestExchangeAddr(t *testing.T) {
	cases := map[string][2]string{
		"/tmp/x/exchange.sock":  {"unix", "/tmp/x/exchange.sock"},
		"unix:/tmp/x/ex.sock":   {"unix", "/tmp/x/ex.sock"},
		"tcp:10.0.0.1:4000":     {"tcp", "10.0.0.1:4000"},
		"tcp:[fd00::1]:4000":    {"tcp", "[fd00::1]:4000"},
		"relative/exchange.soc": {"unix", "relative/exchange.soc"},
	}
	for in, want := range cases {
		if n, a := exchangeAddr(in); n != want[0] || a != want[1] {
			t.Errorf("exchangeAddr(%q) = %s %s, want %s %s", in, n, a, want[0], want[1])
		}
	}
}
