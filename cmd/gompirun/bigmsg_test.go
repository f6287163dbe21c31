package main

import (
	"strings"
	"testing"
)

// TestLargeMessageBetweenProcesses: a message of a few MiB, not a whole
// number of pages, crosses between two processes intact whichever way
// shared memory moves it: both ends copying half each (the default where
// the kernel allows it), the receiver reading it alone, or streamed
// through the ring. samples/bigmsg checks every byte.
func TestLargeMessageBetweenProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("runs three jobs")
	}
	bin := sample(t, "bigmsg")
	for _, env := range [][]string{nil, {"GOMPI_SHM_SPLIT=0"}, {"GOMPI_SHM_CMA=0"}} {
		r := gorun(t, env, "-np", "2", "-timeout", "60s", bin, "-size", "3158029")
		if r.code != 0 || !strings.Contains(r.stdout, "3158029 bytes in") {
			t.Errorf("%v: exit %d\nstdout: %s\nstderr: %s", env, r.code, r.stdout, r.stderr)
		}
	}
}
