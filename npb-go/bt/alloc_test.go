package main

import (
	"testing"

	"github.com/gompi/gompi/mpi"
)

// A time step allocates nothing (on one rank, where it makes no MPI call):
// the arrays, buffers and scratch lines are allocated once.
func TestTimeStepDoesNotAllocate(t *testing.T) {
	err := mpi.Run(1, func(c *mpi.Comm) error {
		p := classes['S']
		s := &btState{setup: c, solve: c, rhsComm: c, node: 0, noNodes: 1, ncells: 1}
		s.t = newTimers(c, true)
		s.grid = [3]int{p.size, p.size, p.size}
		s.dt = p.dt
		s.allocSpace(p.size)
		s.makeSet()
		s.setConstants()
		s.initialize()
		s.exactRHS()
		s.computeBufferSize(5)
		if n := testing.AllocsPerRun(3, func() {
			if err := s.adi(); err != nil {
				t.Fatal(err)
			}
		}); n != 0 {
			t.Errorf("adi allocates %v times per step", n)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
