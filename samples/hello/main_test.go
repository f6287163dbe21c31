package main

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/gompi/gompi/mpi"
)

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func TestHello(t *testing.T) {
	var out syncBuf
	if err := mpi.Run(5, func(c *mpi.Comm) error { return hello(c, &out) }); err != nil {
		t.Fatal(err)
	}
	for r := 0; r < 5; r++ {
		if !strings.Contains(out.b.String(), fmt.Sprintf("hello from rank %d of 5", r)) {
			t.Errorf("no line from rank %d in:\n%s", r, out.b.String())
		}
	}
}
