package main

import (
	"fmt"

	"github.com/gompi/gompi/mpi"
)

// nbc runs nonblocking collectives between processes: several outstanding
// at once on one communicator, with a ring of point-to-point messages
// among them and an Idup, completed in reverse order with a Recv blocked
// between (it must progress them), then checked.
func nbc(c *mpi.Comm) error {
	me, n := c.Rank(), c.Size()
	bc := make([]float64, 3000) // beyond the eager limit between processes
	if me == 0 {
		for i := range bc {
			bc[i] = float64(i)
		}
	}
	sum := []int64{int64(me + 1)}
	all := make([]int32, n)
	out := make([]int32, n)
	for i := range out {
		out[i] = int32(100*me + i)
	}
	var reqs []*mpi.Request
	add := func(q *mpi.Request, err error) error {
		reqs = append(reqs, q)
		return err
	}
	if err := add(mpi.Ibcast(c, bc, 0)); err != nil {
		return err
	}
	if err := add(mpi.IallreduceInPlace(c, sum, mpi.Sum)); err != nil {
		return err
	}
	dup, dq, err := c.Idup()
	if err := add(dq, err); err != nil {
		return err
	}
	if err := add(mpi.Ialltoall(c, out, all)); err != nil {
		return err
	}
	if err := add(c.Ibarrier()); err != nil {
		return err
	}
	// The ring: each rank waits in Recv, which progresses the collectives.
	if err := mpi.Send(c, []int{me}, (me+1)%n, 1); err != nil {
		return err
	}
	var from [1]int
	if _, err := mpi.Recv(c, from[:], (me+n-1)%n, 1); err != nil {
		return err
	}
	for i := len(reqs) - 1; i >= 0; i-- {
		if _, err := reqs[i].Wait(); err != nil {
			return err
		}
	}
	for i := range bc {
		if bc[i] != float64(i) {
			return fmt.Errorf("Ibcast element %d is %v", i, bc[i])
		}
	}
	if want := int64(n * (n + 1) / 2); sum[0] != want {
		return fmt.Errorf("Iallreduce gave %d, want %d", sum[0], want)
	}
	for i := range all {
		if all[i] != int32(100*i+me) {
			return fmt.Errorf("Ialltoall block %d is %d", i, all[i])
		}
	}
	if err := dup.Barrier(); err != nil {
		return err
	}
	fmt.Printf("ok rank %d of %d\n", me, n)
	return nil
}
