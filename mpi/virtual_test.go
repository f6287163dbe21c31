package mpi

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gompi/gompi/vtime"
	"golang.org/x/sys/unix"
)

// virtualPingPong runs one ping-pong of size bytes between ranks 0 and peer of a
// virtual world on machine m (cpu-scale 0) and returns the report.
func virtualPingPong(t *testing.T, m *vtime.Machine, ranks, peer, size int, opts ...Option) Report {
	t.Helper()
	v, err := NewVirtual(m, ranks, 0)
	if err != nil {
		t.Fatal(err)
	}
	err = v.Run(func(c *Comm) error {
		buf := make([]byte, size)
		switch c.Rank() {
		case 0:
			if err := Send(c, buf, peer, 1); err != nil {
				return err
			}
			_, err := Recv(c, buf, peer, 2)
			return err
		case peer:
			if _, err := Recv(c, buf, 0, 1); err != nil {
				return err
			}
			return Send(c, buf, 0, 2)
		}
		return nil
	}, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return v.Report()
}

// TestVirtualPingPongClosedForms checks the closed forms of design.md end to
// end on the Tianhe-1A preset (ranks 0 and 12 are on different nodes of one
// board: h = 3, l = l(3)): eager one-way = 2 s/B_mem + s/B_net + l and
// rendezvous one-way = 3 l + 2 s/B_mem + s/B_net. The receiver is always
// waiting first, so a ping-pong takes twice the one-way time.
func TestVirtualPingPongClosedForms(t *testing.T) {
	m, err := vtime.Preset("tianhe1a")
	if err != nil {
		t.Fatal(err)
	}
	const bmem, bnet = 6.38e9, 4.16e9
	l := 15e-6 + 3*0.6e-6
	for _, tc := range []struct {
		name string
		size int
		want float64
	}{
		{"eager-empty", 0, l},
		{"eager", 1000, 2*1000/bmem + 1000/bnet + l},
		{"eager-limit", DefaultEagerLimit, 2*float64(DefaultEagerLimit)/bmem + float64(DefaultEagerLimit)/bnet + l},
		{"rendezvous", 1 << 20, 3*l + 2*float64(1<<20)/bmem + float64(1<<20)/bnet},
	} {
		rep := virtualPingPong(t, m, 13, 12, tc.size)
		if got := rep.Predicted; math.Abs(got-2*tc.want) > 1e-9*2*tc.want {
			t.Errorf("%s: predicted %.12g s, want 2 x %.12g = %.12g", tc.name, got, tc.want, 2*tc.want)
		}
		if rep.Sent != 2 || rep.SentBytes != int64(2*tc.size) {
			t.Errorf("%s: counted %d messages, %d bytes", tc.name, rep.Sent, rep.SentBytes)
		}
	}
	// Same node (h = 0): L = s / B_mem, so eager one-way = 3 s / B_mem.
	rep := virtualPingPong(t, m, 2, 1, 1000)
	if want := 2 * 3 * 1000 / bmem; math.Abs(rep.Predicted-want) > 1e-9*want {
		t.Errorf("on-node: predicted %.12g, want %.12g", rep.Predicted, want)
	}
}

// TestVirtualProtocolFollowsTargetEagerLimit: whether a message goes
// eagerly or by rendezvous is the target MPI's choice, by the machine's
// eager limit for the route (eager_limit within a node, net_eager_limit
// across the network), not gompi's (DefaultEagerLimit, WithEagerLimit).
// Each size lies between the machine's limit and gompi's, so the closed
// form tells which protocol was used: across the network (h = 3, l =
// l(3)) eager one-way = 2 s/B_mem + s/B_net + l, rendezvous one-way =
// 3 l + 2 s/B_mem + s/B_net; within a node (h = 0, L = s/B_mem) they are
// both 3 s/B_mem. A per-message overhead a (charged to each of REQ, ACK
// and DATA) tells them apart there too: a more for eager, 3 a for
// rendezvous.
func TestVirtualProtocolFollowsTargetEagerLimit(t *testing.T) {
	const bmem, bnet, a = 6.38e9, 4.16e9, 1e-6
	l := 15e-6 + 3*0.6e-6
	limit := func(n int) *int { return &n }
	for _, tc := range []struct {
		name       string
		node, net  *int // the machine's eager_limit and net_eager_limit
		peer, size int
		want       float64 // one way
	}{
		{"net-limit-below-gompi's/rendezvous", nil, limit(16 << 10), 12, 32 << 10,
			3*a + 3*l + 2*float64(32<<10)/bmem + float64(32<<10)/bnet},
		{"net-limit-above-gompi's/eager", nil, limit(256 << 10), 12, 128 << 10,
			a + 2*float64(128<<10)/bmem + float64(128<<10)/bnet + l},
		{"net-limit-omitted/eager", nil, nil, 12, DefaultEagerLimit,
			a + 2*float64(DefaultEagerLimit)/bmem + float64(DefaultEagerLimit)/bnet + l},
		{"net-limit-zero/rendezvous", limit(1 << 20), limit(0), 12, 1,
			3*a + 3*l + 2/bmem + 1/bnet},
		{"node-limit-below-gompi's/rendezvous", limit(16 << 10), limit(0), 1, 32 << 10,
			3*a + 3*float64(32<<10)/bmem},
		{"node-limit-above-gompi's/eager", limit(256 << 10), limit(0), 1, 128 << 10,
			a + 3*float64(128<<10)/bmem},
	} {
		m, err := vtime.Preset("tianhe1a")
		if err != nil {
			t.Fatal(err)
		}
		m.EagerLimit, m.NetEagerLimit = tc.node, tc.net
		// Overhead a is charged once per message (the REQ, the ACK and the
		// DATA of a rendezvous): with it the protocols differ on a node.
		m.Overhead.A = a
		// gompi's own limit, whatever it is, must not matter.
		for _, opts := range [][]Option{nil, {WithEagerLimit(0)}, {WithEagerLimit(1 << 30)}} {
			rep := virtualPingPong(t, m, 13, tc.peer, tc.size, opts...)
			if got := rep.Predicted; math.Abs(got-2*tc.want) > 1e-9*2*tc.want {
				t.Errorf("%s, %d options: predicted %.12g s, want 2 x %.12g = %.12g", tc.name, len(opts), got, tc.want, 2*tc.want)
			}
		}
	}
	if vtime.DefaultEagerLimit != DefaultEagerLimit {
		t.Errorf("a machine without eager limits uses %d bytes, gompi %d: existing predictions change", vtime.DefaultEagerLimit, DefaultEagerLimit)
	}
}

// TestVirtualLogGPGapSerializesTwoIsends: rank 0 Isends two messages of s
// bytes at once to rank 1 (h = 3 on Tianhe-1A, l = l(3)), which waits for
// both (cpu-scale 0); the prediction is rank 1's end, when the second
// DATA is copied out. Without nic_queue Eq. (4) charges each message
// s/B_net on its own; with it the second's transfer waits for the first
// to leave rank 0's injection link (LogGP's gap, the machine field
// nic_queue), as NPB MG's two face messages to one neighbour do on a real
// link:
//
//	eager:      second DATA buffered at 2 s/B_mem; it arrives at
//	            2 s/B_mem + s/B_net + l, or s/B_mem + 2 s/B_net + l queued
//	rendezvous: both ACKs are dealt at 2 l, both DATAs buffered at
//	            2 l + s/B_mem; the second arrives at 3 l + s/B_mem + s/B_net,
//	            or 3 l + s/B_mem + 2 s/B_net queued
func TestVirtualLogGPGapSerializesTwoIsends(t *testing.T) {
	const bmem, bnet = 6.38e9, 4.16e9
	l := 15e-6 + 3*0.6e-6
	for _, tc := range []struct {
		name          string
		size          int
		queue         bool
		secondArrives float64
	}{
		{"eager", 32 << 10, false, 2*float64(32<<10)/bmem + float64(32<<10)/bnet + l},
		{"eager/nic_queue", 32 << 10, true, float64(32<<10)/bmem + 2*float64(32<<10)/bnet + l},
		{"rendezvous", 1 << 20, false, 3*l + float64(1<<20)/bmem + float64(1<<20)/bnet},
		{"rendezvous/nic_queue", 1 << 20, true, 3*l + float64(1<<20)/bmem + 2*float64(1<<20)/bnet},
	} {
		m, err := vtime.Preset("tianhe1a")
		if err != nil {
			t.Fatal(err)
		}
		m.NICQueue = tc.queue
		v, err := NewVirtual(m, 13, 0)
		if err != nil {
			t.Fatal(err)
		}
		err = v.Run(func(c *Comm) error {
			a, b := make([]byte, tc.size), make([]byte, tc.size)
			var q [2]*Request
			var errs [2]error
			switch c.Rank() {
			case 0:
				q[0], errs[0] = Isend(c, a, 12, 1)
				q[1], errs[1] = Isend(c, b, 12, 2)
			case 12:
				q[0], errs[0] = Irecv(c, a, 0, 1)
				q[1], errs[1] = Irecv(c, b, 0, 2)
			default:
				return nil
			}
			if err := errors.Join(errs[:]...); err != nil {
				return err
			}
			_, err := Waitall(q[:])
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		want := tc.secondArrives + float64(tc.size)/bmem
		if got := v.Report().Predicted; math.Abs(got-want) > 1e-9*want {
			t.Errorf("%s: predicted %.12g s, want %.12g", tc.name, got, want)
		}
	}
}

// skeleton is an Elapse-based halo-style program with point-to-point
// traffic in several patterns: small and large eager messages, rendezvous
// messages, nonblocking operations and Waitall, with imbalanced computation.
// Receives are double-buffered: those of iteration it+1 are posted before
// waiting for iteration it, so every message arrives (in virtual time)
// after its receive was posted. That is the condition under which the
// prediction cannot depend on host scheduling (docs/model.md).
func skeleton(c *Comm) error {
	n, me := c.Size(), c.Rank()
	right, left := (me+1)%n, (me+n-1)%n
	const iters = 5
	small := make([]float64, 16)
	mid := make([]float64, 4<<10)  // 32 KiB, eager
	big := make([]float64, 32<<10) // 256 KiB, rendezvous
	type inbufs struct{ small, mid, big []float64 }
	in := [2]inbufs{}
	for i := range in {
		in[i] = inbufs{make([]float64, len(small)), make([]float64, len(mid)), make([]float64, len(big))}
	}
	recvs := make([][]*Request, iters)
	post := func(it int) error {
		b := in[it%2]
		var errs [3]error
		var q [3]*Request
		q[0], errs[0] = Irecv(c, b.small, left, 1)
		q[1], errs[1] = Irecv(c, b.mid, right, 2)
		recvs[it] = append(recvs[it], q[0], q[1])
		if me%2 == 1 {
			q[2], errs[2] = Irecv(c, b.big, me-1, 3)
			recvs[it] = append(recvs[it], q[2])
		}
		return errors.Join(errs[:]...)
	}
	if err := post(0); err != nil {
		return err
	}
	for it := 0; it < iters; it++ {
		c.Elapse(time.Duration(1000*(me%3+1)+it*100+50*me) * time.Microsecond)
		var errs [3]error
		var sends [3]*Request
		sends[0], errs[0] = Isend(c, small, right, 1)
		sends[1], errs[1] = Isend(c, mid, left, 2)
		if me%2 == 0 && me+1 < n {
			sends[2], errs[2] = Isend(c, big, me+1, 3)
		}
		if err := errors.Join(errs[:]...); err != nil {
			return err
		}
		if it+1 < iters {
			if err := post(it + 1); err != nil {
				return err
			}
		}
		if _, err := Waitall(append(recvs[it], sends[:]...)); err != nil {
			return err
		}
	}
	return nil
}

// TestVirtualRepeatable: with cpu-scale 0 and an Elapse skeleton the
// prediction, every rank's end time included, is bit-identical across runs
// whatever the host scheduling did.
func TestVirtualRepeatable(t *testing.T) {
	m, err := vtime.Preset("tianhe1a")
	if err != nil {
		t.Fatal(err)
	}
	var first []RankRecord
	for run := 0; run < 6; run++ {
		v, err := NewVirtual(m, 30, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := v.Run(skeleton); err != nil {
			t.Fatal(err)
		}
		res := v.Results()
		for _, r := range res {
			if sum := r.Computation + r.Communication + r.Waiting; math.Abs(sum-r.End) > 1e-12*r.End {
				t.Errorf("rank %d: computation + communication + waiting = %g, end %g", r.Rank, sum, r.End)
			}
		}
		if run == 0 {
			first = res
			rep := v.Report()
			var text strings.Builder
			rep.WriteText(&text)
			t.Log("\n" + text.String())
			if rep.Predicted < 5*1e-3 {
				t.Fatalf("predicted %g s, below the Elapse total", rep.Predicted)
			}
			continue
		}
		if !reflect.DeepEqual(res, first) {
			for i := range res {
				if res[i] != first[i] {
					t.Fatalf("run %d differs at rank %d:\n%+v\n%+v", run, i, res[i], first[i])
				}
			}
		}
	}
}

// tianhe1a is the Tianhe-1A preset; a preset that does not build fails the
// test (never a skip: it is what the test is about).
func tianhe1a(t testing.TB) *vtime.Machine {
	t.Helper()
	m, err := vtime.Preset("tianhe1a")
	if err != nil {
		t.Fatalf("preset tianhe1a: %v", err)
	}
	return m
}

// tianhe1aVirtual is a virtual job of n ranks on the Tianhe-1A preset at
// cpu-scale scale. Only a host without a thread CPU clock (which a scale
// above 0 measures with) skips the test; any other error fails it.
func tianhe1aVirtual(t testing.TB, n int, scale float64) *Virtual {
	t.Helper()
	m := tianhe1a(t)
	if scale > 0 {
		threadCPU(t) // skips without the clock
	}
	v, err := NewVirtual(m, n, scale)
	if err != nil {
		t.Fatalf("NewVirtual(tianhe1a, %d, %g): %v", n, scale, err)
	}
	return v
}

// threadCPU is the calling thread's CPU time.
func threadCPU(t testing.TB) time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		t.Skipf("thread CPU clock unavailable: %v", err)
	}
	return time.Duration(ts.Nano())
}

// TestVirtualMeasuresComputation: with cpu-scale 1 the computation of a
// rank between MPI calls is charged at its thread CPU time, while its
// neighbours compute too (more ranks than GOMAXPROCS compete); with
// cpu-scale 0.5 at half of it.
func TestVirtualMeasuresComputation(t *testing.T) {
	for _, scale := range []float64{1, 0.5} {
		v := tianhe1aVirtual(t, 6, scale)
		burnt := make([]time.Duration, 6)
		err := v.Run(func(c *Comm) error {
			buf, in := make([]byte, 8), make([]byte, 8)
			for it := 0; it < 3; it++ {
				start := threadCPU(t)
				x := 1.0
				for threadCPU(t)-start < 15*time.Millisecond {
					for i := 0; i < 1000; i++ {
						x = x*1.0000001 + 1e-9
					}
				}
				burnt[c.Rank()] += threadCPU(t) - start
				if x == 0 {
					return nil
				}
				right, left := (c.Rank()+1)%c.Size(), (c.Rank()+c.Size()-1)%c.Size()
				if _, err := Sendrecv(c, buf, right, 0, in, left, 0); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range v.Results() {
			want := scale * burnt[r.Rank].Seconds()
			// Bounded: the burn itself, plus the engine's own work between
			// event points (sub-millisecond here).
			if r.Computation < 0.95*want || r.Computation > 1.05*want+1e-3 {
				t.Errorf("scale %g rank %d: charged %.4f s computation, burnt %.4f s x scale", scale, r.Rank, r.Computation, want)
			}
		}
	}
}

// BenchmarkPingPongClock measures the clock's cost per MPI call: an
// in-process ping-pong of 8 bytes in real mode (the no-op clock), virtual
// mode with cpu-scale 0 (model only) and cpu-scale 1 (model + thread CPU
// measurement). ns/op is one round trip (4 MPI calls, 2 per rank).
func BenchmarkPingPongClock(b *testing.B) {
	for _, mode := range []struct {
		name  string
		scale float64
		real  bool
	}{{"real", 0, true}, {"virtual-scale0", 0, false}, {"virtual-scale1", 1, false}} {
		b.Run(mode.name, func(b *testing.B) {
			var opts []Option
			if !mode.real {
				opts = append(opts, WithVirtual(tianhe1aVirtual(b, 2, mode.scale)))
			}
			pingPong(b, 8, opts...) // ns/op is per round trip of 4 MPI calls
		})
	}
}

func TestNewVirtualRejectsBadInput(t *testing.T) {
	m := tianhe1a(t)
	if _, err := NewVirtual(nil, 2, 0); err == nil {
		t.Error("nil machine accepted")
	}
	for _, s := range []float64{-1, math.NaN(), math.Inf(1)} {
		if _, err := NewVirtual(m, 2, s); err == nil {
			t.Errorf("cpu scale %g accepted", s)
		}
	}
	if _, err := NewVirtual(m, 0, 0); err == nil {
		t.Error("0 ranks accepted")
	}
	small, _ := vtime.ParseMachine([]byte(`{"name": "tiny", "bmem": 1e9, "cores_per_node": 1,
	  "levels": [{"topology": "ring", "size": 2, "bandwidth": 1e9}]}`))
	if _, err := NewVirtual(small, 3, 0); err == nil {
		t.Error("3 ranks on a 2-core machine accepted")
	}
	// A world larger than the placed job is reported, not mis-simulated.
	v, err := NewVirtual(m, 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := Run(3, func(c *Comm) error { return nil }, WithVirtual(v)); err != nil {
		t.Fatal(err)
	}
	if v.Err() == nil {
		t.Error("a 3-rank world on a 2-rank placement went unreported")
	}
}

// TestVirtualMixedProgram runs communicator creation, AnySource receives,
// Iprobe and Test loops in virtual time with computation measured: it must
// finish, keep Wtime monotone, and count the temporally sensitive calls.
func TestVirtualMixedProgram(t *testing.T) {
	v := tianhe1aVirtual(t, 8, 1)
	err := v.Run(func(c *Comm) error {
		t0 := c.Wtime()
		sub, err := c.Split(c.Rank()%2, c.Rank())
		if err != nil {
			return err
		}
		d, err := sub.Dup()
		if err != nil {
			return err
		}
		buf := []int64{int64(c.Rank())}
		if d.Rank() == 0 {
			sum := int64(0)
			for i := 1; i < d.Size(); i++ {
				in := make([]int64, 1)
				if _, err := Recv(d, in, AnySource, AnyTag); err != nil {
					return err
				}
				sum += in[0]
			}
			if sum == 0 {
				t.Errorf("rank %d: nothing received", c.Rank())
			}
		} else {
			q, err := Isend(d, buf, 0, 5)
			if err != nil {
				return err
			}
			for {
				ok, _, err := q.Test()
				if err != nil {
					return err
				}
				if ok {
					break
				}
			}
		}
		if c.Rank() == 1 {
			if err := Send(c, buf, 0, 9); err != nil {
				return err
			}
		}
		if c.Rank() == 0 {
			for {
				ok, _, err := c.Iprobe(1, 9)
				if err != nil {
					return err
				}
				if ok {
					break
				}
			}
			if _, err := Recv(c, buf, 1, 9); err != nil {
				return err
			}
		}
		if t1 := c.Wtime(); t1 < t0 {
			t.Errorf("rank %d: Wtime went back from %g to %g", c.Rank(), t0, t1)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	rep := v.Report()
	if rep.Temporal == 0 || rep.Predicted <= 0 || len(rep.Unfinished) != 0 {
		t.Errorf("report: temporal %d predicted %g unfinished %v", rep.Temporal, rep.Predicted, rep.Unfinished)
	}
}

// TestVirtualPanicMidBurstReleasesSlot: a rank that panics while computing
// (holding a compute slot) must not leave the others waiting for a slot.
func TestVirtualPanicMidBurstReleasesSlot(t *testing.T) {
	v := tianhe1aVirtual(t, 6, 1)
	done := make(chan error, 1)
	go func() {
		done <- v.Run(func(c *Comm) error {
			buf := make([]byte, 4)
			in := make([]byte, 4)
			if c.Rank() < 3 {
				panic("boom")
			}
			for i := 0; i < 100; i++ {
				right, left := (c.Rank()+1)%c.Size(), (c.Rank()+c.Size()-1)%c.Size()
				if _, err := Sendrecv(c, buf, right, 0, in, left, 0); err != nil {
					return err
				}
			}
			return nil
		})
	}()
	select {
	case err := <-done:
		var re *RankError
		if !errors.As(err, &re) || !re.Panic {
			t.Errorf("want the panic reported, got %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("job hung after a rank panicked mid-burst")
	}
}

// TestVirtualStallResolved: a pending rendezvous Isend whose ACK arrives
// while a later blocking Send waits for its own ACK. Algorithm 2 as written
// keeps that ACK in the early queue until the wait ends, which never
// happens; the stall is resolved by dealing with the earliest early REQ/ACK
// at its arrival. The prediction follows by hand from Eq. (3):
// the first message completes at T1 = 3l + 2s/B_mem + s/B_net, the second
// REQ is answered then, and the job ends at 2 T1 - l.
func TestVirtualStallResolved(t *testing.T) {
	m := tianhe1a(t)
	const s = 1 << 20
	l := 15e-6 + 3*0.6e-6
	t1 := 3*l + 2*s/6.38e9 + s/4.16e9
	for run := 0; run < 5; run++ {
		v, err := NewVirtual(m, 13, 0)
		if err != nil {
			t.Fatal(err)
		}
		err = v.Run(func(c *Comm) error { return stallPair(c, s) })
		if err != nil {
			t.Fatal(err)
		}
		if got, want := v.Report().Predicted, 2*t1-l; math.Abs(got-want) > 1e-9*want {
			t.Fatalf("run %d: predicted %.12g, want %.12g", run, got, want)
		}
	}
}

// stallPair is TestVirtualStallResolved's exchange of two messages of s
// bytes from rank 0 to rank 12 (a pending rendezvous Isend, then a
// blocking Send); the other ranks do nothing.
func stallPair(c *Comm, s int) error {
	a, b := make([]byte, s), make([]byte, s)
	switch c.Rank() {
	case 0:
		q, err := Isend(c, a, 12, 1)
		if err != nil {
			return err
		}
		if err := Send(c, b, 12, 2); err != nil {
			return err
		}
		_, err = q.Wait()
		return err
	case 12:
		if _, err := Recv(c, a, 0, 1); err != nil {
			return err
		}
		_, err := Recv(c, b, 0, 2)
		return err
	}
	return nil
}

// TestVirtualNonOvertaking: frames that go to the early queue are matched
// when they reach the host, so MPI's order between a pair of ranks holds in
// virtual mode too (eager and rendezvous mixed, pending Isends, a receiver
// waiting on a later receive than the one a message matches).
func TestVirtualNonOvertaking(t *testing.T) {
	sizes := []int{10, 200 << 10, 0, 20, DefaultEagerLimit + 1, 1, 5000}
	const n, rounds = 4, 4
	for _, scale := range []float64{-1, 0, 1} {
		var opts []Option
		if scale >= 0 {
			opts = append(opts, WithVirtual(tianhe1aVirtual(t, n, scale)))
		}
		err := Run(n, func(c *Comm) error {
			if c.Rank() != 0 {
				var pending []*Request
				for k := 0; k < rounds*len(sizes); k++ {
					buf := make([]byte, sizes[k%len(sizes)])
					for i := range buf {
						buf[i] = byte(k + c.Rank())
					}
					if k%3 == 1 {
						q, err := Isend(c, buf, 0, k%2)
						if err != nil {
							return err
						}
						pending = append(pending, q)
						continue
					}
					if err := Send(c, buf, 0, k%2); err != nil {
						return err
					}
				}
				_, err := Waitall(pending)
				return err
			}
			// Post two receives per source and wait for the second first.
			next := make([]int, n)
			for got := 0; got < (n-1)*rounds*len(sizes); {
				src := 1 + got%(n-1)
				if next[src] >= rounds*len(sizes) {
					got++
					continue
				}
				a, b := make([]byte, 256<<10), make([]byte, 256<<10)
				qa, err := Irecv(c, a, src, AnyTag)
				if err != nil {
					return err
				}
				var qb *Request
				if next[src]+1 < rounds*len(sizes) {
					if qb, err = Irecv(c, b, src, AnyTag); err != nil {
						return err
					}
				}
				for _, q := range []*Request{qb, qa} {
					if q == nil {
						continue
					}
					if _, err := q.Wait(); err != nil {
						return err
					}
				}
				for _, pair := range []struct {
					q   *Request
					buf []byte
				}{{qa, a}, {qb, b}} {
					if pair.q == nil {
						continue
					}
					st, _ := pair.q.Wait()
					k := next[src]
					next[src]++
					got++
					if st.Bytes != sizes[k%len(sizes)] || st.Tag != k%2 || st.Bytes > 0 && pair.buf[0] != byte(k+src) {
						return fmt.Errorf("from %d: message %d arrived as %+v: overtaken", src, k, st)
					}
				}
			}
			return nil
		}, opts...)
		if err != nil {
			t.Fatalf("cpu-scale %g: %v", scale, err)
		}
	}
}

// TestVirtualRendezvousToSelf: a rank exchanges a rendezvous-sized message
// with itself (Irecv, Send, Wait, as NPB CG's transpose exchange does on two
// ranks). The send completes without the job-wide stall resolution (none
// is counted), and the receive ends when Eq. (3) says the DATA is copied
// out: REQ, ACK and DATA each cost a (h = 0, size 0 for REQ and ACK), the
// DATA s/B_mem into the buffer and s/B_mem to arrive, and the copy to the
// user buffer s/B_mem, so 3 a + 3 s/B_mem in all.
func TestVirtualRendezvousToSelf(t *testing.T) {
	const a, s = 1e-6, 256 << 10
	m := tianhe1a(t)
	m.Overhead.A = a
	v, err := NewVirtual(m, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	err = v.Run(func(c *Comm) error {
		in, out := make([]byte, s), make([]byte, s)
		for i := range out {
			out[i] = byte(i)
		}
		q, err := Irecv(c, in, 0, 7)
		if err != nil {
			return err
		}
		if err := Send(c, out, 0, 7); err != nil {
			return err
		}
		if _, err := q.Wait(); err != nil {
			return err
		}
		if !reflect.DeepEqual(in, out) {
			return errors.New("the message to itself arrived changed")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	rep := v.Report()
	if rep.Stalls != 0 || rep.SpeculativeStalls != 0 {
		t.Errorf("stalls %d (+%d speculative), want none", rep.Stalls, rep.SpeculativeStalls)
	}
	if got, want := rep.Predicted, 3*a+3*float64(s)/6.38e9; math.Abs(got-want) > 1e-9*want {
		t.Errorf("predicted %.12g s, want 3 a + 3 s/B_mem = %.12g s", got, want)
	}
}

// TestVirtualStallDealsDataForALaterWait: two ranks of one node exchange a
// rendezvous message at once (Irecv, Send, Wait, as NPB CG's row sums do).
// Each Send waits on the host for the other rank to copy its DATA out, and
// each rank holds the other's DATA in its early queue, so the job stalls
// and the resolution deals one DATA before its receive is waited for. That
// receive's Wait must still end when the copy does: both ranks end at
// 3 a + 3 s/B_mem (REQ at a, ACK at 2 a, DATA buffered at 3 a + s/B_mem,
// arrived at 3 a + 2 s/B_mem, copied out at 3 a + 3 s/B_mem).
func TestVirtualStallDealsDataForALaterWait(t *testing.T) {
	const a, s = 1e-6, 256 << 10
	m := tianhe1a(t)
	m.Overhead.A = a
	want := 3*a + 3*float64(s)/6.38e9
	for run := 0; run < 5; run++ {
		v, err := NewVirtual(m, 2, 0)
		if err != nil {
			t.Fatal(err)
		}
		err = v.Run(func(c *Comm) error {
			in, out := make([]byte, s), make([]byte, s)
			peer := 1 - c.Rank()
			q, err := Irecv(c, in, peer, 7)
			if err != nil {
				return err
			}
			if err := Send(c, out, peer, 7); err != nil {
				return err
			}
			_, err = q.Wait()
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, res := range v.Results() {
			if math.Abs(res.End-want) > 1e-9*want {
				t.Errorf("run %d: rank %d ends at %.12g s, want 3 a + 3 s/B_mem = %.12g s", run, res.Rank, res.End, want)
			}
		}
	}
}

// emptyBurst is what the thread CPU meter charges for a burst with nothing
// in it, the median of a thousand: what is left of the cost of reading the
// clock once the meter subtracts the least of it (vtime.ThreadCPU).
func emptyBurst(t *testing.T) float64 {
	cpu, err := vtime.NewThreadCPU(1)
	if err != nil {
		t.Skip(err)
	}
	m := cpu.Meter()
	b := make([]float64, 1000)
	for i := range b {
		m.Begin()
		b[i] = m.End()
	}
	slices.Sort(b)
	return b[len(b)/2]
}

// TestVirtualEngineWorkIsNotComputation: the engine's own work inside an
// MPI call is not charged as the program's computation (the target's MPI
// spends it within o(s)). Rank 0 finds k messages of another tag ahead of
// each of its m receives in its unexpected queue, so matching alone costs
// m x k comparisons of host CPU (0.15 s measured here) inside Recv, before any
// activity of the paper starts; the program itself computes nothing but
// its loop. Charged as computation, that is what rank 0's report showed
// before the engine bracketed its work (eventClock.EnterEngine). What remains
// is one measured burst per call, the loop and what is left of the meter's
// own reading: the bound allows 2 us per call beyond twice an empty burst
// measured here (logged; 2.0-2.2 us on the development VM on 2026-12-07,
// when a bound of 2 us alone failed, tens of nanoseconds since the meter
// subtracts its own cost), a fifth of the matching.
func TestVirtualEngineWorkIsNotComputation(t *testing.T) {
	const k, m = 20000, 1000
	v, err := NewVirtual(tianhe1a(t), 2, 1)
	if err != nil {
		t.Skip(err) // no thread CPU clock
	}
	empty := emptyBurst(t)
	t.Logf("an empty burst measures %.3g us", empty*1e6)
	err = v.Run(func(c *Comm) error {
		one := []byte{1}
		if c.Rank() == 1 {
			for i := 0; i < k; i++ {
				if err := Send(c, one, 0, 1); err != nil {
					return err
				}
			}
			for i := 0; i < m; i++ {
				if err := Send(c, one, 0, 2); err != nil {
					return err
				}
			}
			return c.Barrier()
		}
		if err := c.Barrier(); err != nil { // every message is in the unexpected queue
			return err
		}
		for i := 0; i < m; i++ {
			if _, err := Recv(c, one, 1, 2); err != nil {
				return err
			}
		}
		for i := 0; i < k; i++ {
			if _, err := Recv(c, one, 1, 1); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, res := range v.Results() {
		if calls := k + m + 1; res.Rank == 0 && res.Computation > float64(calls)*(2e-6*raceSlowdown+2*empty) {
			t.Errorf("rank 0 charged %.3g s of computation in %d calls that compute nothing (m x k = %d comparisons of matching are the engine's; an empty burst measures %.3g us)",
				res.Computation, calls, m*k, empty*1e6)
		}
	}
}

// TestAnyTagFromNamedSourceIsNotSensitive: a receive or Probe with AnyTag
// from a named source matches one sender's messages in the order they were
// sent, whatever their tags and sizes (eager and rendezvous), so the report
// does not count it as temporally sensitive; a Probe or receive from
// AnySource is.
func TestAnyTagFromNamedSourceIsNotSensitive(t *testing.T) {
	tags := []int{7, 5, 9, 5}
	sizes := []int{1, 1 << 16, 3, 1 << 15} // eager and rendezvous mixed
	v := tianhe1aVirtual(t, 2, 0)
	err := v.Run(func(c *Comm) error {
		if c.Rank() == 1 {
			for i, tag := range tags {
				if err := Send(c, make([]byte, sizes[i]), 0, tag); err != nil {
					return err
				}
			}
			return Send(c, []byte{1}, 0, 1)
		}
		for i, want := range tags {
			st, err := c.Probe(1, AnyTag)
			if err != nil {
				return err
			}
			if st.Tag != want {
				t.Errorf("Probe %d found tag %d, want %d (send order)", i, st.Tag, want)
			}
			buf := make([]byte, sizes[i])
			if st, err = Recv(c, buf, 1, AnyTag); err != nil {
				return err
			}
			if st.Tag != want || Count[byte](st) != sizes[i] {
				t.Errorf("receive %d got tag %d, %d bytes; want tag %d, %d bytes", i, st.Tag, Count[byte](st), want, sizes[i])
			}
		}
		if _, err := c.Probe(AnySource, 1); err != nil {
			return err
		}
		_, err := Recv(c, []byte{0}, AnySource, 1)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if rep := v.Report(); rep.Temporal != 2 {
		t.Errorf("%d temporally sensitive calls counted, want 2 (the AnySource Probe and receive)", rep.Temporal)
	}
}
