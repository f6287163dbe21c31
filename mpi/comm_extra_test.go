package mpi

import (
	"errors"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/gompi/gompi/vtime"
)

// An in-process world is one host: SplitTypeShared keeps every rank, in
// key order, and leaves out those passing Undefined.
func TestSplitTypeSharedInProcess(t *testing.T) {
	for _, n := range worldSizes {
		runT(t, n, func(c *Comm) error {
			sc, err := c.SplitType(SplitTypeShared, -c.Rank()) // reversed order
			if err != nil {
				return err
			}
			if sc.Size() != n || sc.Rank() != n-1-c.Rank() || sc.WorldRank(0) != n-1 {
				return fmt.Errorf("shared communicator: size %d, rank %d", sc.Size(), sc.Rank())
			}
			if err := Allreduce(sc, []int{1}, make([]int, 1), Sum); err != nil {
				return err
			}
			if err := sc.Free(); err != nil {
				return err
			}
			typ := SplitTypeShared
			if c.Rank()%2 == 1 {
				typ = Undefined
			}
			sc, err = c.SplitType(typ, 0)
			if err != nil {
				return err
			}
			if c.Rank()%2 == 1 {
				if sc != nil {
					return fmt.Errorf("Undefined split type gave a communicator")
				}
			} else if sc.Size() != (n+1)/2 {
				return fmt.Errorf("even ranks' shared communicator has %d ranks", sc.Size())
			}
			if _, err := c.SplitType(7, 0); !errors.Is(err, ErrArg) {
				return fmt.Errorf("split type 7: %v", err)
			}
			return nil
		})
	}
}

// In virtual time a shared part is one node of the target machine: the
// ranks its mapping puts there (block or round-robin), in rank order.
func TestSplitTypeSharedVirtualNodes(t *testing.T) {
	for _, mapping := range []string{"block", "round-robin"} {
		for _, n := range []int{1, 5, 12, 17, 64} {
			m, err := vtime.Preset("tianhe1a") // 12 cores a node
			if err != nil {
				t.Fatal(err)
			}
			m.Mapping = mapping
			tg, err := m.Place(n)
			if err != nil {
				t.Fatal(err)
			}
			node := func(r int) int { return tg.Core(r) / m.CoresPerNode }
			v, err := NewVirtual(m, n, 0)
			if err != nil {
				t.Fatal(err)
			}
			err = v.Run(func(c *Comm) error {
				sc, err := c.SplitType(SplitTypeShared, 0)
				if err != nil {
					return err
				}
				var want []int
				for r := 0; r < n; r++ {
					if node(r) == node(c.Rank()) {
						want = append(want, r)
					}
				}
				var got []int
				for i := 0; i < sc.Size(); i++ {
					got = append(got, sc.WorldRank(i))
				}
				if !slices.Equal(got, want) {
					return fmt.Errorf("rank %d: shared part %v, want node %d's ranks %v", c.Rank(), got, node(c.Rank()), want)
				}
				return nil
			})
			if err != nil {
				t.Fatalf("%s mapping, %d ranks: %v", mapping, n, err)
			}
		}
	}
}

// CreateGroup is collective over the group only: the even ranks and the
// odd ranks each make their own communicator at once, without the others,
// and use it.
func TestCreateGroupMembersOnly(t *testing.T) {
	for _, n := range worldSizes {
		runT(t, n, func(c *Comm) error {
			parity := c.Rank() % 2
			var members []int
			for r := parity; r < n; r += 2 {
				members = append(members, r)
			}
			slices.Reverse(members) // the group's order, not c's
			g, err := c.Group().Incl(members)
			if err != nil {
				return err
			}
			nc, err := c.CreateGroup(g, 10+parity)
			if err != nil {
				return err
			}
			if nc.Size() != len(members) || nc.WorldRank(nc.Rank()) != c.Rank() || nc.WorldRank(0) != members[0] {
				return fmt.Errorf("rank %d: communicator of %d ranks, rank %d", c.Rank(), nc.Size(), nc.Rank())
			}
			sum := make([]int, 1)
			if err := Allreduce(nc, []int{c.Rank()}, sum, Sum); err != nil {
				return err
			}
			want := 0
			for _, r := range members {
				want += r
			}
			if sum[0] != want {
				return fmt.Errorf("sum over the new communicator %d, want %d", sum[0], want)
			}
			// Its traffic stays apart from c's.
			if nc.Size() > 1 {
				if nc.Rank() == 0 {
					if err := Send(nc, []int{5}, 1, 0); err != nil {
						return err
					}
				} else if nc.Rank() == 1 {
					if _, err := Recv(nc, make([]int, 1), 0, 0); err != nil {
						return err
					}
				}
			}
			if err := c.Barrier(); err != nil {
				return err
			}
			// A non-member may not call it; a bad tag or group is refused.
			other, _ := c.Group().Excl([]int{c.Rank()})
			if _, err := c.CreateGroup(other, 0); !errors.Is(err, ErrGroup) {
				return fmt.Errorf("CreateGroup by a non-member: %v", err)
			}
			if _, err := c.CreateGroup(g, -2); !errors.Is(err, ErrTag) {
				return fmt.Errorf("CreateGroup with tag -2: %v", err)
			}
			if _, err := c.CreateGroup(nil, 0); !errors.Is(err, ErrGroup) {
				return fmt.Errorf("CreateGroup of nil: %v", err)
			}
			return nc.Free()
		})
	}
}

// Names: MPI_COMM_WORLD's default, local names, no copy on Dup (which
// copies a topology), cut at MaxObjectName-1 bytes on a character
// boundary.
func TestCommNames(t *testing.T) {
	if (*Comm)(nil).Name() != "" {
		t.Fatal("nil communicator has a name")
	}
	runT(t, 3, func(c *Comm) error {
		if c.Name() != "MPI_COMM_WORLD" {
			return fmt.Errorf("world name %q", c.Name())
		}
		d, err := c.Dup()
		if err != nil {
			return err
		}
		if d.Name() != "" {
			return fmt.Errorf("Dup's name %q", d.Name())
		}
		if err := d.SetName(fmt.Sprint("rank ", c.Rank())); err != nil {
			return err
		}
		if d.Name() != fmt.Sprint("rank ", c.Rank()) || c.Name() != "MPI_COMM_WORLD" {
			return fmt.Errorf("names %q %q", d.Name(), c.Name())
		}
		if err := c.SetName(""); err != nil || c.Name() != "" {
			return fmt.Errorf("world renamed to empty: %q %v", c.Name(), err)
		}
		long := strings.Repeat("é", 100) // 200 bytes
		if err := d.SetName(long); err != nil {
			return err
		}
		if got := d.Name(); len(got) != 126 || !strings.HasPrefix(long, got) {
			return fmt.Errorf("long name cut to %d bytes", len(got))
		}
		if err := d.Free(); err != nil {
			return err
		}
		if err := d.SetName("x"); !errors.Is(err, ErrComm) {
			return fmt.Errorf("SetName on a freed communicator: %v", err)
		}
		// A named grid's Dup has its topology and no name; naming the
		// copy leaves the grid's name, freeing it the grid's topology.
		grid, err := c.CartCreate([]int{c.Size()}, []bool{false}, false)
		if err != nil {
			return err
		}
		if err := grid.SetName("grid"); err != nil {
			return err
		}
		gd, err := grid.Dup()
		if err != nil {
			return err
		}
		if k, err := gd.Topo(); err != nil || k != TopoCart || gd.Name() != "" {
			return fmt.Errorf("a named grid's Dup: topology %v (%v), name %q", k, err, gd.Name())
		}
		if err := gd.SetName("copy"); err != nil {
			return err
		}
		if err := gd.Free(); err != nil {
			return err
		}
		if k, err := grid.Topo(); err != nil || k != TopoCart || grid.Name() != "grid" {
			return fmt.Errorf("the grid once its named Dup is freed: topology %v (%v), name %q", k, err, grid.Name())
		}
		return grid.Free()
	})
}

// RangeIncl and RangeExcl against Incl and Excl of the expanded triplets,
// on random triplets over groups of sizes 1-17 and 64, and MPICH's error
// rules.
func TestGroupRanges(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for _, n := range append([]int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17}, 64) {
		g := worldGroup(n)
		for trial := 0; trial < 50; trial++ {
			// Random disjoint triplets: walk a shuffled set of
			// arithmetic runs and keep those that hit no taken rank.
			taken := make([]bool, n)
			var ranges [][3]int
			var list []int
			for k := 0; k < 4; k++ {
				first, last := rng.Intn(n), rng.Intn(n)
				stride := 1 + rng.Intn(3)
				if first > last {
					stride = -stride
				}
				var run []int
				ok := true
				for r := first; stride > 0 && r <= last || stride < 0 && r >= last; r += stride {
					ok = ok && !taken[r]
					run = append(run, r)
				}
				if !ok {
					continue
				}
				for _, r := range run {
					taken[r] = true
				}
				ranges = append(ranges, [3]int{first, last, stride})
				list = append(list, run...)
			}
			inc, err := g.RangeIncl(ranges)
			if err != nil {
				t.Fatalf("n %d, %v: %v", n, ranges, err)
			}
			want, _ := g.Incl(list)
			if inc.Compare(want) != Ident {
				t.Fatalf("n %d: RangeIncl(%v) differs from Incl(%v)", n, ranges, list)
			}
			exc, err := g.RangeExcl(ranges)
			if err != nil {
				t.Fatal(err)
			}
			if want, _ := g.Excl(list); exc.Compare(want) != Ident {
				t.Fatalf("n %d: RangeExcl(%v) differs from Excl(%v)", n, ranges, list)
			}
		}
	}
	g := worldGroup(8)
	for _, bad := range [][][3]int{
		{{-1, 3, 1}}, {{0, 8, 1}}, {{8, 0, -1}}, {{0, 3, 0}},
		{{5, 2, 1}}, {{2, 5, -1}}, {{0, 4, 2}, {4, 6, 1}}, {{0, 7, 1 << 62}, {0, 0, 1}},
	} {
		if _, err := g.RangeIncl(bad); !errors.Is(err, ErrArg) {
			t.Errorf("RangeIncl(%v): %v", bad, err)
		}
		if _, err := g.RangeExcl(bad); !errors.Is(err, ErrArg) {
			t.Errorf("RangeExcl(%v): %v", bad, err)
		}
	}
	// A stride may overshoot last, and huge strides name first alone.
	if h, err := g.RangeIncl([][3]int{{1, 6, 4}, {7, 0, -1 << 62}}); err != nil || h.Size() != 3 || h.worldRank(2) != 7 {
		t.Fatalf("overshooting strides: %v %v", h.members(), err)
	}
	if _, err := (*Group)(nil).RangeIncl(nil); !errors.Is(err, ErrGroup) {
		t.Fatalf("RangeIncl on nil: %v", err)
	}
}

// In virtual time CreateGroup, SplitType and a collective over what they
// make predict the same time on every run.
func TestCommExtrasVirtualRepeatable(t *testing.T) {
	fn := func(c *Comm) error {
		var members []int
		for r := c.Rank() % 3; r < c.Size(); r += 3 {
			members = append(members, r)
		}
		g, err := c.Group().Incl(members)
		if err != nil {
			return err
		}
		nc, err := c.CreateGroup(g, 0)
		if err != nil {
			return err
		}
		if err := Allreduce(nc, []float64{1}, make([]float64, 1), Sum); err != nil {
			return err
		}
		sc, err := c.SplitType(SplitTypeShared, 0)
		if err != nil {
			return err
		}
		return sc.Barrier()
	}
	for _, n := range []int{4, 17} {
		want := runVirtual(t, "tianhe1a", n, fn).Report().Predicted
		for rep := 0; rep < 2; rep++ {
			if got := runVirtual(t, "tianhe1a", n, fn).Report().Predicted; got != want {
				t.Fatalf("%d ranks: run %d predicts %g s, the first %g s", n, rep+2, got, want)
			}
		}
	}
}
