package main

import (
	"bufio"
	"bytes"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gompi/gompi/mpi"
)

// TestEveryTestPrintsAFigurePerSize runs each measurement on an in-process
// world with few iterations and checks the table: one positive figure per
// size, sizes as asked.
func TestEveryTestPrintsAFigurePerSize(t *testing.T) {
	for _, test := range tests {
		p := params{test: test, min: 0, max: 64 << 10, iters: 20, warmup: 2, window: 4}
		if err := p.check(); err != nil {
			t.Fatal(err)
		}
		out, err := table(3, &p)
		if err != nil {
			t.Fatalf("%s: %v", test, err)
		}
		sizes := p.sizes()
		sc := bufio.NewScanner(out)
		rows := 0
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "#") {
				continue
			}
			f := strings.Fields(sc.Text())
			size, _ := strconv.Atoi(f[0])
			v, err := strconv.ParseFloat(f[1], 64)
			zeroOK := size == 0 && (test == "bw" || test == "bibw") // no bytes, no bandwidth
			if rows >= len(sizes) || size != sizes[rows] || err != nil || !(v > 0 || zeroOK && v == 0) {
				t.Fatalf("%s: bad row %q", test, sc.Text())
			}
			rows++
		}
		if rows != len(sizes) {
			t.Fatalf("%s: %d rows for %d sizes:\n%s", test, rows, len(sizes), out.String())
		}
	}
}

func TestBadParametersAreRejected(t *testing.T) {
	for _, p := range []params{
		{test: "nope", max: 1, iters: 1, window: 1},
		{test: "bw", min: 8, max: 4, iters: 1, window: 1},
		{test: "bw", max: 4, iters: 0, window: 1},
		{test: "bw", max: 4, iters: 1, window: 0},
		{test: "latency", max: 4, iters: 1, window: 1, longest: true},
	} {
		if p.check() == nil {
			t.Errorf("%+v accepted", p)
		}
	}
}

// TestSettleRunsTheFirstSizeFirst: with -settle every rank repeats the
// first size until rank 0 has spent that long on it, then the table
// follows as without; a negative -settle is refused.
func TestSettleRunsTheFirstSizeFirst(t *testing.T) {
	const settle = 30 * time.Millisecond
	for _, test := range []string{"latency", "allreduce", "barrier"} {
		p := params{test: test, min: 8, max: 16, iters: 5, warmup: 1, window: 2, settle: settle}
		start := time.Now()
		out, err := table(2, &p)
		if err != nil {
			t.Fatalf("%s: %v", test, err)
		}
		if d := time.Since(start); d < settle {
			t.Errorf("%s: done in %v, before -settle %v had passed", test, d, settle)
		}
		if rows := strings.Count(out.String(), "\n") - 2; rows != len(p.sizes()) {
			t.Errorf("%s: %d rows after settling, want %d:\n%s", test, rows, len(p.sizes()), out.String())
		}
	}
	p := params{test: "latency", iters: 1, window: 1, settle: -time.Millisecond}
	if p.check() == nil {
		t.Error("a negative -settle was accepted")
	}
}

// TestLongestIsAtLeastTheMean: with -longest a collective's row has a
// third figure, its longest call, which no mean of the same calls exceeds.
func TestLongestIsAtLeastTheMean(t *testing.T) {
	for _, test := range []string{"allreduce", "bcast", "barrier"} {
		p := params{test: test, min: 8, max: 64, iters: 50, warmup: 5, window: 1, longest: true}
		out, err := table(3, &p)
		if err != nil {
			t.Fatalf("%s: %v", test, err)
		}
		rows := 0
		for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			if strings.HasPrefix(line, "#") {
				continue
			}
			f := strings.Fields(line)
			if len(f) != 3 {
				t.Fatalf("%s: row %q, want size, mean and longest", test, line)
			}
			mean, _ := strconv.ParseFloat(f[1], 64)
			longest, _ := strconv.ParseFloat(f[2], 64)
			if !(mean > 0) || longest < mean {
				t.Errorf("%s: row %q: longest call below the mean", test, line)
			}
			rows++
		}
		if rows != len(p.sizes()) {
			t.Errorf("%s: %d rows, want %d", test, rows, len(p.sizes()))
		}
	}
}

// table runs p on an in-process world of n ranks and returns the table
// rank 0 prints.
func table(n int, p *params) (*bytes.Buffer, error) {
	var out bytes.Buffer
	err := mpi.Run(n, func(c *mpi.Comm) error {
		if c.Rank() == 0 {
			return run(c, p, &out)
		}
		return run(c, p, &bytes.Buffer{})
	})
	return &out, err
}
