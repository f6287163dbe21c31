package main

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gompi/gompi/internal/launch"
)

// -progress prints how far a virtual run has got: lines whose message
// counts and clocks only grow, then the report as usual.
func TestProgressLines(t *testing.T) {
	prog := vprog(t, "skeleton")
	r := gorun(t, nil, "-timeout", "25s", "-np", "2", "-virtual", "8", "-cpu-scale", "0", "-progress", "300ms", prog, "-iters", "20000", "-big", "1024")
	if r.code != 0 {
		t.Fatalf("exit %d:\n%s", r.code, r.stderr)
	}
	re := regexp.MustCompile(`(?m)^gompirun: \d+s: (\d+) of 8 ranks finished, virtual time \S+ \S+ to \S+ \S+, (\d+) messages$`)
	lines := re.FindAllStringSubmatch(r.stderr, -1)
	if len(lines) == 0 || !strings.Contains(r.stderr, "gompi prediction: 8 ranks") {
		t.Fatalf("no progress lines or no report:\n%s", r.stderr)
	}
	last := int64(-1)
	for _, l := range lines {
		n, _ := strconv.ParseInt(l[2], 10, 64)
		if n < last {
			t.Errorf("messages went back: %d after %d", n, last)
		}
		last = n
	}
	if r := gorun(t, nil, "-np", "2", "-progress", "1s", prog); r.code != 2 || !strings.Contains(r.stderr, "-progress") {
		t.Errorf("-progress without -virtual: exit %d, %q", r.code, r.stderr)
	}
}

func TestProgressLine(t *testing.T) {
	for _, tc := range []struct {
		pr   launch.Progress
		want string
	}{
		{launch.Progress{Unfinished: 3, Behind: 0.001, Ahead: 0.002, Messages: 7}, "gompirun: 5s: 1 of 4 ranks finished, virtual time 1.000 ms to 2.000 ms, 7 messages"},
		{launch.Progress{Messages: 9}, "gompirun: 5s: 4 of 4 ranks finished, 9 messages"},
		{launch.Progress{Unfinished: 1, Missing: 1, Behind: 1, Ahead: 1}, "gompirun: 5s: 1 ranks unfinished (1 processes did not answer), virtual time 1.000 s to 1.000 s, 0 messages"},
	} {
		if got := progressLine(5e9, 4, tc.pr); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
}
