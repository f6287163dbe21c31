package tcp

import (
	"io"
	"net"
	"testing"

	"github.com/gompi/gompi/transport"
)

// BenchmarkPlainPingPong8 is the yardstick for the transport's latency: an
// 8-byte ping-pong over a loopback TCP connection in plain Go, no framing.
// One op is one round trip.
func BenchmarkPlainPingPong8(b *testing.B) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		buf := make([]byte, 8)
		for {
			if _, err := io.ReadFull(c, buf); err != nil {
				return
			}
			if _, err := c.Write(buf); err != nil {
				return
			}
		}
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	buf := make([]byte, 8)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c.Write(buf)
		if _, err := io.ReadFull(c, buf); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTransportPingPong8 is the same ping-pong through two Transports:
// frames with an 8-byte payload, delivered to inboxes. One op is one round
// trip. Waiters spin draining the sockets themselves, as ranks of a
// TCP-only process do (mpi's launch glue registers the transport as their
// Poller and Handoff).
func BenchmarkTransportPingPong8(b *testing.B) {
	a, t2, ib := pair(b, make(chan error, 1))
	for i, tr := range []*Transport{a, t2, t2} {
		ib[i].AddPoller(tr)
		ib[i].AddHandoff(tr)
	}
	done := make(chan struct{})
	go func() { // process 1's rank 1 echoes
		defer close(done)
		for i := 0; i < b.N; i++ {
			f := wait(ib[1])
			f.Dst, f.Src = 0, 1
			if t2.Send(f) != nil {
				return
			}
		}
	}()
	payload := make([]byte, 8)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f := transport.NewFrame()
		f.Header = transport.Header{Kind: transport.Data, Src: 0, Dst: 1, Size: 8}
		f.CopyPayload(payload)
		if err := a.Send(f); err != nil {
			b.Fatal(err)
		}
		wait(ib[0]).Free()
	}
	<-done
}

// wait parks on ib until a frame arrives, as a rank does.
func wait(ib *transport.Inbox) *transport.Frame {
	for {
		if f := ib.Next(); f != nil {
			return f
		}
		ib.Park(func() bool { return false })
	}
}
