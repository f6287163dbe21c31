package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestGompirunKilledLeavesNothing: kill -9 of gompirun once the job runs
// leaves neither the job's segments in /dev/shm nor the exchange's socket
// and directory (they stayed for ever).
func TestGompirunKilledLeavesNothing(t *testing.T) {
	tmp := t.TempDir()
	cmd, out, errb := start(t, []string{"TMPDIR=" + tmp}, "-np", "3", jobProg, "-mode", "hang")
	pids := waitPids(t, out, 3)
	job := jobOf(t, pids[0])
	cmd.Process.Kill()
	finish(t, cmd, out, errb, time.Now())
	noneLeft(t, pids)
	if segs, _ := filepath.Glob("/dev/shm/gompi-" + job + "-*"); len(segs) > 0 {
		t.Errorf("segments left in /dev/shm: %v", segs)
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "*")); len(left) > 0 {
		t.Errorf("left in gompirun's temporary directory: %v", left)
	}
}

// jobOf reads the job id from the environment of process pid.
func jobOf(t *testing.T, pid int) string {
	t.Helper()
	env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		t.Skipf("cannot read a rank's environment: %v", err)
	}
	for _, kv := range bytes.Split(env, []byte{0}) {
		if v, ok := strings.CutPrefix(string(kv), "GOMPI_JOB="); ok {
			return v
		}
	}
	t.Fatalf("process %d has no GOMPI_JOB", pid)
	return ""
}

// TestStaleLeftoversRemovedAtStart: what a gompirun killed during start-up
// left (an exchange directory named after its dead process, a segment
// whose owner is gone) is removed when the next one starts.
func TestStaleLeftoversRemovedAtStart(t *testing.T) {
	tmp := t.TempDir()
	dead := deadPid(t)
	stale := filepath.Join(tmp, "gompirun-"+strconv.Itoa(dead)+"-123")
	live := filepath.Join(tmp, "gompirun-"+strconv.Itoa(os.Getpid())+"-456")
	other := filepath.Join(tmp, "gompirun-test-789")
	for _, d := range []string{stale, live, other} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(stale, "exchange.sock"), nil, 0o600)
	seg := "/dev/shm/gompi-staletest" + strconv.Itoa(os.Getpid()) + "-0.shm"
	hdr := make([]byte, 4096)
	copy(hdr, []byte{0x67, 0x6f, 0x6d, 0x70, 0x69, 0x73, 0x6d, 0x32}) // "gompism2"
	hdr[12], hdr[13], hdr[14], hdr[15] = byte(dead), byte(dead>>8), byte(dead>>16), byte(dead>>24)
	if err := os.WriteFile(seg, hdr, 0o600); err != nil {
		t.Skipf("cannot write to /dev/shm: %v", err)
	}
	defer os.Remove(seg)
	wantRing(t, gorun(t, []string{"TMPDIR=" + tmp}, "-np", "2", "-timeout", "20s", jobProg), 2)
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the dead gompirun's directory is still there (%v)", err)
	}
	if _, err := os.Stat(seg); !os.IsNotExist(err) {
		t.Errorf("the dead process's segment is still there (%v)", err)
	}
	for _, d := range []string{live, other} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("removed %s, which is not stale: %v", d, err)
		}
	}
}

// deadPid returns the id of a process that has exited and been reaped.
func deadPid(t *testing.T) int {
	t.Helper()
	p, err := os.StartProcess(jobProg, []string{jobProg, "-mode", "none"}, &os.ProcAttr{})
	if err != nil {
		t.Fatal(err)
	}
	p.Wait()
	return p.Pid
}

// smallHost is a host with 64 MiB of memory available and 32 MiB free in
// /dev/shm.
func smallHost(t *testing.T) {
	saved := hostCapacity
	hostCapacity = func() (capacity, bool) { return capacity{memory: 64 << 20, shm: 32 << 20}, true }
	t.Cleanup(func() { hostCapacity = saved })
}

// TestHostTooSmallIsRefused: before anything starts, a job that does not
// fit the host is refused in one line saying what it needs and what there
// is (-np 10000 once started until the host gave out).
func TestHostTooSmallIsRefused(t *testing.T) {
	smallHost(t)
	err := hostFits("this host", 10, true)
	want := "10 processes need about 130.2 MiB of memory on this host (8.0 MiB each and 50.2 MiB of shared memory); it has 64.0 MiB available and 32.0 MiB free in /dev/shm"
	if err == nil || err.Error() != want {
		t.Fatalf("hostFits(10 processes) = %v, want %q", err, want)
	}
	if err := hostFits("this host", 4, true); err != nil {
		t.Fatalf("4 processes do not fit 64 MiB: %v", err)
	}
	if err := hostFits("host b", 9, false); err == nil || !strings.Contains(err.Error(), "of memory on host b (8.0 MiB each and 0 B of shared memory)") {
		t.Fatalf("9 processes without shared memory: %v", err)
	}

	// The whole of gompirun: nothing starts, not even the exchange.
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	o, err := parse([]string{"-np", "10", "-timeout", "20s", jobProg})
	if err != nil {
		t.Fatal(err)
	}
	if code := run(o, jobProg); code != 2 {
		t.Fatalf("gompirun -np 10 on a small host: exit %d, want 2", code)
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "*")); len(left) > 0 {
		t.Errorf("a refused job left %v", left)
	}
}

// TestSignalDuringStartUp: SIGTERM while processes start stops the
// start-up at once; those already started are stopped and nothing is left.
func TestSignalDuringStartUp(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	o, err := parse([]string{"-np", "6", "-timeout", "20s", jobProg, "-mode", "hang"})
	if err != nil {
		t.Fatal(err)
	}
	pids := map[int]int{}
	last := -1
	startingProcess = func(j *job, i int) {
		last = i
		if i == 3 {
			for _, p := range j.procs[:i] {
				pids[p.idx] = p.cmd.Process.Pid
			}
			signals() <- syscall.SIGTERM // as the kernel would deliver it
		}
	}
	defer func() { startingProcess = nil }()
	code := make(chan int, 1)
	go func() { code <- run(o, jobProg) }()
	select {
	case c := <-code:
		if c != 128+int(syscall.SIGTERM) {
			t.Errorf("exit %d, want %d", c, 128+int(syscall.SIGTERM))
		}
	case <-time.After(30 * time.Second):
		t.Fatal("gompirun did not stop within 30s of SIGTERM during start-up")
	}
	if last != 3 || len(pids) != 3 {
		t.Errorf("start-up went on to process %d after SIGTERM before process 3", last)
	}
	noneLeft(t, pids)
	if left, _ := filepath.Glob(filepath.Join(tmp, "*")); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
}
