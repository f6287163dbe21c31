package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gompi/gompi/mpi"
)

func TestPingPong(t *testing.T) {
	var out bytes.Buffer
	err := mpi.Run(3, func(c *mpi.Comm) error {
		w := &bytes.Buffer{}
		if c.Rank() == 0 {
			w = &out
		}
		times, err := pingpong(c, sizes(1<<20), 3, w)
		if c.Rank() == 0 {
			for i, tm := range times {
				if tm <= 0 {
					t.Errorf("size index %d: non-positive time %v", i, tm)
				}
			}
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Count(out.String(), "\n"); lines != len(sizes(1<<20))+1 {
		t.Errorf("%d lines of output:\n%s", lines, out.String())
	}
	if err := mpi.Run(1, func(c *mpi.Comm) error { _, err := pingpong(c, []int{1}, 1, &out); return err }); err == nil {
		t.Error("pingpong on 1 rank should fail")
	}
}
