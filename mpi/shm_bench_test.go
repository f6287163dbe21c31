//go:build linux

package mpi

import "testing"

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
