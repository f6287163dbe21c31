//go:build linux

package shm

import (
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gompi/gompi/transport"
)

// BenchmarkPingPong measures this transport alone between two processes:
// rank 0 sends, the child echoes, as osu_latency does. 8 B and 64 KiB (the
// engine's eager limit) go as eager payloads, copied through the ring;
// 64 KiB-single-copy and 1 MiB as borrowed rendezvous payloads, read with
// process_vm_readv where permitted (the handshake before a rendezvous is
// not included). Each receive copies the payload
// into a user buffer, as the MPI engine does, and eager frames come from
// the frame pool, as the engine's do (until 2026-12-07 both ends
// allocated a frame and its payload per message, some 70 ns of the 8 B
// one-way time). It reports the one-way time and
// the bandwidth size / one-way time, as means and as medians over round
// trips.
//
//	go test -run '^$' -bench PingPong -benchtime 2s ./transport/shm
func BenchmarkPingPong(b *testing.B) {
	for _, bc := range []struct {
		name   string
		size   int
		borrow bool
	}{{"8B", 8, false}, {"64KiB", 64 << 10, false}, {"64KiB-single-copy", 64 << 10, true}, {"1MiB", 1 << 20, true}} {
		b.Run(bc.name, func(b *testing.B) {
			p := startPair(b, "bench-"+bc.name)
			b.Logf("large payloads: %s", p.tr.Path())
			buf := pattern(0, bc.size)
			user := make([]byte, bc.size)
			var released, stop atomic.Bool
			release := func() { released.Store(true); p.ib.Kick() }
			watchdog := time.AfterFunc(time.Minute, func() { stop.Store(true); p.ib.Kick() })
			defer watchdog.Stop()
			_, naps0 := p.ib.Asleep()
			wakeups0 := p.tr.wakeups.Load()
			rtts := make([]time.Duration, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				f := transport.NewFrame() // pooled, as the engine's: no allocation
				f.Header = transport.Header{Kind: transport.Data, Src: 0, Dst: 1, SendID: uint64(i), Size: int64(bc.size)}
				if bc.borrow {
					f.Flags = transport.FlagRendezvous
					f.Payload = buf
					released.Store(false)
					f.Borrow(release)
				} else {
					f.CopyPayload(buf)
				}
				if err := p.tr.Send(f); err != nil {
					b.Fatal(err)
				}
				e := recvUntil(p.ib, &stop)
				if e == nil || e.Size != int64(bc.size) {
					b.Fatalf("echo %d: got %v", i, e)
				}
				if _, err := e.ReadPayload(user); err != nil {
					b.Fatal(err)
				}
				e.Free()
				for bc.borrow && !released.Load() && !stop.Load() {
					p.ib.Park(func() bool { return released.Load() || stop.Load() })
				}
				rtts[i] = time.Since(t0)
			}
			b.StopTimer()
			if stop.Load() {
				b.Fatal("ping-pong stalled for a minute")
			}
			_, naps := p.ib.Asleep()
			b.ReportMetric(float64(naps-naps0)/float64(b.N), "sleeps/op")
			b.ReportMetric(float64(p.tr.wakeups.Load()-wakeups0)/float64(b.N), "wakeups/op")
			oneWay := b.Elapsed().Seconds() / float64(2*b.N)
			b.ReportMetric(oneWay*1e6, "us/one-way")
			b.ReportMetric(float64(bc.size)/oneWay/1e6, "MB/s")
			// The median is robust to the host descheduling a process now
			// and then, which dominates the mean on a loaded machine.
			slices.Sort(rtts)
			med := rtts[len(rtts)/2].Seconds() / 2
			b.ReportMetric(med*1e6, "us/one-way-median")
			b.ReportMetric(float64(bc.size)/med/1e6, "MB/s-median")
		})
	}
}

// BenchmarkSendReceiveOneGoroutine is the CPU cost of the small-message
// path alone, 4 to 24 bytes (a fastbox cell) and 512 (a ring record, and a
// payload buffer beside the frame): one goroutine sends a frame from one
// transport to another of the same test process and receives it (Poll,
// the inbox, ReadPayload, Free),
// so that no cache line crosses cores and nobody waits. What it reports,
// beside BenchmarkPingPong's one-way time, is how much of that time is
// work done by the two ends rather than the wait for the line that holds
// the record; a CPU profile of it (-cpuprofile) says which work. The
// -direct cases receive as an MPI rank does into a receive it posted
// first: the frame goes from the ring straight into the user's buffer
// (transport.Inbox.SetDirect), with no frame made, queued and freed.
//
//	go test -run '^$' -bench SendReceiveOneGoroutine ./transport/shm
func BenchmarkSendReceiveOneGoroutine(b *testing.B) {
	for _, n := range []int{4, 8, 16, 24, 512} {
		b.Run(fmt.Sprintf("%dB", n), func(b *testing.B) { benchSendReceiveOneGoroutine(b, n, false) })
		b.Run(fmt.Sprintf("%dB-direct", n), func(b *testing.B) { benchSendReceiveOneGoroutine(b, n, true) })
	}
	b.Run("8B-small-direct", benchSendSmallOneGoroutine)
}

// benchSendSmallOneGoroutine is the 8B-direct case with the sends of
// mpi's short path (SendSmall): the header and the payload written into a
// cell from the call's arguments, no frame.
func benchSendSmallOneGoroutine(b *testing.B) {
	g := openGroup(b, "serial", 1, 1)
	ib := g.inbox(1)
	ib.AddPoller(g.trs[1])
	buf := pattern(0, 8)
	user := make([]byte, 8)
	ib.SetDirect(func(h *transport.Header, payload []byte) bool {
		copy(user, payload)
		return true
	})
	// The general path's first send attaches the peer, which SendSmall
	// only uses.
	f := transport.NewFrame()
	f.Header = transport.Header{Kind: transport.Data, Src: 0, Dst: 1, Size: 8}
	f.CopyPayload(buf)
	if err := g.trs[0].Send(f); err != nil {
		b.Fatal(err)
	}
	for tries := 0; !g.trs[1].Poll(ib); tries++ {
		if tries == 1e7 {
			b.Fatal("first frame not delivered")
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		h := transport.Header{Kind: transport.Data, Src: 0, Dst: 1, SendID: uint64(i + 1), Size: 8}
		for tries := 0; ; tries++ {
			sent, err := g.trs[0].SendSmall(&h, buf)
			if err != nil {
				b.Fatal(err)
			}
			if sent {
				break
			}
			if tries == 1e7 {
				b.Fatalf("no cell for frame %d", i)
			}
			g.trs[1].Poll(ib)
		}
		// The waiter may take the frame into the queue (as above).
		for tries := 0; !g.trs[1].Poll(ib); tries++ {
			if e := ib.Next(); e != nil {
				e.Free()
				break
			}
			if tries == 1e7 {
				b.Fatalf("frame %d not delivered", i)
			}
		}
	}
}

func benchSendReceiveOneGoroutine(b *testing.B, n int, direct bool) {
	g := openGroup(b, "serial", 1, 1)
	ib := g.inbox(1)
	ib.AddPoller(g.trs[1])
	buf := pattern(0, n)
	user := make([]byte, n)
	if direct {
		ib.SetDirect(func(h *transport.Header, payload []byte) bool {
			copy(user, payload)
			return true
		})
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f := transport.NewFrame()
		f.Header = transport.Header{Kind: transport.Data, Src: 0, Dst: 1, SendID: uint64(i), Size: int64(n)}
		f.CopyPayload(buf)
		if err := g.trs[0].Send(f); err != nil {
			b.Fatal(err)
		}
		// The receiving transport's waiter goroutine may hold the ring
		// for a moment (Poll then skips it), or take the frame into the
		// queue instead of a -direct case's receive.
		for tries := 0; ; tries++ {
			if direct && g.trs[1].Poll(ib) {
				break // straight into user
			}
			if e := ib.Next(); e != nil {
				if _, err := e.ReadPayload(user); err != nil {
					b.Fatal(err)
				}
				e.Free()
				break
			}
			if tries == 1e7 {
				b.Fatalf("frame %d not delivered", i)
			}
		}
	}
}
