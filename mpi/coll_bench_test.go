package mpi

import (
	"fmt"
	"testing"
)

// Collective latency on in-process worlds: one op is one collective call,
// timed on rank 0 between two barriers. Run with, e.g.,
//
//	go test -run XXX -bench 'Barrier|Bcast|Allreduce|Alltoall' -benchtime 200x ./mpi
//
// setup runs once per rank and returns the operation (so buffers are
// allocated outside the timed loop).
func benchColl(b *testing.B, n int, setup func(c *Comm) func() error) {
	b.ReportAllocs()
	err := Run(n, func(c *Comm) error {
		op := setup(c)
		if err := op(); err != nil { // warm up
			return err
		}
		if err := c.Barrier(); err != nil {
			return err
		}
		if c.Rank() == 0 {
			b.ResetTimer()
		}
		for i := 0; i < b.N; i++ {
			if err := op(); err != nil {
				return err
			}
		}
		if err := c.Barrier(); err != nil {
			return err
		}
		if c.Rank() == 0 {
			b.StopTimer()
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
}

var benchRanks = []int{8, 64}

func BenchmarkBarrier(b *testing.B) {
	for _, n := range benchRanks {
		b.Run(fmt.Sprintf("ranks=%d", n), func(b *testing.B) {
			benchColl(b, n, func(c *Comm) func() error { return c.Barrier })
		})
	}
}

func BenchmarkBcast(b *testing.B) {
	for _, n := range benchRanks {
		for _, size := range []int{8, 1 << 20} {
			b.Run(fmt.Sprintf("ranks=%d/bytes=%d", n, size), func(b *testing.B) {
				b.SetBytes(int64(size))
				benchColl(b, n, func(c *Comm) func() error {
					buf := make([]byte, size)
					return func() error { return Bcast(c, buf, 0) }
				})
			})
		}
	}
}

func BenchmarkAllreduce(b *testing.B) {
	for _, n := range benchRanks {
		for _, size := range []int{8, 1 << 20} {
			b.Run(fmt.Sprintf("ranks=%d/bytes=%d", n, size), func(b *testing.B) {
				b.SetBytes(int64(size))
				benchColl(b, n, func(c *Comm) func() error {
					in := make([]float64, size/8)
					out := make([]float64, size/8)
					return func() error { return Allreduce(c, in, out, Sum) }
				})
			})
		}
	}
}

func BenchmarkAlltoall(b *testing.B) {
	for _, n := range benchRanks {
		for _, block := range []int{8, 16 << 10} {
			b.Run(fmt.Sprintf("ranks=%d/block=%d", n, block), func(b *testing.B) {
				benchColl(b, n, func(c *Comm) func() error {
					in, out := make([]byte, n*block), make([]byte, n*block)
					return func() error { return Alltoall(c, in, out) }
				})
			})
		}
	}
}
