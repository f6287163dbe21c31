//go:build linux

package shm

import (
	"os"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gompi/gompi/transport"
)

// smallEchoEnv makes the echo child answer 8-byte DATA as mpi's short
// path does: taken straight from the cell into a buffer (SetDirect) and
// sent back with SendSmall.
const smallEchoEnv = "GOMPI_SHM_TEST_SMALL_ECHO=1"

// BenchmarkPingPongSmall is BenchmarkPingPong's 8 B case with the ends
// that the MPI engine's short paths use: SendSmall writes the cell from
// the header and the payload, and the receive takes the cell straight
// into the user's buffer while its owner spins in Park (SetDirect), with
// no frame on either side. It sits between BenchmarkLineRoundTrip (one
// cache line, nothing else) and an MPI ping-pong (samples/osu -test
// latency): its one-way time less the line's is this transport's share,
// an MPI one-way time less it the engine's. Run them in the same minutes:
// on a VM the floor moves with where the host places the vCPUs.
//
//	go test -run '^$' -bench 'LineRoundTrip|PingPongSmall' ./transport/shm
func BenchmarkPingPongSmall(b *testing.B) {
	p := startPair(b, "bench-small", smallEchoEnv)
	var got atomic.Bool
	user := make([]byte, 8)
	p.ib.SetDirect(smallTaker(user, &got))
	buf := pattern(0, 8)
	var stop atomic.Bool
	watchdog := time.AfterFunc(time.Minute, func() { stop.Store(true); p.ib.Kick() })
	defer watchdog.Stop()
	ready := func() bool { return got.Load() || stop.Load() || !p.ib.Empty() }
	rtts := make([]int64, 0, b.N/64+1)
	b.ResetTimer()
	var t0 time.Time
	for i := 0; i < b.N; i++ {
		if i%64 == 0 {
			t0 = time.Now()
		}
		got.Store(false)
		if err := sendSmall(p.tr, transport.Header{Kind: transport.Data, Src: 0, Dst: 1, SendID: uint64(i + 1), Size: 8}, buf); err != nil {
			b.Fatal(err)
		}
		for !got.Load() && !stop.Load() {
			if takeQueued(p.ib, user, &got) {
				b.Fatal("quit frame in the parent")
			}
			if !ready() {
				p.ib.Park(ready)
			}
		}
		if stop.Load() {
			b.Fatal("ping-pong stalled for a minute")
		}
		if i%64 == 63 {
			rtts = append(rtts, int64(time.Since(t0)/64))
		}
	}
	b.StopTimer()
	b.ReportMetric(b.Elapsed().Seconds()/float64(2*b.N)*1e6, "us/one-way")
	if len(rtts) > 0 {
		// Medians of 64 round trips each: robust to the host
		// descheduling a process now and then, without a clock read per
		// round trip.
		slices.Sort(rtts)
		b.ReportMetric(float64(rtts[len(rtts)/2])/2e3, "us/one-way-median")
	}
}

// smallTaker is a DirectFunc that copies an 8-byte DATA into user and
// sets got; everything else goes to the queue.
func smallTaker(user []byte, got *atomic.Bool) transport.DirectFunc {
	return func(h *transport.Header, payload []byte) bool {
		if h.Kind != transport.Data || len(payload) != len(user) {
			return false
		}
		copy(user, payload)
		got.Store(true)
		return true
	}
}

// sendSmall sends with SendSmall, or with Send where it declines.
func sendSmall(tr *Transport, h transport.Header, p []byte) error {
	sent, err := tr.SendSmall(&h, p)
	if err != nil || sent {
		return err
	}
	f := transport.NewFrame()
	f.Header = h
	f.CopyPayload(p)
	return tr.Send(f)
}

// smallEcho is echoChild's loop under smallEchoEnv: 8-byte DATA taken
// from the cell and sent back with SendSmall, until a quit frame.
func smallEcho(tr *Transport, ib *transport.Inbox, orphan *atomic.Bool) error {
	var got atomic.Bool
	user := make([]byte, 8)
	ib.SetDirect(smallTaker(user, &got))
	ready := func() bool { return got.Load() || orphan.Load() || !ib.Empty() }
	for {
		for !ready() {
			ib.Park(ready)
		}
		if got.Load() {
			got.Store(false)
			// The echo's send id is ignored by the parent.
			if err := sendSmall(tr, transport.Header{Kind: transport.Data, Src: 1, Dst: 0, SendID: 1, Size: 8}, user); err != nil {
				return err
			}
			continue
		}
		if orphan.Load() {
			return nil
		}
		if takeQueued(ib, user, &got) {
			return tr.Err()
		}
	}
}

// takeQueued takes a frame the transport's waiter queued while the owner
// slept, if there is one: an 8-byte DATA as the direct taker would, and
// reports whether it was the quit frame.
func takeQueued(ib *transport.Inbox, user []byte, got *atomic.Bool) (quit bool) {
	f := ib.Next()
	if f == nil {
		return false
	}
	defer f.Free()
	if f.Kind == transport.Ctrl && f.Tag == quitTag {
		return true
	}
	if _, err := f.ReadPayload(user); err == nil {
		got.Store(true)
	}
	return false
}

func smallEchoing() bool { return os.Getenv("GOMPI_SHM_TEST_SMALL_ECHO") == "1" }
