package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gompi/gompi/vtime"
)

// TestEndToEnd runs the harness itself on the smallest measurement: EP
// class S, one real run and one prediction over shared memory, on a
// machine file written from a preset. It checks that a table with that
// row comes out and the CSV has both runs, not what the figures are.
func TestEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds gompirun and runs a kernel")
	}
	dir := t.TempDir()
	m, err := vtime.Preset("tianhe1a")
	if err != nil {
		t.Fatal(err)
	}
	machine, csvPath := filepath.Join(dir, "machine.json"), filepath.Join(dir, "runs.csv")
	if err := os.WriteFile(machine, m.JSON(), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	code := run(ctx, []string{"-class", "S", "-runs", "1", "-kernels", "ep", "-cases", "shm-2core",
		"-machine", machine, "-timeout", "90s", "-o", csvPath}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit status %d\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
	row := regexp.MustCompile(`(?m)^shm-2core +EP +\d+\.\d\d\d? +\d+\.\d\d\d? +\S+ +\S+-\S+ +\S+-\S+$`)
	if !row.MatchString(stdout.String()) || !strings.Contains(stdout.String(), "-machine "+machine) {
		t.Errorf("no shm-2core EP row, or no command naming the machine file, in:\n%s", stdout.String())
	}
	data, err := os.ReadFile(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[1], "shm-2core,ep,S,2,real,1,") || !strings.HasPrefix(lines[2], "shm-2core,ep,S,2,predicted,1,") {
		t.Errorf("CSV:\n%s\nwant a header, the real run and the prediction", data)
	}
}
