package main

import "testing"

// TestP2PExtraAcrossProcesses runs persistent requests, matched probes,
// Isendrecv, buffered sends, SplitType and CreateGroup between processes
// over TCP and shared memory, with several ranks a process, and in a
// prediction spread over processes.
func TestP2PExtraAcrossProcesses(t *testing.T) {
	for _, c := range []struct {
		env []string
		np  []string
	}{
		{tcp, []string{"-np", "3"}},
		{nil, []string{"-np", "3"}},
		{tcp, []string{"-np", "2", "-ranks", "5"}},
		// A prediction over two processes: 6 ranks, one target node.
		{nil, []string{"-np", "2", "-virtual", "6"}},
	} {
		args := append(append([]string{}, c.np...), "-timeout", "25s", jobProg, "-mode", "p2pextra")
		n := 3
		if len(c.np) > 2 {
			n = map[string]int{"-ranks": 5, "-virtual": 6}[c.np[2]]
		}
		wantRing(t, gorun(t, c.env, args...), n)
	}
}
