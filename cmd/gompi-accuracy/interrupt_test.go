package main

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestInterruptRemovesNetwork stops the harness with SIGINT in the middle
// of a network case and checks that it exits with 130 and leaves neither
// namespaces nor bridge behind. Needs root, ip(8) and tc(8) with htb;
// skipped where the harness cannot build its network.
func TestInterruptRemovesNetwork(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the harness and runs kernels")
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root to create network namespaces")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	exe := filepath.Join(t.TempDir(), "gompi-accuracy")
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", exe, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.CommandContext(ctx, exe, "-class", "S", "-kernels", "ep", "-runs", "1000", "-cases", "net-1gbit-2core",
		"-rates", "1gbit", "-net-machine", "1gbit=tianhe1a", "-timeout", "60s")
	var stdout strings.Builder
	cmd.Stdout = &stdout
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var log []string
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		line := sc.Text()
		log = append(log, line)
		if strings.Contains(line, "network cases skipped") {
			cmd.Process.Kill()
			cmd.Wait()
			t.Skip(line)
		}
		if strings.Contains(line, " real 1/1000: ") {
			cmd.Process.Signal(syscall.SIGINT)
			break
		}
	}
	for sc.Scan() {
		log = append(log, sc.Text())
	}
	err = cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 130 {
		t.Errorf("harness ended with %v, want exit status 130; stderr:\n%s", err, strings.Join(log, "\n"))
	}
	m := regexp.MustCompile(`ip link add (ga[0-9a-f]{6}br) type bridge`).FindStringSubmatch(stdout.String())
	if m == nil {
		t.Fatalf("no bridge in the report:\n%s", stdout.String())
	}
	id := strings.TrimSuffix(strings.TrimPrefix(m[1], "ga"), "br")
	netns, _ := exec.Command("ip", "netns", "list").Output()
	if strings.Contains(string(netns), "gompi-acc-"+id) {
		t.Errorf("namespaces left behind:\n%s", netns)
	}
	if exec.Command("ip", "link", "show", m[1]).Run() == nil {
		t.Errorf("bridge %s left behind", m[1])
	}
}
