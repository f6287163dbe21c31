package mpi

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestAbortEndsWorld(t *testing.T) {
	err := runBounded(4, func(c *Comm) error {
		if c.Rank() == 2 {
			c.Abort(7)
			t.Error("Abort returned")
		}
		_, err := Recv(c, make([]byte, 1), AnySource, 0) // blocks until the abort
		return err
	})
	var ae *AbortError
	if !errors.As(err, &ae) || ae.Rank != 2 || ae.Code != 7 {
		t.Fatalf("got %v, want rank 2 Abort(7)", err)
	}
}

func TestRankErrorAndPanicAbortWorld(t *testing.T) {
	boom := errors.New("boom")
	err := runBounded(3, func(c *Comm) error {
		if c.Rank() == 1 {
			return boom
		}
		c.Elapse(time.Millisecond)
		_, err := Recv(c, make([]byte, 1), 1, 0)
		return err
	})
	var re *RankError
	if !errors.As(err, &re) || re.Rank != 1 || !errors.Is(err, boom) {
		t.Fatalf("got %v", err)
	}
	err = runBounded(3, func(c *Comm) error {
		if c.Rank() == 0 {
			var m map[int]int
			m[1] = 1 // nil map write
		}
		_, err := Recv(c, make([]byte, 1), 0, 0)
		return err
	})
	if !errors.As(err, &re) || !re.Panic || re.Rank != 0 || !strings.Contains(err.Error(), "nil map") {
		t.Fatalf("got %v", err)
	}
}

func TestDeadlockDetected(t *testing.T) {
	for _, n := range []int{1, 3, 17} {
		err := runBounded(n, func(c *Comm) error {
			// Everyone receives first: a classic deadlock.
			_, err := Recv(c, make([]byte, 1), (c.Rank()+1)%n, 0)
			return err
		})
		var de *DeadlockError
		if !errors.As(err, &de) || len(de.Blocked) != n {
			t.Fatalf("n=%d: got %v", n, err)
		}
		// Ranks in numeric order: 0, 1, 2 ... 10, not 0, 1, 10, 11.
		for i, b := range de.Blocked {
			if want := fmt.Sprintf("rank %d in ", i); !strings.HasPrefix(b, want) {
				t.Fatalf("n=%d: blocked[%d] = %q, want it to start %q", n, i, b, want)
			}
		}
	}
	// Rendezvous sends to each other without receives: also a deadlock.
	err := runBounded(2, func(c *Comm) error {
		return Send(c, make([]byte, 4*DefaultEagerLimit), 1-c.Rank(), 0)
	})
	var de *DeadlockError
	if !errors.As(err, &de) {
		t.Fatalf("mutual rendezvous send: got %v", err)
	}
}

// A rank that finishes early while others still talk is fine.
func TestEarlyFinisherIsNotDeadlock(t *testing.T) {
	runT(t, 3, func(c *Comm) error {
		switch c.Rank() {
		case 0:
			return nil
		case 1:
			time.Sleep(300 * time.Millisecond) // longer than the detector's window
			return Send(c, []int{1}, 2, 0)
		}
		_, err := Recv(c, make([]int, 1), 1, 0)
		return err
	})
}

func TestRunRejectsBadConfig(t *testing.T) {
	if err := Run(0, func(*Comm) error { return nil }); err == nil {
		t.Fatal("Run(0) succeeded")
	}
	if err := Run(1, func(*Comm) error { return nil }, WithEagerLimit(-1)); err == nil {
		t.Fatal("negative eager limit accepted")
	}
	t.Setenv(EagerLimitEnv, "lots")
	if err := Run(1, func(*Comm) error { return nil }); err == nil || !strings.Contains(err.Error(), EagerLimitEnv) {
		t.Fatalf("bad %s: %v", EagerLimitEnv, err)
	}
	t.Setenv(EagerLimitEnv, "0")
	runT(t, 2, func(c *Comm) error { // everything but empty messages by rendezvous
		if c.Rank() == 0 {
			return Send(c, []byte{1}, 1, 0)
		}
		_, err := Recv(c, make([]byte, 1), 0, 0)
		return err
	})
}

// TestElapseRealTakesItsTime: in a real run Elapse(d) returns after d of
// wall time, not before, for durations shorter and longer than its
// spinning tail.
func TestElapseRealTakesItsTime(t *testing.T) {
	for _, d := range []time.Duration{50 * time.Microsecond, 3 * time.Millisecond} {
		err := runBounded(2, func(c *Comm) error {
			start := time.Now()
			c.Elapse(d)
			if got := time.Since(start); got < d {
				return fmt.Errorf("Elapse(%v) returned after %v", d, got)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
