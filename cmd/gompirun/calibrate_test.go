package main

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/gompi/gompi/mpi"
	"github.com/gompi/gompi/transport/shm"
	"github.com/gompi/gompi/vtime"
)

// calibrateRun runs gompirun -calibrate with few repetitions. This host is
// shared and loaded: a fit may reject what a preempted run measured
// ("vtime: calibration: ..."), so such a run is repeated, twice at most;
// any other failure fails the test.
func calibrateRun(t *testing.T, args ...string) result {
	t.Helper()
	var r result
	for try := 0; try < 3; try++ {
		r = gorun(t, nil, append([]string{"-calibrate-quick"}, args...)...)
		if r.code == 0 || !strings.Contains(r.stderr, "gompirun: -calibrate: vtime: calibration:") {
			break
		}
		t.Logf("the fit rejected the measurements, again: %s", r.stderr)
	}
	if r.code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	return r
}

// wantFits checks that stderr shows the fits with their residuals, not
// what the numbers are.
func wantFits(t *testing.T, stderr string, fits ...string) {
	t.Helper()
	for _, want := range append(fits, "fit (relative residuals)", "rms", "max", "contention", "(written)") {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}

func TestCalibrateOneHost(t *testing.T) {
	file := filepath.Join(t.TempDir(), "machine.json")
	r := calibrateRun(t, "-timeout", "20s", "-calibrate", file)
	wantFits(t, r.stderr, "shared memory model", "shared memory, eager line", "shared memory, rendezvous line", "one host: no network measured")
	if r.stdout != "" {
		t.Errorf("stdout %q, want nothing (the ranks' output is gompirun's)", r.stdout)
	}
	m, err := vtime.LoadMachine(file)
	if err != nil {
		t.Fatal(err)
	}
	if m.CoresPerNode != runtime.NumCPU() || len(m.Contention) != m.CoresPerNode || m.Contention[0] != 1 ||
		m.EagerLimit == nil || *m.EagerLimit != mpi.DefaultRemoteEagerLimit || m.NetEagerLimit == nil || *m.NetEagerLimit != mpi.DefaultNetEagerLimit || !strings.HasPrefix(m.Name, "calibrated-") ||
		len(m.Levels) != 1 || m.Levels[0].Size != 1 || m.Overhead.B != 0 {
		t.Errorf("machine:\n%s", m.JSON())
	}
}

// TestCalibrateTwoHosts: with -launcher fork two "hosts" of this machine
// talk over TCP, and a network level is fitted.
func TestCalibrateTwoHosts(t *testing.T) {
	r := calibrateRun(t, fork("-calibrate", "-", "-contention-kernel", "memory", "-hosts", "a,b")...)
	wantFits(t, r.stderr, "shared memory model", "network model", "network, eager line", "network, rendezvous line")
	m, err := vtime.ParseMachine([]byte(r.stdout))
	if err != nil {
		t.Fatalf("%v; stdout:\n%s", err, r.stdout)
	}
	if lv := m.Levels; len(lv) != 1 || lv[0].Kind != "star" || lv[0].Size != 0 || lv[0].LH != 0 || !(lv[0].Bandwidth > 0) {
		t.Errorf("network level %+v", lv)
	}
	// Forked "hosts" share this machine's cores: nodes of half of them.
	if want := max(1, runtime.NumCPU()/2); m.CoresPerNode != want {
		t.Errorf("cores_per_node %d for two hosts on one machine, want %d", m.CoresPerNode, want)
	}
	if !strings.Contains(r.stderr, "memory ") || !strings.Contains(r.stderr, "(written)") {
		t.Errorf("stderr:\n%s", r.stderr)
	}
}

func TestCalibrateUsage(t *testing.T) {
	for _, tc := range []struct {
		env  []string
		args []string
		want string
	}{
		{nil, []string{"-calibrate", "-", jobProg}, "no PROGRAM"},
		{nil, []string{"-calibrate", "-", "-np", "3"}, "two processes"},
		{nil, []string{"-calibrate", "-", "-virtual", "4"}, "not with -ranks, -virtual"},
		{nil, []string{"-calibrate", "-", "-contention-kernel", "fast"}, "-contention-kernel \"fast\""},
		{nil, []string{"-contention-kernel", "memory", jobProg}, "needs -calibrate"},
		{nil, []string{"-calibrate", ""}, "empty file name"},
		{tcp, []string{"-calibrate", "-"}, "unset GOMPI_TRANSPORT=tcp"},
	} {
		r := gorun(t, tc.env, tc.args...)
		if r.code != 2 || !strings.Contains(r.stderr, tc.want) || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
	if _, err := os.Stat("-"); err == nil {
		t.Error("a file named - was written")
	}
}

// TestCalibrationCopiesOnce: the calibration's jobs run with shared
// memory's split copies off, so that its ping-pong measures a payload
// copied once, by its receiver, as the model charges it.
func TestCalibrationCopiesOnce(t *testing.T) {
	for _, cl := range []*calibration{{phase: "shm"}, {phase: "net", quick: true}} {
		if env := cl.env(); !slices.Contains(env, shm.SplitEnv+"=0") {
			t.Errorf("%s calibration's environment %q: split copies not off", cl.phase, env)
		}
	}
}
