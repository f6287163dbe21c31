package main

import (
	"io"
	"testing"

	"github.com/gompi/gompi/mpi"
)

func TestRing(t *testing.T) {
	for _, n := range []int{1, 2, 7, 32} {
		err := mpi.Run(n, func(c *mpi.Comm) error {
			tok, err := ring(c, 4, io.Discard)
			if c.Rank() == 0 && tok != int64(4*n) {
				t.Errorf("n=%d: token %d", n, tok)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
