package main

import (
	"bytes"
	"strings"
	"sync"
	"testing"

	"github.com/gompi/gompi/mpi"
)

// lockedBuffer collects the output of ranks that print at once.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func TestBigMsg(t *testing.T) {
	var out lockedBuffer
	if err := mpi.Run(3, func(c *mpi.Comm) error { return bigmsg(c, 3<<20, &out) }); err != nil {
		t.Fatal(err)
	}
	s := out.b.String()
	for _, want := range []string{"3145728 bytes in ", "rank 0 peak RSS ", "rank 1 peak RSS "} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
}

func TestBigMsgNeedsTwoRanks(t *testing.T) {
	if err := mpi.Run(1, func(c *mpi.Comm) error { return bigmsg(c, 8, &lockedBuffer{}) }); err == nil {
		t.Fatal("one rank: no error")
	}
}
