package main

import (
	"bytes"
	"fmt"
	"hash/crc32"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Jobs spanning hosts, on this machine: -launcher fork starts each other
// host's proxy here, the host names being mere labels (GOMPI_HOST), so
// processes of different "hosts" talk over TCP and the proxy protocol
// carries their output, input, signals and exits.

var (
	sampleMu   sync.Mutex
	sampleBins = map[string]string{}
)

// sample builds samples/name once per test binary.
func sample(t *testing.T, name string) string {
	t.Helper()
	sampleMu.Lock()
	defer sampleMu.Unlock()
	if bin, ok := sampleBins[name]; ok {
		return bin
	}
	bin := filepath.Join(filepath.Dir(gompirun), "sample-"+name)
	if out, err := exec.Command("go", "build", "-o", bin, "../../samples/"+name).CombinedOutput(); err != nil {
		t.Fatalf("building samples/%s: %v\n%s", name, err, out)
	}
	sampleBins[name] = bin
	return bin
}

func fork(args ...string) []string {
	return append([]string{"-launcher", "fork", "-timeout", "20s"}, args...)
}

func TestHostsSamples(t *testing.T) {
	// 5 processes over a:2, b, c:2; ranks 1 and 2, 2 and 3 ... cross hosts.
	hosts := []string{"-np", "5", "-hosts", "a:2,b,c:2"}
	r := gorun(t, nil, fork(append(hosts, sample(t, "ring"), "-laps", "4")...)...)
	if r.code != 0 || r.stdout != "ring: 4 laps over 5 ranks, token = 20\n" {
		t.Fatalf("ring: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}

	// The halo checksum does not depend on the number of ranks or hosts.
	checksum := regexp.MustCompile(`checksum (\S+),`)
	one := gorun(t, nil, "-np", "1", "-timeout", "20s", sample(t, "halo"), "-steps", "20")
	spread := gorun(t, nil, fork(append(hosts, sample(t, "halo"), "-steps", "20")...)...)
	want, got := checksum.FindStringSubmatch(one.stdout), checksum.FindStringSubmatch(spread.stdout)
	if one.code != 0 || spread.code != 0 || want == nil || got == nil || want[1] != got[1] {
		t.Fatalf("halo: one process %q (exit %d), three hosts %q (exit %d, stderr %q)",
			one.stdout, one.code, spread.stdout, spread.code, spread.stderr)
	}

	r = gorun(t, nil, fork(append(hosts, sample(t, "osu"), "-test", "allreduce", "-max", "64", "-iters", "20", "-warmup", "2")...)...)
	if r.code != 0 || !strings.Contains(r.stdout, "allreduce test, 5 ranks") || !regexp.MustCompile(`(?m)^64\s+\d`).MatchString(r.stdout) {
		t.Fatalf("osu allreduce: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

// TestHostsLocalAndForked mixes processes started directly (localhost) with
// processes of two forked "hosts", several ranks per process, and checks
// that -tag-output tags the lines that came through a proxy.
func TestHostsLocalAndForked(t *testing.T) {
	r := gorun(t, nil, fork("-np", "4", "-ranks", "7", "-tag-output", "-hosts", "localhost,b:2,c", jobProg)...)
	if r.code != 0 {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	// Blocks: 0 on localhost, 1-2 and 3-4 on b, 5-6 on c.
	for _, want := range []string{"[0] ok rank 0 of 7\n", "[1-2] ok rank 2 of 7\n", "[3-4] ok rank 3 of 7\n", "[5-6] ok rank 6 of 7\n"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("missing %q in\n%s", want, r.stdout)
		}
	}
}

// TestHostIdentity checks what GOMPI_HOST and GOMPI_HOST_NPROCS tell the
// processes: the host's name from the list, all of this machine's processes
// under one name whatever the list called it, and shared memory only where
// a host has more than one process.
func TestHostIdentity(t *testing.T) {
	r := gorun(t, nil, fork("-np", "5", "-hosts", "a,localhost,b:2,127.0.0.1", jobProg, "-mode", "where")...)
	wantRing(t, r, 5)
	want := map[string]string{"0": "a false", "1": "localhost true", "2": "b true", "3": "b true", "4": "localhost true"}
	line := regexp.MustCompile(`(?m)^where rank (\d) host (\S+) netns \S+ shm (\w+) `)
	got := map[string]string{}
	for _, m := range line.FindAllStringSubmatch(r.stdout, -1) {
		got[m[1]] = m[2] + " " + m[3]
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("rank: host, shm = %v, want %v; output:\n%s", got, want, r.stdout)
	}
}

func TestHostfile(t *testing.T) {
	f := filepath.Join(t.TempDir(), "hosts")
	os.WriteFile(f, []byte("# two labelled hosts\nnode-a slots=2\n\n  node-b:1   # the second\n"), 0o644)
	// Without -np: one process per slot.
	wantRing(t, gorun(t, nil, fork("-hostfile", f, jobProg)...), 3)
	// The proxies reach gompirun at the interface named.
	wantRing(t, gorun(t, nil, fork("-hostfile", f, "-iface", "lo", jobProg)...), 3)
}

// An -iface address that is not this machine's cannot be served (the
// exchange listens only where the proxies are told to reach it): the job
// ends with one line saying so.
func TestHostsExchangeUnreachable(t *testing.T) {
	// 192.0.2.0/24 is reserved for documentation: no machine has it.
	r := gorun(t, nil, fork("-hosts", "a,b", "-iface", "192.0.2.77", jobProg)...)
	if r.code != 1 || !strings.Contains(r.stderr, "cannot serve the exchange at 192.0.2.77") ||
		strings.Count(r.stderr, "\n") != 1 {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestHostsStdinReachesRemoteRankZero(t *testing.T) {
	out := outputWithInput(t, strings.NewReader("across hosts\n"), fork("-hosts", "b,a", "-tag-output", jobProg, "-mode", "stdin")...)
	if want := "[0] rank 0 read \"across hosts\\n\"\n"; out != want {
		t.Fatalf("output %q, want %q", out, want)
	}
}

// TestHostsLargeStdinReachesRemoteRankZero sends more input than the
// proxy may hold (inputWindow): it arrives whole, paced by the proxy's
// reports of input taken.
func TestHostsLargeStdinReachesRemoteRankZero(t *testing.T) {
	input := make([]byte, 5*inputWindow+12345)
	for i := range input {
		input[i] = byte(i * 7 / 5)
	}
	out := outputWithInput(t, bytes.NewReader(input), fork("-hosts", "b,a", jobProg, "-mode", "stdinsum")...)
	want := fmt.Sprintf("rank 0 read %d bytes, crc %08x\n", len(input), crc32.ChecksumIEEE(input))
	if out != want {
		t.Fatalf("output %q, want %q", out, want)
	}
}

func TestHostsRemoteRankKilled(t *testing.T) {
	began := time.Now()
	cmd, out, errb := start(t, nil, fork("-np", "4", "-hosts", "a:2,b:2", jobProg, "-mode", "stuck")...)
	pids := waitPids(t, out, 4)
	syscall.Kill(pids[2], syscall.SIGKILL)
	r := finish(t, cmd, out, errb, began)
	want := fmt.Sprintf("gompirun: rank 2 (pid %d on host b) was killed by signal 9 (killed)\n", pids[2])
	if r.code != 137 || r.stderr != want {
		t.Fatalf("exit %d, stderr %q; want 137 and %q", r.code, r.stderr, want)
	}
	noneLeft(t, pids)
}

func TestHostsRemoteRankFails(t *testing.T) {
	r := gorun(t, nil, fork("-np", "3", "-hosts", "a,b,c", jobProg, "-mode", "abort")...)
	if r.code != 7 || r.stderr != "gompirun: rank 1 called Abort(7)\n" {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	noneLeft(t, pidsOf(r.stdout))
}

// TestHostsProxyLost kills a proxy: its processes count as dead, and the
// job ends with a report of the lost contact (not by its -timeout, which
// would say so and exit 124).
func TestHostsProxyLost(t *testing.T) {
	began := time.Now()
	cmd, out, errb := start(t, nil, fork("-np", "4", "-hosts", "a:2,b:2", jobProg, "-mode", "stuck")...)
	pids := waitPids(t, out, 4)
	proxy := parentOf(t, pids[3])
	syscall.Kill(proxy, syscall.SIGKILL)
	r := finish(t, cmd, out, errb, began)
	if r.code != 1 || !strings.HasPrefix(r.stderr, "gompirun: ranks ") && !strings.HasPrefix(r.stderr, "gompirun: rank ") ||
		!strings.Contains(r.stderr, "lost contact with host b") || strings.Count(r.stderr, "\n") != 1 {
		t.Fatalf("exit %d, stderr %q; want 1 and one line of lost contact with host b", r.code, r.stderr)
	}
	noneLeft(t, pids)
	noneLeft(t, map[int]int{-1: proxy})
}

func TestHostsGompirunKilled(t *testing.T) {
	cmd, out, errb := start(t, nil, "-np", "4", "-hosts", "a:2,b,c", "-launcher", "fork", jobProg, "-mode", "stuck")
	pids := waitPids(t, out, 4)
	proxies := map[int]int{}
	for rank, pid := range pids {
		proxies[-1-rank] = parentOf(t, pid)
	}
	cmd.Process.Kill()
	finish(t, cmd, out, errb, time.Now())
	noneLeft(t, pids)
	noneLeft(t, proxies)
}

// A launcher that cannot start the proxy fails the job with one line.
func TestHostsLauncherFails(t *testing.T) {
	r := gorun(t, nil, "-np", "2", "-hosts", "a,b", "-launcher", "false", "-timeout", "20s", jobProg)
	if r.code != 1 || !strings.Contains(r.stderr, "lost contact with host a") || strings.Count(r.stderr, "\n") != 1 {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	r = gorun(t, nil, "-np", "2", "-hosts", "a,b", "-launcher", "no-such-launcher-gompi", "-timeout", "20s", jobProg)
	if r.code != 1 || !strings.Contains(r.stderr, "cannot start the launcher for host a") || strings.Count(r.stderr, "\n") != 1 {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestHostsUsageErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad")
	os.WriteFile(bad, []byte("a\nb slots=zero\n"), 0o644)
	empty := filepath.Join(dir, "empty")
	os.WriteFile(empty, []byte("# nothing\n\n"), 0o644)
	cases := [][]string{
		{"-hosts", "a,,b", jobProg},
		{"-hosts", "a:0", jobProg},
		{"-hosts", "a:x", jobProg},
		{"-hosts", "a;rm", jobProg},
		{"-hostfile", filepath.Join(dir, "missing"), jobProg},
		{"-hostfile", bad, jobProg},
		{"-hostfile", empty, jobProg},
		{"-hosts", "a", "-hostfile", bad, jobProg},
		{"-hosts", "a", "-launcher", " ", jobProg},
		{"-iface", "eth0", jobProg},
	}
	for _, args := range cases {
		r := gorun(t, nil, args...)
		if r.code != 2 || strings.Count(r.stderr, "\n") != 1 || !strings.HasPrefix(r.stderr, "gompirun: ") {
			t.Errorf("gompirun %v: exit %d, stderr %q; want exit 2 and one line", args, r.code, r.stderr)
		}
	}
	if r := gorun(t, nil, "-hostfile", bad, jobProg); !strings.Contains(r.stderr, bad+":2:") {
		t.Errorf("bad host file: %q does not name the line", r.stderr)
	}
}

// parentOf is pid's parent process id, from /proc.
func parentOf(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	ppid, err := strconv.Atoi(f[1])
	if err != nil {
		t.Fatalf("/proc/%d/stat: %q", pid, s)
	}
	return ppid
}

// Signals reach the processes on other hosts through their proxies, and
// -timeout ends them too.
func TestHostsInterruptAndTimeout(t *testing.T) {
	began := time.Now()
	cmd, out, errb := start(t, nil, "-np", "3", "-hosts", "a,b:2", "-launcher", "fork", jobProg, "-mode", "stuck")
	pids := waitPids(t, out, 3)
	cmd.Process.Signal(syscall.SIGINT)
	r := finish(t, cmd, out, errb, began)
	if r.code != 130 || r.stderr != "gompirun: received interrupt; stopping the job\n" {
		t.Fatalf("exit %d, stderr %q; want 130 and the signal named", r.code, r.stderr)
	}
	noneLeft(t, pids)

	r = gorun(t, nil, "-np", "3", "-hosts", "a,b:2", "-launcher", "fork", "-timeout", "3s", jobProg, "-mode", "stuck")
	want := "gompirun: job timed out after 3s; its ranks were:\n" +
		"  rank 0 not blocked in MPI (computing, polling or between waits)\n" +
		"  rank 1 in Recv from 0 tag 99\n  rank 2 in Recv from 0 tag 99\n"
	if r.code != 124 || r.stderr != want {
		t.Fatalf("exit %d, stderr %q; want 124 and %q", r.code, r.stderr, want)
	}
	noneLeft(t, pidsOf(r.stdout))
}

// TestHostsDefaultLauncherIsSsh runs the default launcher against a stand-in
// ssh that, like the real one, joins its command words into one line for
// the remote shell: the proxy's path, with a space and a quote in it
// (GOMPIRUN_PROXY), must survive the trip.
func TestHostsDefaultLauncherIsSsh(t *testing.T) {
	dir := t.TempDir()
	fake := "#!/bin/sh\n" +
		"while [ $# -gt 0 ]; do case \"$1\" in -o) shift 2;; -*) shift;; *) break;; esac; done\n" +
		"echo \"$1\" >> \"$FAKE_SSH_LOG\"; shift\n" +
		"exec sh -c \"$*\"\n"
	if err := os.WriteFile(filepath.Join(dir, "ssh"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	odd := filepath.Join(dir, "a b'c")
	os.Mkdir(odd, 0o755)
	self, err := os.ReadFile(gompirun)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(odd, "gompirun"), self, 0o755); err != nil {
		t.Fatal(err)
	}
	logf := filepath.Join(dir, "log")
	env := []string{"PATH=" + dir + ":" + os.Getenv("PATH"), "FAKE_SSH_LOG=" + logf,
		EnvProxyExe + "=" + filepath.Join(odd, "gompirun")}
	wantRing(t, gorun(t, env, "-np", "3", "-hosts", "node-a,node-b:2", "-timeout", "20s", jobProg), 3)
	if b, _ := os.ReadFile(logf); string(b) != "node-a\nnode-b\n" && string(b) != "node-b\nnode-a\n" {
		t.Fatalf("ssh was run for %q, want node-a and node-b once each", b)
	}
}

// A virtual-time prediction does not depend on where the processes ran.
func TestHostsVirtual(t *testing.T) {
	predicted := regexp.MustCompile(`predicted time .*`)
	args := []string{"-virtual", "8", "-cpu-scale", "0", sample(t, "ring")}
	here := gorun(t, nil, append([]string{"-np", "2", "-timeout", "20s"}, args...)...)
	spread := gorun(t, nil, fork(append([]string{"-hosts", "a,b"}, args...)...)...)
	p, q := predicted.FindString(here.stderr), predicted.FindString(spread.stderr)
	if here.code != 0 || spread.code != 0 || p == "" || p != q {
		t.Fatalf("one host: exit %d %q; two: exit %d %q\n%s", here.code, p, spread.code, q, spread.stderr)
	}
}

// A launcher that never connects is bounded by -timeout, and killed.
func TestHostsLauncherHangs(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	hang := filepath.Join(dir, "hang")
	os.WriteFile(hang, []byte("#!/bin/sh\necho $$ > "+pidFile+"\nexec sleep 60\n"), 0o755)
	r := gorun(t, nil, "-np", "2", "-hosts", "a,b", "-launcher", hang, "-timeout", "1s", jobProg)
	if r.code != 124 || r.stderr != "gompirun: job timed out after 1s while starting the proxies\n" {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	b, err := os.ReadFile(pidFile)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid == 0 {
		t.Fatalf("the launcher did not run: %v", err)
	}
	noneLeft(t, map[int]int{-1: pid})
}

// A launcher whose remote side writes to standard output before the proxy
// (a chatty login script) garbles the protocol: the job fails with one line
// that says so instead of hanging.
func TestHostsGarbledProxyOutput(t *testing.T) {
	chatty := filepath.Join(t.TempDir(), "chatty")
	os.WriteFile(chatty, []byte("#!/bin/sh\necho 'Welcome to '\"$1\"\nshift\nexec \"$@\"\n"), 0o755)
	r := gorun(t, nil, "-np", "2", "-hosts", "a,b", "-launcher", chatty, "-timeout", "20s", jobProg)
	if r.code != 1 || !strings.Contains(r.stderr, "lost contact with host a: unreadable message from its proxy") ||
		strings.Count(r.stderr, "\n") != 1 {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
}

// What a launcher writes to standard error as it ends (ssh's last
// complaints, say) still reaches gompirun's standard error.
func TestHostsLauncherLastWordsAreKept(t *testing.T) {
	talker := filepath.Join(t.TempDir(), "talker")
	os.WriteFile(talker, []byte("#!/bin/sh\nhost=$1\nshift\n\"$@\"\nst=$?\nsleep 0.2\necho \"launcher for $host ends\" >&2\nexit $st\n"), 0o755)
	r := gorun(t, nil, "-np", "2", "-hosts", "a,b", "-launcher", talker, "-timeout", "20s", jobProg)
	wantRing(t, r, 2)
	for _, h := range []string{"a", "b"} {
		if !strings.Contains(r.stderr, "launcher for "+h+" ends\n") {
			t.Errorf("stderr lacks host %s's launcher's last line: %q", h, r.stderr)
		}
	}
}
