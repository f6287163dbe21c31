package main

import (
	"bufio"
	"bytes"
	"strconv"
	"strings"
	"testing"

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
		var out bytes.Buffer
		err := mpi.Run(3, func(c *mpi.Comm) error {
			if c.Rank() == 0 {
				return run(c, &p, &out)
			}
			return run(c, &p, &bytes.Buffer{})
		})
		if err != nil {
			t.Fatalf("%s: %v", test, err)
		}
		sizes := p.sizes()
		sc := bufio.NewScanner(&out)
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
	} {
		if p.check() == nil {
			t.Errorf("%+v accepted", p)
		}
	}
}
