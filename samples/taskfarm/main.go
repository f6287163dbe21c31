// Command taskfarm is a master/worker program: rank 0 hands -tasks tasks
// to the other ranks, the next one to whichever worker returns a result
// first, and prints the order in which the results came and its Wtime at
// the end. -mode says how the master finds that worker: a receive from
// AnySource (anysource), or a receive posted per worker and Waitany
// (waitany), Waitsome (waitsome) or a Testany loop (testany) over them. A task's work is accounted with
// Elapse (task k takes -work x (1 + (7k mod 13) / 4), so workers finish in
// an order that depends on the tasks they got), so with -cpu-scale 0 a
// virtual run's order and predicted time follow from the target machine
// alone: they are the same from run to run and over any number of
// processes (docs/model.md, "Temporally sensitive calls"). With -jitter,
// each worker also burns some host time before its task, unrelated to the
// task's virtual duration, which reorders the results on the host but not
// on the target.
//
//	go run ./cmd/gompirun -np 2 -virtual 8 -cpu-scale 0 ./samples/taskfarm
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/gompi/gompi/mpi"
)

const (
	tagTask = iota + 1
	tagResult
	tagStop
)

func main() {
	tasks := flag.Int("tasks", 100, "tasks to hand out")
	work := flag.Duration("work", time.Millisecond, "duration of the shortest task")
	jitter := flag.Bool("jitter", false, "workers burn host time before each task")
	mode := flag.String("mode", "anysource", "how the master waits for results: anysource, waitany, waitsome or testany")
	flag.Parse()
	if *tasks < 0 || *work < 0 {
		fmt.Fprintln(os.Stderr, "taskfarm: -tasks and -work must not be negative")
		os.Exit(2)
	}
	switch *mode {
	case "anysource", "waitany", "waitsome", "testany":
	default:
		fmt.Fprintf(os.Stderr, "taskfarm: unknown -mode %q (anysource, waitany, waitsome or testany)\n", *mode)
		os.Exit(2)
	}
	mpi.Main(func(c *mpi.Comm) error {
		if c.Size() < 2 {
			return fmt.Errorf("taskfarm needs at least 2 ranks, got %d", c.Size())
		}
		if c.Rank() != 0 {
			return worker(c, *work, *jitter)
		}
		if *mode != "anysource" {
			return masterPosted(c, *tasks, *mode, os.Stdout)
		}
		return master(c, *tasks, os.Stdout)
	})
}

// taskTime is how long task k takes.
func taskTime(k int, work time.Duration) time.Duration {
	return work + work*time.Duration((7*k)%13)/4
}

func worker(c *mpi.Comm, work time.Duration, jitter bool) error {
	task := []int64{0}
	for {
		st, err := mpi.Recv(c, task, 0, mpi.AnyTag)
		if err != nil || st.Tag == tagStop {
			return err
		}
		if jitter {
			burn(time.Duration((3*c.Rank()+int(task[0]))%5) * time.Millisecond)
		}
		c.Elapse(taskTime(int(task[0]), work))
		if err := mpi.Send(c, task, 0, tagResult); err != nil {
			return err
		}
	}
}

// burn spends d of host time without calling MPI.
func burn(d time.Duration) {
	for end := time.Now().Add(d); time.Now().Before(end); {
	}
}

func master(c *mpi.Comm, tasks int, out io.Writer) error {
	next := 0
	for w := 1; w < c.Size() && next < tasks; w++ {
		if err := mpi.Send(c, []int64{int64(next)}, w, tagTask); err != nil {
			return err
		}
		next++
	}
	order := make([]string, 0, tasks)
	res := []int64{0}
	for len(order) < tasks {
		st, err := mpi.Recv(c, res, mpi.AnySource, tagResult)
		if err != nil {
			return err
		}
		order = append(order, strconv.FormatInt(res[0], 10))
		if next < tasks {
			if err := mpi.Send(c, []int64{int64(next)}, st.Source, tagTask); err != nil {
				return err
			}
			next++
		}
	}
	return finish(c, order, out)
}

// finish stops the workers and prints the order of the results.
func finish(c *mpi.Comm, order []string, out io.Writer) error {
	for w := 1; w < c.Size(); w++ {
		if err := mpi.Send(c, []int64{0}, w, tagStop); err != nil {
			return err
		}
	}
	fmt.Fprintf(out, "results in order: %s\n", strings.Join(order, " "))
	fmt.Fprintf(out, "Wtime at the end: %.9f s\n", c.Wtime())
	return nil
}

// masterPosted is the master with a receive posted for each busy worker,
// completed by Waitany, Waitsome or a Testany loop (mode).
func masterPosted(c *mpi.Comm, tasks int, mode string, out io.Writer) error {
	workers := c.Size() - 1
	reqs := make([]*mpi.Request, workers)
	res := make([][]int64, workers)
	next := 0
	hand := func(w int) error { // task next to worker w+1, and a receive for its result
		if err := mpi.Send(c, []int64{int64(next)}, w+1, tagTask); err != nil {
			return err
		}
		next++
		res[w] = []int64{0}
		q, err := mpi.Irecv(c, res[w], w+1, tagResult)
		reqs[w] = q
		return err
	}
	for w := 0; w < workers && next < tasks; w++ {
		if err := hand(w); err != nil {
			return err
		}
	}
	order := make([]string, 0, tasks)
	for len(order) < tasks {
		idx, err := complete(reqs, mode)
		if err != nil {
			return err
		}
		for _, w := range idx {
			reqs[w] = nil
			order = append(order, strconv.FormatInt(res[w][0], 10))
			if next < tasks {
				if err := hand(w); err != nil {
					return err
				}
			}
		}
	}
	return finish(c, order, out)
}

// complete waits for some of reqs by mode and returns the indices done.
func complete(reqs []*mpi.Request, mode string) ([]int, error) {
	switch mode {
	case "waitany":
		i, _, err := mpi.Waitany(reqs)
		return []int{i}, err
	case "waitsome":
		idx, _, err := mpi.Waitsome(reqs)
		return idx, err
	}
	for {
		i, ok, _, err := mpi.Testany(reqs)
		if err != nil || ok {
			return []int{i}, err
		}
	}
}
