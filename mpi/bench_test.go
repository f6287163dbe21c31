package mpi

import (
	"fmt"
	"testing"
	"time"
)

// pingPong runs b.N round trips of size bytes between ranks 0 and 1 of an
// in-process world and reports one-way latency and bandwidth.
func pingPong(b *testing.B, size int, opts ...Option) {
	b.SetBytes(int64(size))
	err := Run(2, func(c *Comm) error {
		buf := make([]byte, size)
		peer := 1 - c.Rank()
		if c.Rank() == 0 {
			b.ResetTimer()
		}
		for i := 0; i < b.N; i++ {
			if c.Rank() == 0 {
				if err := Send(c, buf, peer, 0); err != nil {
					return err
				}
				if _, err := Recv(c, buf, peer, 0); err != nil {
					return err
				}
			} else {
				if _, err := Recv(c, buf, peer, 0); err != nil {
					return err
				}
				if err := Send(c, buf, peer, 0); err != nil {
					return err
				}
			}
		}
		if c.Rank() == 0 {
			b.StopTimer()
		}
		return nil
	}, opts...)
	if err != nil {
		b.Fatal(err)
	}
	// b.N round trips = 2 b.N one-way messages.
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(2*b.N), "ns/one-way")
	b.ReportMetric(float64(2*b.N)*float64(size)/b.Elapsed().Seconds()/1e6, "MB/s")
}

// BenchmarkPingPong is the in-process ping-pong: 8-byte latency and
// 1 MiB / 4 MiB bandwidth (ns/op is per round trip).
func BenchmarkPingPong(b *testing.B) {
	for _, size := range []int{8, 1 << 20, 4 << 20} {
		b.Run(fmt.Sprintf("%dB", size), func(b *testing.B) { pingPong(b, size) })
	}
}

// BenchmarkEagerLimit measures messages around candidate eager limits under
// both protocols, which is how DefaultEagerLimit was chosen.
func BenchmarkEagerLimit(b *testing.B) {
	for _, size := range []int{4 << 10, 16 << 10, 64 << 10, 128 << 10, 256 << 10} {
		b.Run(fmt.Sprintf("%dKiB/eager", size>>10), func(b *testing.B) { pingPong(b, size, WithEagerLimit(size)) })
		b.Run(fmt.Sprintf("%dKiB/rendezvous", size>>10), func(b *testing.B) { pingPong(b, size, WithEagerLimit(size-1)) })
	}
}

// BenchmarkMemcpy is the single-core copy bandwidth the 4 MiB ping-pong is
// compared with.
func BenchmarkMemcpy(b *testing.B) {
	for _, size := range []int{1 << 20, 4 << 20} {
		b.Run(fmt.Sprintf("%dB", size), func(b *testing.B) {
			src, dst := make([]byte, size), make([]byte, size)
			b.SetBytes(int64(size))
			for i := 0; i < b.N; i++ {
				copy(dst, src)
			}
		})
	}
}

// BenchmarkSelfSendRecv is the engine's software cost with no cross-core
// traffic: an 8-byte eager send to self and its receive.
func BenchmarkSelfSendRecv(b *testing.B) {
	b.ReportAllocs()
	_ = Run(1, func(c *Comm) error {
		buf := make([]byte, 8)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			_ = Send(c, buf, 0, 0)
			_, _ = Recv(c, buf, 0, 0)
		}
		return nil
	})
}

// BenchmarkElapseReal: the wall time of a real run's Elapse(100us), which
// slept about a millisecond when it was a plain sleep.
func BenchmarkElapseReal(b *testing.B) {
	err := Run(1, func(c *Comm) error {
		b.ResetTimer()
		for range b.N {
			c.Elapse(100 * time.Microsecond)
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "us/call")
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
}
