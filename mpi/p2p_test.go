package mpi

import (
	"errors"
	"fmt"
	"math"
	"testing"
)

func TestRingSendRecvAllSizes(t *testing.T) {
	for _, n := range worldSizes {
		for _, size := range msgSizes {
			if n == 64 && size > DefaultEagerLimit+1 {
				continue
			}
			t.Run(fmt.Sprintf("n%d/%dB", n, size), func(t *testing.T) {
				runT(t, n, func(c *Comm) error {
					me, next, prev := c.Rank(), (c.Rank()+1)%n, (c.Rank()+n-1)%n
					out, in := make([]byte, size), make([]byte, size)
					pattern(out, me, next, 0)
					// Even ranks send first; odd receive first; n == 1 sends to self with Isend.
					if n == 1 {
						q, err := Isend(c, out, next, 3)
						if err != nil {
							return err
						}
						if _, err := Recv(c, in, prev, 3); err != nil {
							return err
						}
						if _, err := q.Wait(); err != nil {
							return err
						}
					} else if me%2 == 0 {
						if err := Send(c, out, next, 3); err != nil {
							return err
						}
						if _, err := Recv(c, in, prev, 3); err != nil {
							return err
						}
					} else {
						st, err := Recv(c, in, prev, 3)
						if err != nil {
							return err
						}
						if st.Source != prev || st.Tag != 3 || st.Bytes != size {
							return fmt.Errorf("status %+v", st)
						}
						if err := Send(c, out, next, 3); err != nil {
							return err
						}
					}
					return checkPattern(in, prev, me, 0)
				})
			})
		}
	}
}

func TestTypedBuffers(t *testing.T) {
	runT(t, 2, func(c *Comm) error {
		f := []float64{1.5, math.Inf(1), -0.0, math.Pi}
		z := []complex128{complex(1, 2), complex(-3, 4)}
		i := []int16{-1, 2, math.MaxInt16}
		if c.Rank() == 0 {
			if err := Send(c, f, 1, 1); err != nil {
				return err
			}
			if err := Send(c, z, 1, 2); err != nil {
				return err
			}
			return Send(c, i, 1, 3)
		}
		gf, gz, gi := make([]float64, 4), make([]complex128, 2), make([]int16, 3)
		st, err := Recv(c, gf, 0, 1)
		if err != nil {
			return err
		}
		if Count[float64](st) != 4 || Count[float32](st) != 8 || Count[complex128](st) != 2 {
			return fmt.Errorf("counts from %+v", st)
		}
		if _, err := Recv(c, gz, 0, 2); err != nil {
			return err
		}
		st, err = Recv(c, gi, 0, 3)
		if err != nil {
			return err
		}
		if Count[int32](st) != Undefined {
			return fmt.Errorf("6 bytes as int32 should be Undefined, got %d", Count[int32](st))
		}
		for k := range f {
			if math.Float64bits(f[k]) != math.Float64bits(gf[k]) {
				return fmt.Errorf("float %d: %v != %v", k, gf[k], f[k])
			}
		}
		if gz[0] != z[0] || gz[1] != z[1] || gi[2] != i[2] || gi[0] != -1 {
			return fmt.Errorf("typed data differs: %v %v", gz, gi)
		}
		return nil
	})
}

// Every rank sends to every rank (itself included) with Isend/Irecv and
// Waitall, sizes on both sides of the eager limit.
func TestAllPairsNonblocking(t *testing.T) {
	for _, n := range worldSizes {
		sizes := []int{5, DefaultEagerLimit + 100}
		if n == 64 {
			sizes = []int{5, 2000}
		}
		for _, size := range sizes {
			t.Run(fmt.Sprintf("n%d/%dB", n, size), func(t *testing.T) {
				runT(t, n, func(c *Comm) error {
					me := c.Rank()
					in := make([][]byte, n)
					reqs := make([]*Request, 0, 2*n)
					for src := 0; src < n; src++ {
						in[src] = make([]byte, size)
						q, err := Irecv(c, in[src], src, 9)
						if err != nil {
							return err
						}
						reqs = append(reqs, q)
					}
					for dst := 0; dst < n; dst++ {
						out := make([]byte, size)
						pattern(out, me, dst, 1)
						q, err := Isend(c, out, dst, 9)
						if err != nil {
							return err
						}
						reqs = append(reqs, q)
					}
					st, err := Waitall(reqs)
					if err != nil {
						return err
					}
					for src := 0; src < n; src++ {
						if st[src].Source != src || st[src].Bytes != size {
							return fmt.Errorf("status %d: %+v", src, st[src])
						}
						if err := checkPattern(in[src], src, me, 1); err != nil {
							return err
						}
					}
					return nil
				})
			})
		}
	}
}

func TestAnySourceAnyTag(t *testing.T) {
	for _, n := range worldSizes {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			runT(t, n, func(c *Comm) error {
				if c.Rank() != 0 {
					buf := []int64{int64(c.Rank()), int64(c.Rank() * 10)}
					if c.Rank()%2 == 0 {
						return Send(c, buf, 0, c.Rank())
					}
					return Ssend(c, buf, 0, c.Rank())
				}
				seen := make([]bool, n)
				for k := 1; k < n; k++ {
					buf := make([]int64, 2)
					st, err := Recv(c, buf, AnySource, AnyTag)
					if err != nil {
						return err
					}
					if st.Tag != st.Source || buf[0] != int64(st.Source) || buf[1] != int64(10*st.Source) || seen[st.Source] {
						return fmt.Errorf("bad receive %+v %v", st, buf)
					}
					seen[st.Source] = true
				}
				return nil
			})
		})
	}
}

// Non-overtaking: messages from one sender on one communicator are matched
// in the order sent, whatever their sizes (eager after rendezvous included)
// and whether the receives name the tag or use AnyTag.
func TestNonOvertakingOrder(t *testing.T) {
	sizes := []int{10, 3 * DefaultEagerLimit, 0, 20, DefaultEagerLimit + 1, 1}
	for _, n := range []int{2, 3, 8, 17} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			runT(t, n, func(c *Comm) error {
				const rounds = 5
				if c.Rank() != 0 {
					for k := 0; k < rounds*len(sizes); k++ {
						buf := make([]byte, sizes[k%len(sizes)])
						pattern(buf, c.Rank(), 0, k)
						// Mix modes: a rendezvous Isend left pending while later eager sends go.
						if k%4 == 1 {
							q, err := Isend(c, buf, 0, k%2)
							if err != nil {
								return err
							}
							defer q.Wait()
							continue
						}
						if err := Send(c, buf, 0, k%2); err != nil {
							return err
						}
					}
					return nil
				}
				next := make([]int, n) // next sequence number expected per source
				for got := 0; got < (n-1)*rounds*len(sizes); got++ {
					buf := make([]byte, 3*DefaultEagerLimit)
					st, err := Recv(c, buf, AnySource, AnyTag)
					if err != nil {
						return err
					}
					k := next[st.Source]
					next[st.Source]++
					if st.Bytes != sizes[k%len(sizes)] || st.Tag != k%2 {
						return fmt.Errorf("from %d: message %d arrived as %+v: overtaken", st.Source, k, st)
					}
					if err := checkPattern(buf[:st.Bytes], st.Source, 0, k); err != nil {
						return err
					}
				}
				return nil
			})
		})
	}
}

func TestSendrecvAndReplace(t *testing.T) {
	for _, n := range worldSizes {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			runT(t, n, func(c *Comm) error {
				me, next, prev := c.Rank(), (c.Rank()+1)%n, (c.Rank()+n-1)%n
				out := []int32{int32(me), int32(me * me)}
				in := make([]int32, 2)
				st, err := Sendrecv(c, out, next, 4, in, prev, 4)
				if err != nil {
					return err
				}
				if st.Source != prev || in[0] != int32(prev) || in[1] != int32(prev*prev) {
					return fmt.Errorf("Sendrecv got %v from %+v", in, st)
				}
				big := make([]float64, DefaultEagerLimit/8+10)
				for i := range big {
					big[i] = float64(me*1000 + i)
				}
				if _, err := SendrecvReplace(c, big, prev, 5, next, 5); err != nil {
					return err
				}
				for i := range big {
					if big[i] != float64(next*1000+i) {
						return fmt.Errorf("SendrecvReplace element %d = %v", i, big[i])
					}
				}
				return nil
			})
		})
	}
}

// An Issend completes only once the receiver has matched it.
func TestIssendCompletesOnMatch(t *testing.T) {
	runT(t, 2, func(c *Comm) error {
		buf := []byte{1, 2, 3}
		if c.Rank() == 0 {
			q, err := Issend(c, buf, 1, 0)
			if err != nil {
				return err
			}
			for i := 0; i < 50; i++ {
				if done, _, _ := q.Test(); done {
					return errors.New("Issend completed before the receive was posted")
				}
			}
			if err := Send(c, []byte{0}, 1, 1); err != nil { // tell 1 to post now
				return err
			}
			_, err = q.Wait()
			return err
		}
		if _, err := Recv(c, make([]byte, 1), 0, 1); err != nil {
			return err
		}
		_, err := Recv(c, buf, 0, 0)
		return err
	})
}

// Waitany must not starve: with every request always ready, successive
// calls return different indices.
func TestWaitanyTestanyFairness(t *testing.T) {
	for _, n := range []int{3, 8, 17} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			runT(t, n, func(c *Comm) error {
				const rounds = 20
				if c.Rank() != 0 {
					for k := 0; k < rounds; k++ {
						if err := Send(c, []int{c.Rank()}, 0, 0); err != nil {
							return err
						}
					}
					return nil
				}
				// Let every sender's messages arrive before we start.
				for s := 1; s < n; s++ {
					if _, err := c.Probe(s, 0); err != nil {
						return err
					}
				}
				reqs := make([]*Request, n-1)
				bufs := make([][]int, n-1)
				for i := range reqs {
					bufs[i] = make([]int, 1)
					reqs[i], _ = Irecv(c, bufs[i], i+1, 0)
				}
				served := make([]int, n)
				for k := 0; k < (n-1)*rounds; k++ {
					var i int
					var st Status
					var err error
					if k%2 == 0 {
						i, st, err = Waitany(reqs)
					} else {
						var ok bool
						for !ok {
							i, ok, st, err = Testany(reqs)
						}
					}
					if err != nil {
						return err
					}
					if st.Source != i+1 || bufs[i][0] != i+1 {
						return fmt.Errorf("Waitany index %d status %+v buf %v", i, st, bufs[i])
					}
					served[st.Source]++
					if served[st.Source] < rounds {
						reqs[i], _ = Irecv(c, bufs[i], i+1, 0)
					} else {
						reqs[i] = nil
					}
					// Fairness: after the first n-1 completions, every sender was served once.
					if k == n-2 {
						for s := 1; s < n; s++ {
							if served[s] != 1 {
								return fmt.Errorf("after %d completions sender %d served %d times: %v", n-1, s, served[s], served)
							}
						}
					}
				}
				if i, _, _ := Waitany(reqs); i != Undefined {
					return fmt.Errorf("Waitany on all-nil requests returned %d", i)
				}
				return nil
			})
		})
	}
}

func TestWaitsomeTestsomeTestall(t *testing.T) {
	runT(t, 4, func(c *Comm) error {
		if c.Rank() != 0 {
			if err := Send(c, []int{c.Rank()}, 0, 0); err != nil {
				return err
			}
			if c.Rank() == 1 { // the Testall part: answer, then send the two awaited messages
				if _, err := Recv(c, make([]int, 1), 0, 79); err != nil {
					return err
				}
				if err := Send(c, []int{0}, 0, 80); err != nil {
					return err
				}
				if err := Send(c, []int{10}, 0, 77); err != nil {
					return err
				}
				return Send(c, []int{11}, 0, 77)
			}
			return nil
		}
		reqs := make([]*Request, 3)
		bufs := make([][]int, 3)
		for i := range reqs {
			bufs[i] = make([]int, 1)
			reqs[i], _ = Irecv(c, bufs[i], i+1, 0)
		}
		got := 0
		for got < 3 {
			idx, st, err := Waitsome(reqs)
			if err != nil {
				return err
			}
			if len(idx) == 0 {
				return errors.New("Waitsome returned nothing")
			}
			for k, i := range idx {
				if st[k].Source != i+1 {
					return fmt.Errorf("Waitsome status %+v at %d", st[k], i)
				}
				reqs[i] = nil
				got++
			}
		}
		// Testall on pending requests reports false, then true once they complete.
		pend := make([]*Request, 2)
		pb := make([][]int, 2)
		for i := range pend {
			pb[i] = make([]int, 1)
			pend[i], _ = Irecv(c, pb[i], 1, 77)
		}
		if ok, _, _ := Testall(pend); ok {
			return errors.New("Testall true before any message")
		}
		if err := Send(c, []int{5}, 0, 78); err != nil { // self message, unrelated
			return err
		}
		if _, err := Recv(c, make([]int, 1), 0, 78); err != nil {
			return err
		}
		if _, err := Sendrecv(c, []int{1}, 1, 79, make([]int, 1), 1, 80); err != nil {
			return err
		}
		for {
			ok, st, err := Testall(pend)
			if err != nil {
				return err
			}
			if ok {
				if pb[0][0] != 10 || pb[1][0] != 11 || st[1].Source != 1 {
					return fmt.Errorf("Testall results %v %v %+v", pb[0], pb[1], st)
				}
				break
			}
		}
		if idx, _, _ := Testsome(reqs); idx != nil {
			return fmt.Errorf("Testsome on nil requests: %v", idx)
		}
		ok, _, err := Testall(reqs)
		if !ok || err != nil {
			return fmt.Errorf("Testall on nil requests: %v %v", ok, err)
		}
		return nil
	})
}

func TestProbeIprobeThenRecv(t *testing.T) {
	for _, size := range []int{0, 100, 3 * DefaultEagerLimit} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			runT(t, 3, func(c *Comm) error {
				if c.Rank() != 0 {
					buf := make([]byte, size+c.Rank())
					pattern(buf, c.Rank(), 0, 0)
					return Send(c, buf, 0, 7)
				}
				for k := 0; k < 2; k++ {
					var st Status
					for {
						ok, s, err := c.Iprobe(AnySource, 7)
						if err != nil {
							return err
						}
						if ok {
							st = s
							break
						}
					}
					st2, err := c.Probe(st.Source, AnyTag)
					if err != nil || st2.Source != st.Source || st2.Bytes != st.Bytes {
						return fmt.Errorf("Probe %+v after Iprobe %+v: %v", st2, st, err)
					}
					if st.Bytes != size+st.Source {
						return fmt.Errorf("probed size %d", st.Bytes)
					}
					buf := make([]byte, st.Bytes)
					if _, err := Recv(c, buf, st.Source, st.Tag); err != nil {
						return err
					}
					if err := checkPattern(buf, st.Source, 0, 0); err != nil {
						return err
					}
				}
				if ok, _, _ := c.Iprobe(AnySource, AnyTag); ok {
					return errors.New("Iprobe found a message after all were received")
				}
				return nil
			})
		})
	}
}

func TestCancelReceive(t *testing.T) {
	runT(t, 2, func(c *Comm) error {
		if c.Rank() == 1 {
			if _, err := Recv(c, make([]byte, 1), 0, 1); err != nil {
				return err
			}
			return Send(c, []int{42}, 0, 5)
		}
		buf := make([]int, 1)
		q, _ := Irecv(c, buf, 1, 5)
		if err := q.Cancel(); err != nil {
			return err
		}
		st, err := q.Wait()
		if err != nil || !st.Cancelled {
			return fmt.Errorf("cancelled receive: %+v %v", st, err)
		}
		if err := Send(c, []byte{0}, 1, 1); err != nil {
			return err
		}
		// The message must go to the next receive, not the cancelled one.
		st, err = Recv(c, buf, 1, 5)
		if err != nil || buf[0] != 42 || st.Cancelled {
			return fmt.Errorf("after cancel: %v %+v %v", buf, st, err)
		}
		sq, _ := Isend(c, []byte{1}, 1, 9)
		if err := sq.Cancel(); !errors.Is(err, ErrRequest) {
			return fmt.Errorf("send cancel: %v", err)
		}
		return nil
	}, WithEagerLimit(0))
}

// A receive into a too-small buffer delivers what fits, reports truncation,
// and leaves the messages after it intact.
func TestTruncation(t *testing.T) {
	for _, size := range []int{16, 3 * DefaultEagerLimit} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			runT(t, 2, func(c *Comm) error {
				if c.Rank() == 0 {
					for k := 0; k < 3; k++ {
						buf := make([]byte, size)
						pattern(buf, 0, 1, k)
						if err := Send(c, buf, 1, 0); err != nil {
							return err
						}
					}
					return nil
				}
				small := make([]byte, size/2)
				st, err := Recv(c, small, 0, 0)
				if !errors.Is(err, ErrTruncate) || ClassOf(err) != ClassTruncate {
					return fmt.Errorf("want truncate error, got %v", err)
				}
				if st.Bytes != size/2 {
					return fmt.Errorf("truncated status %+v", st)
				}
				full := make([]byte, size)
				pattern(full, 0, 1, 0)
				for i := range small {
					if small[i] != full[i] {
						return fmt.Errorf("truncated prefix differs at %d", i)
					}
				}
				q, _ := Irecv(c, make([]byte, 1), 0, 0)
				if _, err := q.Wait(); !errors.Is(err, ErrTruncate) {
					return fmt.Errorf("nonblocking truncate: %v", err)
				}
				buf := make([]byte, size)
				if _, err := Recv(c, buf, 0, 0); err != nil {
					return err
				}
				return checkPattern(buf, 0, 1, 2)
			})
		})
	}
}

func TestInvalidArguments(t *testing.T) {
	runT(t, 3, func(c *Comm) error {
		buf := make([]byte, 4)
		checks := []struct {
			err  error
			want error
		}{
			{Send(c, buf, 3, 0), ErrRank},
			{Send(c, buf, -5, 0), ErrRank},
			{Send(c, buf, AnySource, 0), ErrRank},
			{Send(c, buf, 0, -1), ErrTag},
			{Send(c, buf, 0, TagUB+1), ErrTag},
			{errOf(Recv(c, buf, 17, 0)), ErrRank},
			{errOf(Recv(c, buf, 0, -7)), ErrTag},
			{errOf(Recv[byte](nil, buf, 0, 0)), ErrComm},
			{Send[byte](nil, buf, 0, 0), ErrComm},
		}
		for i, ch := range checks {
			if !errors.Is(ch.err, ch.want) {
				return fmt.Errorf("check %d: got %v, want class %v", i, ch.err, ch.want.(*Error).Class)
			}
		}
		d, err := c.Dup()
		if err != nil {
			return err
		}
		if err := d.Free(); err != nil {
			return err
		}
		if err := Send(d, buf, 0, 0); !errors.Is(err, ErrComm) {
			return fmt.Errorf("send on freed comm: %v", err)
		}
		if err := c.Free(); !errors.Is(err, ErrComm) {
			return fmt.Errorf("freeing world: %v", err)
		}
		return nil
	})
}

func errOf(_ Status, err error) error { return err }

func TestProcNull(t *testing.T) {
	runT(t, 2, func(c *Comm) error {
		if err := Send(c, []int{1}, ProcNull, 0); err != nil {
			return err
		}
		st, err := Recv(c, make([]int, 1), ProcNull, AnyTag)
		if err != nil || st.Source != ProcNull || st.Bytes != 0 {
			return fmt.Errorf("ProcNull receive %+v %v", st, err)
		}
		// The classic shift at the ends of a non-periodic line.
		dst, src := c.Rank()+1, c.Rank()-1
		if dst == c.Size() {
			dst = ProcNull
		}
		if src < 0 {
			src = ProcNull
		}
		in := []int{-1}
		st, err = Sendrecv(c, []int{c.Rank()}, dst, 0, in, src, 0)
		if err != nil {
			return err
		}
		if c.Rank() == 1 && in[0] != 0 || c.Rank() == 0 && (in[0] != -1 || st.Source != ProcNull) {
			return fmt.Errorf("rank %d shift got %v %+v", c.Rank(), in, st)
		}
		return nil
	})
}

func TestObjectMessages(t *testing.T) {
	type point struct {
		Name string
		X, Y float64
		Tags []string
	}
	runT(t, 2, func(c *Comm) error {
		if c.Rank() == 0 {
			if err := c.SendObject(point{"p", 1, 2, []string{"a", "b"}}, 1, 0); err != nil {
				return err
			}
			return c.SendObject("not a point", 1, 1)
		}
		p, st, err := RecvObj[point](c, 0, 0)
		if err != nil {
			return err
		}
		if p.Name != "p" || p.Y != 2 || len(p.Tags) != 2 || st.Source != 0 {
			return fmt.Errorf("object %+v", p)
		}
		var bad point
		if _, err := c.RecvObject(&bad, 0, 1); !errors.Is(err, ErrType) {
			return fmt.Errorf("decoding a string into a struct: %v", err)
		}
		return nil
	})
}
