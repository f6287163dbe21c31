package mpi

import (
	"math"
	"testing"
	"time"

	"github.com/gompi/gompi/transport"
	"github.com/gompi/gompi/vtime"
)

// The paper's Algorithm 2 and Fig. 4 scenarios run against the production
// waiting loop (waitPhase, dispatch, drainEarly): rank 0 of a virtual
// world on the Tianhe-1A preset (cpu-scale 0, so t_V moves only by Elapse
// and the model) receives frames the test puts into its inbox in a chosen
// host order, stamped with chosen target arrival times, as if rank 12 (h =
// 3) had sent them. vtime/paper_test.go checks the model's rules alone.

// alg2Peer is the sender the frames claim: another node of one board.
const alg2Peer = 12

// onRank0 runs body on rank 0 of a 24-rank virtual world whose other ranks
// return at once, and returns the world's clocks.
func onRank0(t *testing.T, body func(c *Comm) error) *Virtual {
	t.Helper()
	v, err := NewVirtual(tianhe1a(t), 24, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Run(func(c *Comm) error {
		if c.Rank() != 0 {
			return nil
		}
		return body(c)
	}); err != nil {
		t.Fatal(err)
	}
	return v
}

// arrive puts a frame from alg2Peer into c's inbox: the host delivers it
// now, the target at ta. kind is transport.Data (eager, 8 bytes) or
// transport.Req (a rendezvous of size bytes, whose ACK goes back to the peer).
func arrive(c *Comm, kind transport.Kind, tag int, ta float64, size int64) {
	f := transport.NewFrame()
	f.Header = transport.Header{Kind: kind, Context: c.ctx, Src: alg2Peer, Dst: int32(c.r.id),
		Tag: int32(tag), Size: size, Arrival: ta, SendID: uint64(tag)}
	if kind == transport.Data {
		f.CopyPayload(make([]byte, size))
	}
	c.r.inbox.Deliver(f)
}

// ackArrival is the t_a of the ACK rank 0 sent the peer for the REQ of tag.
func ackArrival(t *testing.T, c *Comm, tag int) float64 {
	t.Helper()
	ib := c.r.w.ranks[alg2Peer].inbox
	for f := ib.NextNow(); f != nil; f = ib.NextNow() {
		if f.Kind == transport.Ack && f.SendID == uint64(tag) {
			return f.Arrival
		}
	}
	t.Fatalf("no ACK for the REQ of tag %d reached rank %d", tag, alg2Peer)
	return 0
}

const alg2BMem = 6.38e9 // Tianhe-1A's B_mem

func lh3(t *testing.T) float64 {
	m, err := vtime.Preset("tianhe1a")
	if err != nil {
		t.Fatal(err)
	}
	tg, err := m.Place(24)
	if err != nil {
		t.Fatal(err)
	}
	_, ta := tg.Transfer(0, 0, 0, alg2Peer, nil)
	return ta // l(3) for a zero-byte message with o = 0
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }

// TestAlg2Line13EarlyQueue: a message not related to the wait that reaches
// the target after the wait began (t_a > t_V) waits in the early queue; the
// related one ends the wait; the early one is dealt by the wait it belongs
// to, at its own t_a.
func TestAlg2Line13EarlyQueue(t *testing.T) {
	buf := make([]byte, 8)
	onRank0(t, func(c *Comm) error {
		c.Elapse(1e9) // t_V = 1 s
		mine, _ := Irecv(c, buf, alg2Peer, 1)
		later, _ := Irecv(c, buf, alg2Peer, 2)
		arrive(c, transport.Data, 2, 5, 8) // host order: later first
		arrive(c, transport.Data, 1, 3, 8)
		if _, err := mine.Wait(); err != nil {
			return err
		}
		if got, want := c.Wtime(), 3+8/alg2BMem; !near(got, want) {
			t.Errorf("first wait ends at %.12g, want the related DATA's t_a + s/B_mem = %.12g", got, want)
		}
		if later.done.Load() {
			t.Error("the DATA arriving at 5 on the target was dealt by a wait that ended at 3")
		}
		if _, err := later.Wait(); err != nil {
			return err
		}
		if got, want := c.Wtime(), 5+8/alg2BMem; !near(got, want) {
			t.Errorf("second wait ends at %.12g, want 5 + s/B_mem = %.12g", got, want)
		}
		return nil
	})
}

// TestAlg2Line23EarlyMessageDueInsideWait: a REQ that reaches the host
// first but the target at 2, inside the wait that ends at 3 with the
// related DATA, is dealt by lines 22-27 of that wait: its ACK leaves at 2.
func TestAlg2Line23EarlyMessageDueInsideWait(t *testing.T) {
	buf, big := make([]byte, 8), make([]byte, 1<<20)
	onRank0(t, func(c *Comm) error {
		_, _ = Irecv(c, big, alg2Peer, 7) // the REQ's receive, posted at 0
		q, _ := Irecv(c, buf, alg2Peer, 1)
		arrive(c, transport.Req, 7, 2, int64(len(big)))
		arrive(c, transport.Data, 1, 3, 8)
		if _, err := q.Wait(); err != nil {
			return err
		}
		if got, want := ackArrival(t, c, 7), 2+lh3(t); !near(got, want) {
			t.Errorf("ACK arrives at %.12g, want t_a(REQ) + l(3) = %.12g", got, want)
		}
		return nil
	})
}

// TestAlg2Fig4bMessageBeforeFirstWait: on the target m arrives during the
// second A_WT; on the host before the first. The first wait leaves it in
// the early queue; the second, which waits for it, ends at t_a(m) + s/B_mem.
func TestAlg2Fig4bMessageBeforeFirstWait(t *testing.T) {
	const s = 6380
	buf, mbuf := make([]byte, 8), make([]byte, s)
	onRank0(t, func(c *Comm) error {
		c.Elapse(10e9) // t_V = 10
		m, _ := Irecv(c, mbuf, alg2Peer, 2)
		c1, _ := Irecv(c, buf, alg2Peer, 1)
		arrive(c, transport.Data, 2, 25, s)
		arrive(c, transport.Data, 1, 11, 8)
		if _, err := c1.Wait(); err != nil {
			return err
		}
		if got, want := c.Wtime(), 11+8/alg2BMem; !near(got, want) || m.done.Load() {
			t.Errorf("first wait ends at %.12g (want %.12g), m dealt %v (want false)", got, want, m.done.Load())
		}
		c.Elapse(9e9)
		if _, err := m.Wait(); err != nil {
			return err
		}
		if got, want := c.Wtime(), 25+s/alg2BMem; !near(got, want) {
			t.Errorf("second wait ends at %.12g, want t_a(m) + s/B_mem = %.12g", got, want)
		}
		return nil
	})
}

// TestAlg2Fig4cMessageAfterSecondWait: on the target m (a REQ) arrives at
// 22, during the second A_WT [20, 30]; on the host only during the third.
// Algorithm 3 deals with it at its target time from the waits' history: its
// ACK leaves at 22, not at the third wait's start (40).
func TestAlg2Fig4cMessageAfterSecondWait(t *testing.T) {
	buf, big := make([]byte, 8), make([]byte, 1<<20)
	onRank0(t, func(c *Comm) error {
		_, _ = Irecv(c, big, alg2Peer, 9) // m's receive, posted at 0
		wait := func(tag int, ta float64) error {
			q, _ := Irecv(c, buf, alg2Peer, tag)
			arrive(c, transport.Data, tag, ta, 8)
			_, err := q.Wait()
			return err
		}
		c.Elapse(10e9)
		if err := wait(1, 12); err != nil { // A_WT 0: [10, 12]
			return err
		}
		c.Elapse(8e9)
		if err := wait(2, 30); err != nil { // A_WT 1: [20, 30]
			return err
		}
		c.Elapse(10e9)
		q, _ := Irecv(c, buf, alg2Peer, 3)
		arrive(c, transport.Req, 9, 22, int64(len(big)))
		arrive(c, transport.Data, 3, 41, 8)
		if _, err := q.Wait(); err != nil { // A_WT 2 from 40
			return err
		}
		if got, want := ackArrival(t, c, 9), 22+lh3(t); !near(got, want) {
			t.Errorf("ACK for m arrives at %.12g, want 22 + l(3) = %.12g (dealt in the second A_WT)", got, want)
		}
		return nil
	})
}

// TestAlg2Line3CompletedWaitTakesNoTime: a wait whose request is already
// complete passes through its event points and ends where it began.
func TestAlg2Line3CompletedWaitTakesNoTime(t *testing.T) {
	buf := make([]byte, 8)
	v := onRank0(t, func(c *Comm) error {
		q, _ := Isend(c, buf, ProcNull, 1) // complete at once
		c.Elapse(2e9)
		_, err := q.Wait()
		if got := c.Wtime(); got != 2 {
			t.Errorf("completed wait: t_V %g, want 2", got)
		}
		return err
	})
	if w := v.Results()[0].Waiting; w != 0 {
		t.Errorf("waiting %g, want 0", w)
	}
}

// TestAlg2Line13RelatedMessageIsNeverEarly: the related DATA is dealt
// whatever its t_a, and the wait ends at t_a + s/B_mem (line 26).
func TestAlg2Line13RelatedMessageIsNeverEarly(t *testing.T) {
	buf := make([]byte, 6380)
	onRank0(t, func(c *Comm) error {
		q, _ := Irecv(c, buf, alg2Peer, 1)
		arrive(c, transport.Data, 1, 7, int64(len(buf)))
		_, err := q.Wait()
		if got, want := c.Wtime(), 7+6380/alg2BMem; !near(got, want) {
			t.Errorf("t_V = %.12g, want t_a + s/B_mem = %.12g", got, want)
		}
		return err
	})
}

// TestAlg2Line6EarlyMessageDueBeforeWait: a REQ early in wait 0 ([0, 1])
// that reached the target at 4, before wait 1 began at 10, is dealt at the
// start of wait 1 (lines 5-10), and answered then (Algorithm 3 line 11).
func TestAlg2Line6EarlyMessageDueBeforeWait(t *testing.T) {
	buf, big := make([]byte, 8), make([]byte, 1<<20)
	onRank0(t, func(c *Comm) error {
		_, _ = Irecv(c, big, alg2Peer, 7)
		c1, _ := Irecv(c, buf, alg2Peer, 1)
		arrive(c, transport.Req, 7, 4, int64(len(big)))
		arrive(c, transport.Data, 1, 1, 8)
		if _, err := c1.Wait(); err != nil {
			return err
		}
		c.Elapse(time.Duration((10 - c.Wtime()) * 1e9)) // t_V = 10, to a nanosecond
		start := c.Wtime()
		c2, _ := Irecv(c, buf, alg2Peer, 2)
		arrive(c, transport.Data, 2, 12, 8)
		if _, err := c2.Wait(); err != nil {
			return err
		}
		if got, want := ackArrival(t, c, 7), start+lh3(t); !near(got, want) {
			t.Errorf("ACK arrives at %.12g, want the second wait's start + l(3) = %.12g", got, want)
		}
		return nil
	})
}

// TestAlg2Line23MessageArrivingAsTheWaitEnds: line 23's test is
// t_a(m) <= A_WT_end[num]: a REQ reaching the target at the very instant
// the wait ends is still this wait's to deal with.
func TestAlg2Line23MessageArrivingAsTheWaitEnds(t *testing.T) {
	buf, big := make([]byte, 8), make([]byte, 1<<20)
	onRank0(t, func(c *Comm) error {
		_, _ = Irecv(c, big, alg2Peer, 7)
		q, _ := Irecv(c, buf, alg2Peer, 1)
		arrive(c, transport.Req, 7, 3, int64(len(big)))
		arrive(c, transport.Data, 1, 3-8/alg2BMem, 8) // the wait ends at 3
		if _, err := q.Wait(); err != nil {
			return err
		}
		if got := c.Wtime(); !near(got, 3) {
			t.Fatalf("wait ended at %.12g, want 3", got)
		}
		if got, want := ackArrival(t, c, 7), 3+lh3(t); !near(got, want) {
			t.Errorf("ACK arrives at %.12g, want t_a + l(3) = %.12g", got, want)
		}
		return nil
	})
}

// TestAlg2Line16UnexpectedQueue: a DATA for no posted receive goes to the
// unexpected queue, and the receive posted later takes it from there (DR).
func TestAlg2Line16UnexpectedQueue(t *testing.T) {
	buf := make([]byte, 8)
	onRank0(t, func(c *Comm) error {
		c.Elapse(5e9)
		q, _ := Irecv(c, buf, alg2Peer, 2)
		arrive(c, transport.Data, 1, 1, 8) // no receive for tag 1 yet
		arrive(c, transport.Data, 2, 6, 8)
		if _, err := q.Wait(); err != nil {
			return err
		}
		if len(c.r.unexpected) != 1 || c.r.unexpected[0].Tag != 1 {
			t.Fatalf("unexpected queue holds %d frames, want the DATA of tag 1", len(c.r.unexpected))
		}
		_, err := Recv(c, buf, alg2Peer, 1)
		return err
	})
}
