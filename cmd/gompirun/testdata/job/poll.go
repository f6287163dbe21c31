package main

import (
	"bytes"
	"fmt"

	"github.com/gompi/gompi/mpi"
)

// poll completes point-to-point traffic only by polling, with every Test
// variant in turn. Each round every rank sends one message to every other
// rank and receives one from each, the first of them into a buffer too
// small (it truncates), and calls Test, Testany, Testsome or Testall on
// all its requests until they have completed, setting completed entries to
// nil as MPI sets them to MPI_REQUEST_NULL. Eager and rendezvous sizes
// alternate. A frame the progress engine lost would leave a rank polling
// until gompirun's -timeout ends the job.
func poll(c *mpi.Comm, rounds int) error {
	me, n := c.Rank(), c.Size()
	sizes := []int{8, 1000, 100 << 10, 1 << 20}
	variants := []string{"Test", "Testany", "Testsome", "Testall"}
	for round := 0; round < rounds; round++ {
		size := sizes[round%len(sizes)]
		variant := variants[round/len(sizes)%len(variants)]
		var reqs []*mpi.Request
		bufs := make([][]byte, n)
		for k := 1; k < n; k++ {
			src := (me + k) % n
			bufs[src] = make([]byte, size)
			if k == 1 {
				bufs[src] = bufs[src][:size/2] // truncates
			}
			q, err := mpi.Irecv(c, bufs[src], src, round)
			if err != nil {
				return err
			}
			reqs = append(reqs, q)
		}
		out := bytes.Repeat([]byte{byte(me + round)}, size)
		for k := 1; k < n; k++ {
			q, err := mpi.Isend(c, out, (me+n-k)%n, round)
			if err != nil {
				return err
			}
			reqs = append(reqs, q)
		}
		errs := make([]error, len(reqs))
		pollAll(variant, reqs, errs)
		for k := 1; k < n; k++ {
			src := (me + k) % n
			if err := errs[k-1]; (err != nil) != (k == 1) {
				return fmt.Errorf("round %d, %s, size %d, from rank %d: error %v", round, variant, size, src, err)
			}
			if !bytes.Equal(bufs[src], bytes.Repeat([]byte{byte(src + round)}, len(bufs[src]))) {
				return fmt.Errorf("round %d, %s, size %d, from rank %d: wrong contents", round, variant, size, src)
			}
		}
		for _, err := range errs[n-1:] {
			if err != nil {
				return fmt.Errorf("round %d, %s, size %d: send: %v", round, variant, size, err)
			}
		}
	}
	fmt.Printf("ok rank %d of %d\n", me, n)
	return nil
}

// pollAll polls reqs with the named variant until every one has completed,
// recording each one's error and setting it to nil.
func pollAll(variant string, reqs []*mpi.Request, errs []error) {
	left := len(reqs)
	for left > 0 {
		switch variant {
		case "Test":
			for i, q := range reqs {
				if q == nil {
					continue
				}
				if ok, _, err := q.Test(); ok {
					errs[i], reqs[i] = err, nil
					left--
				}
			}
		case "Testany":
			if i, ok, _, err := mpi.Testany(reqs); ok && i != mpi.Undefined {
				errs[i], reqs[i] = err, nil
				left--
			}
		case "Testsome":
			idx, st, _ := mpi.Testsome(reqs)
			for k, i := range idx {
				errs[i], reqs[i] = st[k].Err, nil
				left--
			}
		case "Testall":
			if ok, st, _ := mpi.Testall(reqs); ok {
				for i := range reqs {
					errs[i], reqs[i] = st[i].Err, nil
				}
				left = 0
			}
		}
	}
}
