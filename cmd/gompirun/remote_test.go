package main

import (
	"net"
	"reflect"
	"testing"
)

func TestLauncherArgs(t *testing.T) {
	cases := []struct {
		launcher, host, exe string
		want                []string
	}{
		{"ssh", "node2", "/opt/bin/gompirun",
			[]string{"ssh", "-x", "-o", "BatchMode=yes", "node2", "/opt/bin/gompirun", proxyArg}},
		// ssh hands its words to the remote shell: quote the path.
		{"ssh", "node2", "/home/a b/it's/gompirun",
			[]string{"ssh", "-x", "-o", "BatchMode=yes", "node2", `'/home/a b/it'\''s/gompirun'`, proxyArg}},
		{"fork", "b", "/x/gompirun", []string{"/x/gompirun", proxyArg}},
		{"ip netns exec", "ns1", "/x/gompirun", []string{"ip", "netns", "exec", "ns1", "/x/gompirun", proxyArg}},
		{"  rsh  -l me ", "n", "/g", []string{"rsh", "-l", "me", "n", "/g", proxyArg}},
	}
	for _, c := range cases {
		if got := launcherArgs(c.launcher, c.host, c.exe); !reflect.DeepEqual(got, c.want) {
			t.Errorf("launcherArgs(%q, %q, %q) = %q, want %q", c.launcher, c.host, c.exe, got, c.want)
		}
	}
}

func TestExchangeAddrs(t *testing.T) {
	addrs, err := exchangeAddrs("")
	if err != nil {
		t.Fatal(err)
	}
	if len(addrs) == 0 || addrs[len(addrs)-1] != "127.0.0.1" {
		t.Fatalf("exchangeAddrs() = %v, want loopback last", addrs)
	}
	for _, a := range addrs[:len(addrs)-1] {
		if ip := net.ParseIP(a); ip == nil || !ip.IsGlobalUnicast() {
			t.Errorf("candidate %q is not a global unicast address", a)
		}
	}
	if got, err := exchangeAddrs("10.1.2.3"); err != nil || !reflect.DeepEqual(got, []string{"10.1.2.3"}) {
		t.Errorf("exchangeAddrs(10.1.2.3) = %v, %v", got, err)
	}
	if got, err := exchangeAddrs("lo"); err != nil || len(got) == 0 || got[0] != "127.0.0.1" {
		t.Errorf("exchangeAddrs(lo) = %v, %v; want 127.0.0.1 first", got, err)
	}
	if _, err := exchangeAddrs("no-such-if0"); err == nil {
		t.Error("exchangeAddrs(no-such-if0): no error")
	}
}
