package main

import (
	"regexp"
	"testing"
)

var listensLine = regexp.MustCompile(`(?m)^where rank (\d) host \S* netns \S+ shm (\w+) listens (\S*) tcp-peers`)

// listens returns what each rank of a "where" job listens at over TCP
// (the job program reads its own sockets from /proc), by rank, and
// whether it opened shared memory.
func listens(t *testing.T, stdout string, n int) (at map[string]string, shm map[string]string) {
	t.Helper()
	at, shm = map[string]string{}, map[string]string{}
	for _, m := range listensLine.FindAllStringSubmatch(stdout, -1) {
		at[m[1]], shm[m[1]] = m[3], m[2]
	}
	if len(at) != n {
		t.Fatalf("%d ranks reported their sockets, want %d; output:\n%s", len(at), n, stdout)
	}
	return at, shm
}

// TestSharedMemoryJobOpensNoTCPPort: a job whose processes all reach each
// other by shared memory listens on no TCP port (it used to listen on
// loopback in every process, unused).
func TestSharedMemoryJobOpensNoTCPPort(t *testing.T) {
	r := gorun(t, nil, "-np", "3", "-timeout", "20s", jobProg, "-mode", "where")
	wantRing(t, r, 3)
	at, shm := listens(t, r.stdout, 3)
	for rank, a := range at {
		if shm[rank] != "true" {
			t.Skipf("rank %s has no shared memory here: nothing to check", rank)
		}
		if a != "" {
			t.Errorf("rank %s listens at %s in a shared-memory job", rank, a)
		}
	}
}

// TestForcedTCPStillListens: GOMPI_TRANSPORT=tcp listens (on loopback).
func TestForcedTCPStillListens(t *testing.T) {
	r := gorun(t, tcp, "-np", "2", "-timeout", "20s", jobProg, "-mode", "where")
	wantRing(t, r, 2)
	at, _ := listens(t, r.stdout, 2)
	for rank, a := range at {
		if a != "127.0.0.1" {
			t.Errorf("rank %s listens at %q, want 127.0.0.1", rank, a)
		}
	}
}

// TestHostsListenOnlyWhereReached: in a job spanning hosts with -iface,
// every rank listens at the address it reaches gompirun from (and
// publishes), not on every interface as it used to.
func TestHostsListenOnlyWhereReached(t *testing.T) {
	r := gorun(t, nil, fork("-np", "3", "-hosts", "a,b:2", "-iface", "127.0.0.1", jobProg, "-mode", "where")...)
	wantRing(t, r, 3)
	at, _ := listens(t, r.stdout, 3)
	for rank, a := range at {
		if a != "127.0.0.1" {
			t.Errorf("rank %s listens at %q, want 127.0.0.1 only", rank, a)
		}
	}
}
