package mpi

import (
	"errors"
	"fmt"
	"math/rand"
	"sort"
	"testing"
)

// splitModel is MPI_Comm_split by brute force: for world rank me, the
// members (parent ranks) of its new communicator in order, or nil.
func splitModel(colors, keys []int, me int) []int {
	if colors[me] == Undefined {
		return nil
	}
	var m []int
	for r := range colors {
		if colors[r] == colors[me] {
			m = append(m, r)
		}
	}
	sort.SliceStable(m, func(i, j int) bool { return keys[m[i]] < keys[m[j]] })
	return m
}

func TestSplitMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, n := range worldSizes {
		for trial := 0; trial < 3; trial++ {
			colors, keys := make([]int, n), make([]int, n)
			for i := range colors {
				colors[i] = rng.Intn(4)
				if rng.Intn(6) == 0 {
					colors[i] = Undefined
				}
				keys[i] = rng.Intn(5) - 2
			}
			t.Run(fmt.Sprintf("n%d/%d", n, trial), func(t *testing.T) {
				runT(t, n, func(c *Comm) error {
					me := c.Rank()
					s, err := c.Split(colors[me], keys[me])
					if err != nil {
						return err
					}
					want := splitModel(colors, keys, me)
					if want == nil {
						if s != nil {
							return errors.New("Undefined color got a communicator")
						}
						return nil
					}
					if s.Size() != len(want) || want[s.Rank()] != me {
						return fmt.Errorf("rank %d: got rank %d of %d, want members %v", me, s.Rank(), s.Size(), want)
					}
					for i, w := range want {
						if s.WorldRank(i) != w {
							return fmt.Errorf("member %d is %d, want %d", i, s.WorldRank(i), w)
						}
					}
					// Traffic on the new communicator: a ring within it.
					k := s.Size()
					out := []int{me}
					in := []int{-1}
					if _, err := Sendrecv(s, out, (s.Rank()+1)%k, 0, in, (s.Rank()+k-1)%k, 0); err != nil {
						return err
					}
					if in[0] != want[(s.Rank()+k-1)%k] {
						return fmt.Errorf("ring on split comm got %d", in[0])
					}
					return s.Free()
				})
			})
		}
	}
}

// Messages with the same source and tag on different communicators never
// match each other's receives.
func TestContextsIsolateTraffic(t *testing.T) {
	runT(t, 4, func(c *Comm) error {
		d, err := c.Dup()
		if err != nil {
			return err
		}
		half, err := c.Split(c.Rank()%2, 0)
		if err != nil {
			return err
		}
		if cmp, _ := c.Compare(d); cmp != Congruent {
			return fmt.Errorf("world vs dup: %v", cmp)
		}
		if cmp, _ := c.Compare(c); cmp != Ident {
			return fmt.Errorf("world vs itself: %v", cmp)
		}
		if cmp, _ := c.Compare(half); cmp != Unequal {
			return fmt.Errorf("world vs half: %v", cmp)
		}
		if c.Rank() == 0 {
			// Same tag on three communicators, sent in an order the receiver does not read them in.
			if err := Send(c, []int{1}, 2, 0); err != nil {
				return err
			}
			if err := Send(d, []int{2}, 2, 0); err != nil {
				return err
			}
			return Send(half, []int{3}, 1, 0) // rank 1 of {0,2} is world 2
		}
		if c.Rank() == 2 {
			buf := []int{0}
			if _, err := Recv(half, buf, AnySource, AnyTag); err != nil || buf[0] != 3 {
				return fmt.Errorf("half got %v %v", buf, err)
			}
			if _, err := Recv(d, buf, AnySource, AnyTag); err != nil || buf[0] != 2 {
				return fmt.Errorf("dup got %v %v", buf, err)
			}
			if _, err := Recv(c, buf, AnySource, AnyTag); err != nil || buf[0] != 1 {
				return fmt.Errorf("world got %v %v", buf, err)
			}
		}
		return nil
	})
}

func TestCreateFromGroupAndGroupOps(t *testing.T) {
	for _, n := range []int{1, 4, 17} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			runT(t, n, func(c *Comm) error {
				g := c.Group()
				if g.Size() != n || g.Rank() != c.Rank() {
					return fmt.Errorf("world group %d/%d", g.Rank(), g.Size())
				}
				var evens, rev []int
				for i := 0; i < n; i += 2 {
					evens = append(evens, i)
				}
				for i := n - 1; i >= 0; i-- {
					rev = append(rev, i)
				}
				ge, err := g.Incl(evens)
				if err != nil {
					return err
				}
				gr, _ := g.Incl(rev)
				godd, _ := g.Excl(evens)
				if ge.Size()+godd.Size() != n || ge.Intersection(godd).Size() != 0 {
					return errors.New("evens/odds do not partition")
				}
				if ge.Union(godd).Compare(g) != Similar && n > 2 {
					return fmt.Errorf("evens+odds vs world: %v", ge.Union(godd).Compare(g))
				}
				if gr.Compare(g) != Similar && n > 1 || g.Compare(g) != Ident {
					return errors.New("reverse group comparison")
				}
				if d := g.Difference(ge); d.Compare(godd) != Ident {
					return errors.New("difference is not the odds")
				}
				tr, err := gr.TranslateRanks([]int{0, n - 1, ProcNull}, g)
				if err != nil || tr[0] != n-1 || tr[1] != 0 || tr[2] != ProcNull {
					return fmt.Errorf("translate %v %v", tr, err)
				}
				te, _ := g.TranslateRanks([]int{n - 1}, ge)
				if (n-1)%2 == 1 && te[0] != Undefined {
					return fmt.Errorf("odd rank translated into evens: %v", te)
				}
				if _, err := g.Incl([]int{0, 0}); !errors.Is(err, ErrRank) {
					return fmt.Errorf("duplicate Incl: %v", err)
				}
				if _, err := g.Excl([]int{n}); !errors.Is(err, ErrRank) {
					return fmt.Errorf("bad Excl: %v", err)
				}
				ce, err := c.Create(ge)
				if err != nil {
					return err
				}
				if c.Rank()%2 == 1 {
					if ce != nil {
						return errors.New("non-member got a communicator")
					}
					return nil
				}
				if ce.Rank() != c.Rank()/2 || ce.Size() != ge.Size() {
					return fmt.Errorf("created comm rank %d size %d", ce.Rank(), ce.Size())
				}
				cr, err := ce.Dup()
				if err != nil {
					return err
				}
				return cr.Free()
			})
		})
	}
}

// Context ids are reused after Free, so a long program may create and free
// many more communicators than there are ids.
func TestContextIDsReusedAfterFree(t *testing.T) {
	runT(t, 3, func(c *Comm) error {
		for i := 0; i < 3*64*ctxWords; i++ {
			d, err := c.Dup()
			if err != nil {
				return fmt.Errorf("dup %d: %w", i, err)
			}
			if err := d.Free(); err != nil {
				return err
			}
		}
		// Exhaustion is an error, not a panic.
		var held []*Comm
		for {
			d, err := c.Dup()
			if err != nil {
				if ClassOf(err) != ClassOther {
					return fmt.Errorf("exhaustion error class %v", ClassOf(err))
				}
				break
			}
			held = append(held, d)
		}
		if len(held) != 64*ctxWords-1 {
			return fmt.Errorf("got %d communicators before exhaustion", len(held))
		}
		for _, d := range held {
			d.Free()
		}
		return nil
	})
}

func TestSplitRejectsNegativeColor(t *testing.T) {
	runT(t, 1, func(c *Comm) error {
		if _, err := c.Split(-3, 0); !errors.Is(err, ErrArg) {
			return fmt.Errorf("got %v", err)
		}
		return nil
	})
}
