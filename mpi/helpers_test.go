package mpi

import (
	"fmt"
	"testing"
	"time"
)

// worldSizes are the world sizes the issue asks every call to be tried on.
var worldSizes = []int{1, 2, 3, 4, 8, 17, 64}

// msgSizes straddle the eager limit.
var msgSizes = []int{0, 1, 7, 1024, DefaultEagerLimit, DefaultEagerLimit + 1, 3 * DefaultEagerLimit}

// runT runs fn on an n-rank in-process world, failing the test on error and
// on a run that takes longer than a generous bound.
func runT(t testing.TB, n int, fn func(c *Comm) error, opts ...Option) {
	t.Helper()
	if err := runBounded(n, fn, opts...); err != nil {
		t.Fatalf("world of %d: %v", n, err)
	}
}

func runBounded(n int, fn func(c *Comm) error, opts ...Option) error {
	done := make(chan error, 1)
	go func() { done <- Run(n, fn, opts...) }()
	select {
	case err := <-done:
		return err
	case <-time.After(60 * time.Second):
		return fmt.Errorf("world of %d ranks did not finish in 60s", n)
	}
}

// pattern fills a buffer with bytes that depend on the sender, the receiver
// and a sequence number, so misrouted or stale data is detected.
func pattern(buf []byte, src, dst, seq int) {
	x := uint32(src*7919 + dst*104729 + seq*15485863 + 1)
	for i := range buf {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		buf[i] = byte(x)
	}
}

func checkPattern(buf []byte, src, dst, seq int) error {
	want := make([]byte, len(buf))
	pattern(want, src, dst, seq)
	for i := range buf {
		if buf[i] != want[i] {
			return fmt.Errorf("payload from %d to %d seq %d differs at byte %d of %d", src, dst, seq, i, len(buf))
		}
	}
	return nil
}
