package wireup

import "testing"

// TestLateTCPDecision: on one host, processes whose shared memory reaches
// every peer publish no TCP address; when one process has no shared
// memory, the others need TCP to it and must listen late (and only
// those that need it).
func TestLateTCPDecision(t *testing.T) {
	shm := procInfo{host: "h", shm: true}
	noShm := procInfo{host: "h", tcpAddr: "127.0.0.1:1"}
	if procs := []procInfo{shm, shm, shm}; lateTCP(procs) || tcpNeeded(procs, 0) {
		t.Fatal("a shared-memory job wants TCP")
	}
	procs := []procInfo{shm, noShm, shm}
	if !lateTCP(procs) {
		t.Fatal("peers of a process without shared memory do not listen")
	}
	for p := range procs {
		if !tcpNeeded(procs, p) {
			t.Errorf("process %d does not need TCP, but process 1 has no shared memory", p)
		}
	}
	other := procInfo{host: "g", shm: true, tcpAddr: "10.0.0.2:1"}
	if procs := []procInfo{shm, shm, other}; !tcpNeeded(procs, 0) || !lateTCP(procs) {
		t.Error("processes on another host are reached without TCP")
	}
}
