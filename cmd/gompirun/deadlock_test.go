package main

import (
	"fmt"
	"strings"
	"testing"
)

// TestDeadlockReported: a real job whose unfinished ranks all wait in MPI
// calls nothing can complete fails, instead of hanging until its -timeout,
// with a line per blocked rank naming the call the application made (not
// the library's own waits inside it). Over processes gompirun detects it
// (internal/launch/quiesce.go); in one process the world does
// (mpi.DeadlockError), and the report reads the same.
func TestDeadlockReported(t *testing.T) {
	const head = "gompirun: deadlock: every unfinished rank is blocked and nothing is in flight:\n"
	cases := []struct {
		mode  string
		np    []string
		lines []string
	}{
		{"hang", []string{"-np", "2"}, []string{"rank 0 in Recv from any source tag 99", "rank 1 in Recv from any source tag 99"}},
		{"mismatch", []string{"-np", "3"}, []string{"rank 0 in Allreduce", "rank 1 in Barrier", "rank 2 in Barrier"}},
		{"leave", []string{"-np", "3"}, []string{"rank 0 in Recv from 2 tag 7"}},
		{"mismatch", []string{"-np", "1", "-ranks", "3"}, []string{"rank 0 in Allreduce", "rank 1 in Barrier", "rank 2 in Barrier"}},
	}
	for _, c := range cases {
		for _, tr := range []string{"tcp", "auto"} {
			var env []string
			if tr == "tcp" {
				env = tcp
			}
			name := fmt.Sprintf("%s/%s/%s", c.mode, strings.Join(c.np, ""), tr)
			t.Run(name, func(t *testing.T) {
				args := append(append([]string{}, c.np...), "-timeout", "20s", jobProg, "-mode", c.mode)
				r := gorun(t, env, args...)
				want := head + "  " + strings.Join(c.lines, "\n  ") + "\n"
				if r.code != 1 || r.stderr != want {
					t.Fatalf("exit %d, stderr %q; want exit 1 and %q", r.code, r.stderr, want)
				}
				noneLeft(t, pidsOf(r.stdout))
			})
		}
	}
}
