package main

import (
	"os/exec"
	"regexp"
	"testing"
)

// The baseline runs as two processes and prints a one-way time.
func TestBaselineRuns(t *testing.T) {
	bin := t.TempDir() + "/tcpbaseline"
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "-iters", "200").CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !regexp.MustCompile(`one-way [0-9.]+ us`).Match(out) {
		t.Fatalf("unexpected output: %s", out)
	}
	out, err = exec.Command(bin, "-iters", "200", "-handoff").CombinedOutput()
	if err != nil || !regexp.MustCompile(`reader goroutine, 8 B: one-way [0-9.]+ us`).Match(out) {
		t.Fatalf("-handoff: %v\n%s", err, out)
	}
	if err := exec.Command(bin, "-iters", "0").Run(); err == nil {
		t.Fatal("-iters 0 accepted")
	}
}
