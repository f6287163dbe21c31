//go:build linux

package mpi

import (
	"testing"

	"github.com/gompi/gompi/transport"
	"github.com/gompi/gompi/transport/shm"
)

// loopWorld is a world of one real rank (world rank 0 of two) whose
// messages to itself go through a shared-memory ring as if it lived in
// another process: a second shm.Transport in this process writes the
// ring, the rank's own one reads it, as a launched job's spinning receive
// does. route is what the rank sends through (wrap may wrap the shm
// route); with short, the rank's calls may take the short paths of
// p2p_small.go, as in a launched job.
func loopWorld(t testing.TB, short bool, wrap func(*world, transport.Transport) transport.Transport, opts ...Option) *world {
	t.Helper()
	cfg, err := newConfig(opts)
	if err != nil {
		t.Fatal(err)
	}
	w := newWorld(2, 0, 1, cfg) // rank 1, of the other process, never runs
	w.local = true
	r := w.ranks[0]
	procs := []shm.Proc{{ID: 0, Base: 0, N: 1}, {ID: 1, Base: 1, N: 1}}
	dir := t.TempDir()
	mine, err := shm.Open(shm.Config{JobID: "loop", Dir: dir, Procs: procs, LocalProc: 0, Inboxes: []*transport.Inbox{r.inbox}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mine.Close() })
	other, err := shm.Open(shm.Config{JobID: "loop", Dir: dir, Procs: procs, LocalProc: 1, Inboxes: []*transport.Inbox{transport.NewInbox()}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	for _, tr := range []*shm.Transport{mine, other} {
		if err := tr.Join([]bool{true, true}); err != nil {
			t.Fatal(err)
		}
	}
	r.inbox.SetSpin(transport.Spin{Checks: transport.SpinIters})
	r.inbox.AddPoller(mine)
	var out transport.Transport = other
	if wrap != nil {
		out = wrap(w, other)
	}
	route := &transport.Table{Routes: []transport.Transport{out}}
	w.out, w.copier = route, route
	if short {
		w.small = smallRoutes(route)
	}
	return w
}

// BenchmarkShmSendRecvOneRank is the software cost of a small message
// between processes, both ends: one rank's blocking Send and Recv of 8
// bytes to itself through a shared-memory ring (loopWorld). No cache line
// crosses cores and nobody waits, so what it reports is the engine's and
// the transport's own code per message, the part of the two-process
// latency (osu -test latency) that is not the line's transfer
// (docs/gompirun.md, BENCHMARKS). "general" keeps the calls off the
// short paths of p2p_small.go, "short" lets them take them.
//
//	go test -run '^$' -bench ShmSendRecvOneRank ./mpi
func BenchmarkShmSendRecvOneRank(b *testing.B) {
	b.Run("general", func(b *testing.B) { benchShmSendRecvOneRank(b, false) })
	b.Run("short", func(b *testing.B) { benchShmSendRecvOneRank(b, true) })
}

func benchShmSendRecvOneRank(b *testing.B, short bool) {
	w := loopWorld(b, short, nil)
	b.ReportAllocs()
	err := w.run(func(c *Comm) error {
		buf := make([]byte, 8)
		b.ResetTimer()
		for range b.N {
			if err := Send(c, buf, 0, 0); err != nil {
				return err
			}
			if _, err := Recv(c, buf, 0, 0); err != nil {
				return err
			}
		}
		b.StopTimer()
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
}
