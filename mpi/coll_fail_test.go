package mpi

import (
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
)

// A failed step in one rank's part of a collective must not leave the other
// ranks waiting: the failing rank runs its schedule to the end, as MPICH
// does, and alone reports the error. These tests fail each step of each
// rank in turn, for every collective and every algorithm, and check that
// the world finishes (an in-process deadlock is reported, not waited out),
// that only the failing rank gets the error, and that every rank's result
// is still right (an injected failure does not touch the data, so a rank
// that skipped part of its schedule would leave someone's result wrong).

// failCase is one collective call on c: its own error, and whether the
// result it left is right.
type failCase struct {
	name string
	kind collKind // whose algorithms to force in turn; nColl for none
	run  func(c *Comm) (err, wrong error)
}

const failK = 37 // elements per rank: blocks of every algorithm non-empty

// fv is rank r's element i.
func fv(r, i int) int64 { return int64(r*1000 + i + 1) }

func fvs(r, k int) []int64 {
	v := make([]int64, k)
	for i := range v {
		v[i] = fv(r, i)
	}
	return v
}

// fsum is element i summed over ranks [lo, hi).
func fsum(lo, hi, i int) int64 {
	var s int64
	for r := lo; r < hi; r++ {
		s += fv(r, i)
	}
	return s
}

func fsums(lo, hi, k int) []int64 {
	v := make([]int64, k)
	for i := range v {
		v[i] = fsum(lo, hi, i)
	}
	return v
}

func failCases() []failCase {
	return []failCase{
		{"Barrier", nColl, func(c *Comm) (error, error) { return c.Barrier(), nil }},
		{"Bcast", collBcast, func(c *Comm) (error, error) {
			root := 1 % c.Size()
			buf := make([]int64, failK)
			if c.Rank() == root {
				buf = fvs(root, failK)
			}
			err := Bcast(c, buf, root)
			return err, equalOrErr("Bcast", buf, fvs(root, failK))
		}},
		{"Reduce", collReduce, func(c *Comm) (error, error) {
			n, root := c.Size(), c.Size()-1
			out := make([]int64, failK)
			err := Reduce(c, fvs(c.Rank(), failK), out, Sum, root)
			if c.Rank() != root {
				return err, nil
			}
			return err, equalOrErr("Reduce", out, fsums(0, n, failK))
		}},
		{"Allreduce", collAllreduce, func(c *Comm) (error, error) {
			out := make([]int64, failK)
			err := Allreduce(c, fvs(c.Rank(), failK), out, Sum)
			return err, equalOrErr("Allreduce", out, fsums(0, c.Size(), failK))
		}},
		{"Gather", nColl, func(c *Comm) (error, error) {
			n, root := c.Size(), c.Size()/2
			out := make([]int64, n*failK)
			err := Gather(c, fvs(c.Rank(), failK), out, root)
			if c.Rank() != root {
				return err, nil
			}
			return err, equalOrErr("Gather", out, fall(n, failK))
		}},
		{"Scatter", nColl, func(c *Comm) (error, error) {
			n, root := c.Size(), c.Size()/2
			out := make([]int64, failK)
			err := Scatter(c, fall(n, failK), out, root)
			return err, equalOrErr("Scatter", out, fvs(c.Rank(), failK))
		}},
		{"Gatherv", nColl, func(c *Comm) (error, error) {
			n, me, root := c.Size(), c.Rank(), 0
			counts, displs, total := vLayout(n, 5, 3)
			out := make([]int64, total)
			err := Gatherv(c, fvs(me, counts[me]), out, counts, displs, root)
			if me != root {
				return err, nil
			}
			return err, checkVLayout("Gatherv", out, n, counts, displs)
		}},
		{"Scatterv", nColl, func(c *Comm) (error, error) {
			n, me, root := c.Size(), c.Rank(), c.Size()-1
			counts, displs, total := vLayout(n, 5, 3)
			send := make([]int64, total)
			for r := 0; r < n; r++ {
				copy(send[displs[r]:], fvs(r, counts[r]))
			}
			out := make([]int64, counts[me])
			err := Scatterv(c, send, counts, displs, out, root)
			return err, equalOrErr("Scatterv", out, fvs(me, counts[me]))
		}},
		{"Allgather", collAllgather, func(c *Comm) (error, error) {
			out := make([]int64, c.Size()*failK)
			err := Allgather(c, fvs(c.Rank(), failK), out)
			return err, equalOrErr("Allgather", out, fall(c.Size(), failK))
		}},
		{"Allgatherv", collAllgather, func(c *Comm) (error, error) {
			n, me := c.Size(), c.Rank()
			counts, displs, total := vLayout(n, 5, 3)
			out := make([]int64, total)
			err := Allgatherv(c, fvs(me, counts[me]), out, counts, displs)
			return err, checkVLayout("Allgatherv", out, n, counts, displs)
		}},
		{"Alltoall", collAlltoall, func(c *Comm) (error, error) {
			send, want := a2aBlocks(c, 3)
			out := make([]int64, len(send))
			err := Alltoall(c, send, out)
			return err, equalOrErr("Alltoall", out, want)
		}},
		{"Alltoallv", nColl, func(c *Comm) (error, error) {
			send, want := a2aBlocks(c, 3)
			counts, displs := blockCounts(c.Size(), 3), uniformOffsets(c.Size(), 3)[:c.Size()]
			out := make([]int64, len(send))
			err := Alltoallv(c, send, counts, displs, out, counts, displs)
			return err, equalOrErr("Alltoallv", out, want)
		}},
		{"AlltoallInPlace", nColl, func(c *Comm) (error, error) {
			buf, want := a2aBlocks(c, 3)
			err := AlltoallInPlace(c, buf)
			return err, equalOrErr("AlltoallInPlace", buf, want)
		}},
		{"ReduceScatter", collReduceScatter, func(c *Comm) (error, error) {
			n, me := c.Size(), c.Rank()
			counts := make([]int, n)
			total, off := 0, 0
			for r := range counts {
				counts[r] = r%3 + 1
				if r < me {
					off += counts[r]
				}
				total += counts[r]
			}
			out := make([]int64, counts[me])
			err := ReduceScatter(c, fvs(me, total), out, counts, Sum)
			return err, equalOrErr("ReduceScatter", out, fsums(0, n, total)[off:off+counts[me]])
		}},
		{"ReduceScatterBlock", collReduceScatter, func(c *Comm) (error, error) {
			n, me, k := c.Size(), c.Rank(), 5
			out := make([]int64, k)
			err := ReduceScatterBlock(c, fvs(me, n*k), out, Sum)
			return err, equalOrErr("ReduceScatterBlock", out, fsums(0, n, n*k)[me*k:(me+1)*k])
		}},
		{"Scan", nColl, func(c *Comm) (error, error) {
			out := make([]int64, failK)
			err := Scan(c, fvs(c.Rank(), failK), out, Sum)
			return err, equalOrErr("Scan", out, fsums(0, c.Rank()+1, failK))
		}},
		{"Exscan", nColl, func(c *Comm) (error, error) {
			out := make([]int64, failK)
			err := Exscan(c, fvs(c.Rank(), failK), out, Sum)
			if c.Rank() == 0 {
				return err, nil
			}
			return err, equalOrErr("Exscan", out, fsums(0, c.Rank(), failK))
		}},
		{"Dup", nColl, func(c *Comm) (error, error) {
			d, err := c.Dup()
			if err != nil {
				return err, nil
			}
			return nil, d.Free()
		}},
		{"Split", nColl, func(c *Comm) (error, error) {
			s, err := c.Split(c.Rank()%2, -c.Rank())
			if err != nil {
				return err, nil
			}
			if want := (c.Size() - c.Rank() - 1) / 2; s.Rank() != want {
				return nil, fmt.Errorf("Split: rank %d, want %d", s.Rank(), want)
			}
			return nil, s.Free()
		}},
	}
}

// fall is every rank's fvs, concatenated in rank order.
func fall(n, k int) []int64 {
	var v []int64
	for r := 0; r < n; r++ {
		v = append(v, fvs(r, k)...)
	}
	return v
}

func checkVLayout(what string, out []int64, n int, counts, displs []int) error {
	for r := 0; r < n; r++ {
		if err := equalOrErr(fmt.Sprintf("%s block %d", what, r), out[displs[r]:displs[r]+counts[r]], fvs(r, counts[r])); err != nil {
			return err
		}
	}
	return nil
}

// a2aBlocks is the caller's Alltoall input (block j for rank j) and the
// output it should get, blocks of k elements.
func a2aBlocks(c *Comm, k int) (send, want []int64) {
	n, me := c.Size(), c.Rank()
	send, want = make([]int64, n*k), make([]int64, n*k)
	for j := 0; j < n; j++ {
		for i := 0; i < k; i++ {
			send[j*k+i] = int64(me*10000 + j*100 + i)
			want[j*k+i] = int64(j*10000 + me*100 + i)
		}
	}
	return send, want
}

var errInjected = errors.New("injected step failure")

// runFailingStep runs cc on n ranks with step `step` of world rank `bad`
// failing. fired is false when that rank has fewer steps.
func runFailingStep(cc failCase, n, bad, step int) (fired bool, err error) {
	var steps atomic.Int32
	var hit atomic.Bool
	testHookCollStep = func(c *Comm) error {
		if c.r.id == bad && int(steps.Add(1))-1 == step {
			hit.Store(true)
			return errInjected
		}
		return nil
	}
	defer func() { testHookCollStep = nil }()
	err = runBounded(n, func(c *Comm) error {
		got, wrong := cc.run(c)
		if wrong != nil {
			return fmt.Errorf("result after rank %d's step %d failed: %w", bad, step, wrong)
		}
		if c.Rank() == bad && hit.Load() {
			if !errors.Is(got, errInjected) {
				return fmt.Errorf("failing rank returned %v, want the injected error", got)
			}
			return nil
		}
		if got != nil {
			return fmt.Errorf("rank %d (rank %d's step %d failed) returned %v, want nil", c.Rank(), bad, step, got)
		}
		return nil
	})
	return hit.Load(), err
}

func TestCollectiveStepFailureCompletesEveryRank(t *testing.T) {
	sizes := []int{2, 3, 4, 5, 8}
	if testing.Short() {
		sizes = []int{3, 4, 5}
	}
	for _, cc := range failCases() {
		algos := []algo{algoAuto}
		if cc.kind != nColl {
			algos = collAlgos[cc.kind]
		}
		for _, a := range algos {
			t.Run(fmt.Sprintf("%s/%s", cc.name, a), func(t *testing.T) {
				if cc.kind != nColl {
					forceAlgo(t, cc.kind, a)
				}
				for _, n := range sizes {
					for bad := 0; bad < n; bad++ {
						for step := 0; ; step++ {
							fired, err := runFailingStep(cc, n, bad, step)
							if err != nil {
								t.Fatalf("n=%d, rank %d's step %d fails: %v", n, bad, step, err)
							}
							if !fired {
								break
							}
						}
					}
				}
			})
		}
	}
}

// The example: a non-root rank of a Bcast whose buffer is shorter
// than the root's truncates; it must still forward to its children, so
// every rank returns and only the truncating one with ErrTruncate.
func TestBcastTruncationCompletesEveryRank(t *testing.T) {
	for _, n := range []int{4, 5, 8} {
		for short := 1; short < n; short++ {
			err := runBounded(n, func(c *Comm) error {
				buf := make([]int64, 16)
				if c.Rank() == short {
					buf = buf[:8]
				}
				err := Bcast(c, buf, 0)
				if c.Rank() == short {
					if !errors.Is(err, ErrTruncate) {
						return fmt.Errorf("truncating rank: %v, want ErrTruncate", err)
					}
					return nil
				}
				return err
			})
			if err != nil {
				t.Fatalf("n=%d, rank %d's buffer short: %v", n, short, err)
			}
		}
	}
}
