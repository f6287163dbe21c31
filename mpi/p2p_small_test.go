//go:build linux

package mpi

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/gompi/gompi/transport"
)

// spyRoute counts the frames and the small sends its route takes, and
// the small sends it was asked to take.
type spyRoute struct {
	tr                   transport.Transport
	frames, small, asked atomic.Int64
}

func (s *spyRoute) Send(f *transport.Frame) error { s.frames.Add(1); return s.tr.Send(f) }
func (s *spyRoute) Close() error                  { return s.tr.Close() }
func (s *spyRoute) CopiesOnSend(dst int) bool {
	c, ok := s.tr.(transport.SendCopier)
	return ok && c.CopiesOnSend(dst)
}

func (s *spyRoute) SmallMax() int { return s.tr.(transport.SmallSender).SmallMax() }

func (s *spyRoute) SendSmall(h *transport.Header, p []byte) (bool, error) {
	s.asked.Add(1)
	sent, err := s.tr.(transport.SmallSender).SendSmall(h, p)
	if sent {
		s.small.Add(1)
	}
	return sent, err
}

// runLoop runs fn on loopWorld's rank with the short paths on, its route
// spied on by spy.
func runLoop(t *testing.T, spy *spyRoute, fn func(c *Comm) error, opts ...Option) {
	t.Helper()
	w := loopWorld(t, true, func(_ *world, tr transport.Transport) transport.Transport {
		spy.tr = tr
		return spy
	}, opts...)
	if err := w.run(fn); err != nil {
		t.Fatal(err)
	}
}

// TestSendSmallTakesTheCell: a blocking Send of a few bytes to a rank of
// another process goes through the route's SmallSender, and arrives as
// any message does; Sends of more than a cell holds, Ssend and Isend
// take the general path.
func TestSendSmallTakesTheCell(t *testing.T) {
	spy := &spyRoute{}
	runLoop(t, spy, func(c *Comm) error {
		step := func(what string, send func(buf []byte) error, size int, small bool) error {
			s0, f0, a0 := spy.small.Load(), spy.frames.Load(), spy.asked.Load()
			out := make([]byte, size)
			for i := range out {
				out[i] = byte(i + size)
			}
			if err := send(out); err != nil {
				return fmt.Errorf("%s: %v", what, err)
			}
			in := make([]byte, size)
			st, err := Recv(c, in, 0, AnyTag)
			if err != nil || st.Source != 0 || st.Tag != size || st.Bytes != size || string(in) != string(out) {
				return fmt.Errorf("%s of %d bytes received with status %+v, err %v", what, size, st, err)
			}
			if ds, df := spy.small.Load()-s0, spy.frames.Load()-f0; small && (ds != 1 || df != 0) || !small && ds != 0 {
				return fmt.Errorf("%s of %d bytes: %d small sends and %d frames", what, size, ds, df)
			}
			if da := spy.asked.Load() - a0; size > 96 && da != 0 {
				return fmt.Errorf("%s of %d bytes asked the route for a small send (SmallMax 96)", what, size)
			}
			return nil
		}
		for _, size := range []int{1, 8, 96} {
			if err := step("Send", func(b []byte) error { return Send(c, b, 0, len(b)) }, size, true); err != nil {
				return err
			}
		}
		steps := []struct {
			what string
			send func(b []byte) error
		}{
			{"Send", func(b []byte) error { return Send(c, b, 0, len(b)) }},
			{"Isend", func(b []byte) error {
				q, err := Isend(c, b, 0, len(b))
				if err != nil {
					return err
				}
				_, err = q.Wait()
				return err
			}},
		}
		for _, s := range steps {
			if err := step(s.what, s.send, 97, false); err != nil { // more than a cell's short header leaves room for
				return err
			}
		}
		return step("Isend", steps[1].send, 8, false)
	})
}

// TestSendSmallKeepsOrder: messages from one sender match in the order
// they were sent (MPI's non-overtaking rule) whichever way each went:
// into a cell, or into the ring behind a record not yet read.
func TestSendSmallKeepsOrder(t *testing.T) {
	spy := &spyRoute{}
	runLoop(t, spy, func(c *Comm) error {
		big := make([]byte, 4096)
		sends := []func(tag int) error{
			func(tag int) error { return Send(c, []byte{byte(tag)}, 0, tag) },
			func(tag int) error {
				q, err := Isend(c, big, 0, tag)
				if err == nil {
					_, err = q.Wait()
				}
				return err
			},
		}
		// 0: cell; 1: ring; 2, 3: behind the ring's record; 4: ring.
		for tag, k := range []int{0, 1, 0, 0, 1} {
			if err := sends[k](tag); err != nil {
				return err
			}
		}
		if spy.small.Load() != 1 {
			return fmt.Errorf("%d small sends; want the first Send's alone", spy.small.Load())
		}
		buf := make([]byte, len(big))
		for want := range 5 {
			st, err := Recv(c, buf, AnySource, AnyTag)
			if err != nil || st.Tag != want {
				return fmt.Errorf("receive %d matched tag %d (err %v)", want, st.Tag, err)
			}
		}
		return nil
	})
}

// TestSendSmallErrors: what the short path declines because it is wrong
// gets the general path's errors; a receive shorter than a small message
// is truncated as any other.
func TestSendSmallErrors(t *testing.T) {
	spy := &spyRoute{}
	runLoop(t, spy, func(c *Comm) error {
		buf := make([]byte, 8)
		if err := Send(c, buf, 2, 0); ClassOf(err) != ClassRank {
			return fmt.Errorf("Send to rank 2 of 2: %v", err)
		}
		if err := Send(c, buf, 0, -3); ClassOf(err) != ClassTag {
			return fmt.Errorf("Send with tag -3: %v", err)
		}
		if err := Send(c, buf, ProcNull, 0); err != nil {
			return fmt.Errorf("Send to ProcNull: %v", err)
		}
		if err := Send(c, buf, 0, 1); err != nil {
			return err
		}
		st, err := Recv(c, buf[:3], 0, 1)
		if ClassOf(err) != ClassTruncate || st.Bytes != 3 {
			return fmt.Errorf("8 bytes into 3: status %+v, err %v", st, err)
		}
		if spy.small.Load() != 1 {
			return fmt.Errorf("%d small sends, want 1", spy.small.Load())
		}
		return nil
	})
}

// TestSendSmallRespectsEagerLimit: a limit below the message's size keeps
// a Send off the short path (it must wait for its receiver).
func TestSendSmallRespectsEagerLimit(t *testing.T) {
	w := loopWorld(t, true, nil, WithEagerLimit(4))
	err := w.run(func(c *Comm) error {
		if sent, err := c.sendSmall(make([]byte, 8), 0, 0); sent || err != nil {
			return fmt.Errorf("8 bytes with an eager limit of 4: sent %v, err %v", sent, err)
		}
		if sent, err := c.sendSmall(make([]byte, 4), 0, 0); !sent || err != nil {
			return fmt.Errorf("4 bytes with an eager limit of 4: sent %v, err %v", sent, err)
		}
		_, err := Recv(c, make([]byte, 4), 0, 0)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestSendSmallCounted: a job's deadlock detection counts what crosses
// processes (countingRoute); a small send is counted once, when it goes.
func TestSendSmallCounted(t *testing.T) {
	var r *rank
	w := loopWorld(t, true, func(w *world, tr transport.Transport) transport.Transport {
		r = w.ranks[0]
		return newCountingRoute(w, tr)
	})
	err := w.run(func(c *Comm) error {
		for i := range 3 {
			if err := Send(c, make([]byte, 8+100*i), 0, 0); err != nil { // a cell, then the ring
				return err
			}
		}
		for range 3 {
			if _, err := Recv(c, make([]byte, 300), 0, 0); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := r.xout.Load(); n != 3 {
		t.Fatalf("counted %d frames sent, want 3", n)
	}
}

// plainRoute is a transport that is no SmallSender; smallRoute one that
// takes payloads up to max bytes (and declines them all).
type plainRoute struct{ transport.Transport }

type smallRoute struct {
	plainRoute
	max int
}

func (s *smallRoute) SmallMax() int                                     { return s.max }
func (s *smallRoute) SendSmall(*transport.Header, []byte) (bool, error) { return false, nil }

// TestSmallRoutes: the engine finds each destination's SmallSender once,
// before the ranks run, and the longest payload any takes; a route that
// takes none (a counting route over TCP) is left out, and a job without
// one keeps the short path off.
func TestSmallRoutes(t *testing.T) {
	plain := plainRoute{}
	a, b := &smallRoute{max: 96}, &smallRoute{max: 40}
	none := newCountingRoute(nil, plain)
	got, most := smallRoutes(&transport.Table{Routes: []transport.Transport{plain, a, nil, b, none}})
	if len(got) != 5 || got[0] != nil || got[1] != a || got[2] != nil || got[3] != b || got[4] != nil || most != 96 {
		t.Fatalf("smallRoutes: %v, longest %d", got, most)
	}
	if got, most := smallRoutes(&transport.Table{Routes: []transport.Transport{plain, none, nil}}); got != nil || most != 0 {
		t.Fatalf("smallRoutes of routes without a SmallSender: %v, longest %d", got, most)
	}
}

// spiedPair is pairWorld with each rank's route spied on: spies[d] is
// the route to rank d.
func spiedPair(t *testing.T) (*world, []*spyRoute) {
	var spies []*spyRoute
	w := pairWorld(t, true, func(tr transport.Transport) transport.Transport {
		s := &spyRoute{tr: tr}
		spies = append(spies, s)
		return s
	})
	return w, spies
}

// TestCollectivesTakeShortPath: a blocking collective's small send steps
// between processes take the short path as a Send does (blockingSend,
// exchange), with the same results; a nonblocking collective's steps, and
// a step of more than a cell, take requests.
func TestCollectivesTakeShortPath(t *testing.T) {
	w, spies := spiedPair(t)
	counts := func() (small, frames int64) {
		for _, s := range spies {
			small += s.small.Load()
			frames += s.frames.Load()
		}
		return small, frames
	}
	var phases [][2]int64
	mark := func(c *Comm) error {
		if err := c.Barrier(); err != nil {
			return err
		}
		if c.Rank() == 0 {
			s, f := counts()
			phases = append(phases, [2]int64{s, f})
		}
		return c.Barrier()
	}
	err := w.run(func(c *Comm) error {
		me := c.Rank()
		if err := mark(c); err != nil {
			return err
		}
		v := []float64{float64(me + 1)}
		if err := Bcast(c, v, 1); err != nil || v[0] != 2 {
			return fmt.Errorf("Bcast: %v, %v", v, err)
		}
		sum := []float64{0}
		if err := Allreduce(c, []float64{float64(me + 1)}, sum, Sum); err != nil || sum[0] != 3 {
			return fmt.Errorf("Allreduce: %v, %v", sum, err)
		}
		got := make([]int32, 2)
		if err := Alltoall(c, []int32{int32(10*me + 0), int32(10*me + 1)}, got); err != nil || got[0] != int32(me) || got[1] != int32(10+me) {
			return fmt.Errorf("Alltoall: %v, %v", got, err)
		}
		if err := mark(c); err != nil { // phase 1: small steps only
			return err
		}
		q, err := Iallreduce(c, []float64{1}, sum, Sum)
		if err == nil {
			_, err = q.Wait()
		}
		if err != nil || sum[0] != 2 {
			return fmt.Errorf("Iallreduce: %v, %v", sum, err)
		}
		if err := mark(c); err != nil { // phase 2: a nonblocking collective
			return err
		}
		big := make([]byte, 4096)
		big[4095] = byte(me + 7)
		if err := Bcast(c, big, 0); err != nil || big[4095] != 7 {
			return fmt.Errorf("Bcast of 4 KiB: %v", err)
		}
		return mark(c) // phase 3: a step of more than a cell
	})
	if err != nil {
		t.Fatal(err)
	}
	// Each mark's two Barriers take small steps too.
	if len(phases) != 4 {
		t.Fatalf("%d phases", len(phases))
	}
	d := func(i int) (small, frames int64) {
		return phases[i][0] - phases[i-1][0], phases[i][1] - phases[i-1][1]
	}
	if s, f := d(1); s == 0 || f != 0 {
		t.Errorf("Bcast, Allreduce, Alltoall of a few bytes: %d small sends, %d frames; want frames none", s, f)
	}
	if _, f := d(2); f == 0 {
		t.Error("a nonblocking Allreduce sent no frames")
	}
	if _, f := d(3); f == 0 {
		t.Error("a Bcast of 4 KiB sent no frames")
	}
}

// TestSendrecvTakesShortPath: Sendrecv's send of a few bytes to another
// process takes the short path, its receive the usual one.
func TestSendrecvTakesShortPath(t *testing.T) {
	spy := &spyRoute{}
	runLoop(t, spy, func(c *Comm) error {
		out, in := []int16{3, -4}, make([]int16, 2)
		st, err := Sendrecv(c, out, 0, 5, in, 0, 5)
		if err != nil || st.Tag != 5 || st.Bytes != 4 || in[0] != 3 || in[1] != -4 {
			return fmt.Errorf("Sendrecv: %v, status %+v, err %v", in, st, err)
		}
		if spy.small.Load() != 1 || spy.frames.Load() != 0 {
			return fmt.Errorf("%d small sends, %d frames", spy.small.Load(), spy.frames.Load())
		}
		return nil
	})
}

// TestSendSmallNotWhileNonblockingCollectives: with a nonblocking
// collective under way a Send takes the general path, whose wait
// progresses the collective's schedule.
func TestSendSmallNotWhileNonblockingCollectives(t *testing.T) {
	w, spies := spiedPair(t)
	var small, frames int64
	err := w.run(func(c *Comm) error {
		if c.Rank() == 1 {
			if _, err := Recv(c, make([]byte, 8), 0, 3); err != nil {
				return err
			}
			q, err := c.Ibarrier()
			if err == nil {
				_, err = q.Wait()
			}
			return err
		}
		q, err := c.Ibarrier()
		if err != nil {
			return err
		}
		s0, f0 := spies[1].small.Load(), spies[1].frames.Load() // the route to rank 1
		if err := Send(c, make([]byte, 8), 1, 3); err != nil {
			return err
		}
		small, frames = spies[1].small.Load()-s0, spies[1].frames.Load()-f0
		_, err = q.Wait()
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if small != 0 || frames == 0 {
		t.Fatalf("Send during an Ibarrier: %d small sends, %d frames", small, frames)
	}
}

// pollSpy is a Poller that delivers nothing and counts the polls a rank
// makes before it parks (blockedIn set).
type pollSpy struct {
	r      *rank
	before atomic.Int64
}

func (p *pollSpy) Poll(*transport.Inbox) bool {
	if p.r.blockedIn.Load() == 0 {
		p.before.Add(1)
	}
	return false
}

// TestWaitRealPollsBeforeParking: a quick rank's blocking wait polls its
// transports quickPolls times, beside the first poll, before it parks,
// where its inbox spins; where it does not (no spin, or a SpinGroup with
// more ranks awake than processors) it parks after the first poll.
func TestWaitRealPollsBeforeParking(t *testing.T) {
	for _, c := range []struct {
		name    string
		spin    transport.Spin
		crowded bool
		want    int64
	}{
		{"spinning", transport.Spin{Checks: transport.SpinIters}, false, 1 + quickPolls},
		{"no spin", transport.Spin{}, false, 1},
		{"crowded", transport.Spin{Checks: transport.SpinIters}, true, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := newConfig(nil)
			if err != nil {
				t.Fatal(err)
			}
			w := newWorld(1, 0, 1, cfg)
			r := w.ranks[0]
			spy := &pollSpy{r: r}
			r.inbox.AddPoller(spy)
			r.inbox.SetSpin(c.spin)
			if c.crowded {
				// Two ranks awake on one processor.
				r.inbox.SetSpinGroup(transport.NewSpinGroup(2, 1))
			}
			var done atomic.Bool
			go func() {
				for r.blockedIn.Load() == 0 {
					runtime.Gosched()
				}
				done.Store(true)
				r.inbox.Kick()
			}()
			r.waitReal(done.Load, true)
			if got := spy.before.Load(); got != c.want {
				t.Fatalf("%d polls before parking, want %d", got, c.want)
			}
		})
	}
}
