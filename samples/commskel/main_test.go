package main

import (
	"bytes"
	"io"
	"testing"

	"github.com/gompi/gompi/mpi"
)

func TestSkeleton(t *testing.T) {
	for _, n := range []int{1, 2, 5, 16} {
		var out bytes.Buffer
		err := mpi.Run(n, func(c *mpi.Comm) error {
			var w io.Writer = io.Discard
			if c.Rank() == 0 {
				w = &out
			}
			return skeleton(c, 3, 100, w)
		})
		if err != nil {
			t.Fatalf("%d ranks: %v", n, err)
		}
		if !bytes.HasPrefix(out.Bytes(), []byte("commskel: ")) {
			t.Errorf("%d ranks: output %q", n, out.String())
		}
	}
}
