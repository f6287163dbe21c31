package main

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// TestProcessorsPerProcess: each process of a job on one host runs with
// its share of the cores as GOMAXPROCS where its rank polls peers (shared
// memory with a core for each rank, or TCP); a process alone, and the
// processes of a host with more ranks than cores, keep every core; an
// explicit GOMAXPROCS wins (internal/wireup processors).
func TestProcessorsPerProcess(t *testing.T) {
	cpus := runtime.NumCPU()
	if cpus < 2 {
		t.Skip("one CPU: a share and every core are the same")
	}
	if os.Getenv("GOMAXPROCS") != "" {
		t.Skip("GOMAXPROCS is set for the tests, so gompirun never chooses")
	}
	type procsCase struct {
		name string
		env  []string
		np   int
		want int
	}
	cases := []procsCase{
		{"alone", nil, 1, cpus},
		{"shared memory", nil, 2, cpus / 2},
		{"tcp", tcp, 2, cpus / 2},
		{"explicit", []string{"GOMAXPROCS=3"}, 2, 3},
	}
	if cpus <= 8 { // a host with more ranks than cores, where that is few processes
		cases = append(cases, procsCase{"more ranks than cores", nil, cpus + 1, cpus})
	}
	for _, tc := range cases {
		r := gorun(t, tc.env, "-np", strconv.Itoa(tc.np), "-timeout", "30s", jobProg, "-mode", "procs")
		want := fmt.Sprintf(" gomaxprocs %d\n", tc.want)
		if r.code != 0 || strings.Count(r.stdout, want) != tc.np {
			t.Errorf("%s (-np %d, %d CPUs): exit %d, stdout %q, want %d lines ending %q; stderr %q",
				tc.name, tc.np, cpus, r.code, r.stdout, tc.np, want, r.stderr)
		}
	}
}
