package tcp

import (
	"io"
	"net"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/gompi/gompi/transport"
	"golang.org/x/sys/unix"
)

// conns counts the connections a transport has open.
func conns(t *Transport) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.in)
}

func sendTagged(t *testing.T, tr *Transport, src, dst, tag int) {
	t.Helper()
	f := transport.NewFrame()
	f.Header = transport.Header{Kind: transport.Data, Src: int32(src), Dst: int32(dst), Tag: int32(tag), Size: 8}
	f.CopyPayload([]byte{byte(tag), 1, 2, 3, 4, 5, 6, 7})
	if err := tr.Send(f); err != nil {
		t.Error(err)
	}
}

// TestAnswerTravelsOnTheSameConnection: once process 0 has dialed process
// 1, 1's answers go back on that connection instead of a second one, so
// they carry the TCP acknowledgements.
func TestAnswerTravelsOnTheSameConnection(t *testing.T) {
	a, b, ib := pair(t, make(chan error, 1))
	for i := 0; i < 5; i++ {
		sendTagged(t, a, 0, 1, i)
		if f := next(t, ib[1]); int(f.Tag) != i {
			t.Fatalf("rank 1 got tag %d, want %d", f.Tag, i)
		}
		sendTagged(t, b, 1, 0, i)
		if f := next(t, ib[0]); int(f.Tag) != i {
			t.Fatalf("rank 0 got tag %d, want %d", f.Tag, i)
		}
	}
	if na, nb := conns(a), conns(b); na != 1 || nb != 1 {
		t.Fatalf("connections: process 0 has %d, process 1 has %d; want one each", na, nb)
	}
}

// TestSimultaneousDialsKeepOrder: when both processes open a connection to
// each other at once, each keeps sending on one connection, so every
// stream of frames arrives complete and in order.
func TestSimultaneousDialsKeepOrder(t *testing.T) {
	for round := 0; round < 20; round++ {
		a, b, ib := pair(t, make(chan error, 1))
		const n = 200
		var wg sync.WaitGroup
		wg.Add(2)
		go func() {
			defer wg.Done()
			for i := 0; i < n; i++ {
				sendTagged(t, a, 0, 2, i)
			}
		}()
		go func() {
			defer wg.Done()
			for i := 0; i < n; i++ {
				sendTagged(t, b, 2, 0, i)
			}
		}()
		wg.Wait()
		for i := 0; i < n; i++ {
			if f := next(t, ib[2]); int(f.Tag) != i || f.Payload[0] != byte(i) {
				t.Fatalf("round %d: rank 2 got tag %d, want %d", round, f.Tag, i)
			}
			if f := next(t, ib[0]); int(f.Tag) != i || f.Payload[0] != byte(i) {
				t.Fatalf("round %d: rank 0 got tag %d, want %d", round, f.Tag, i)
			}
		}
		if na, nb := conns(a), conns(b); na > 2 || nb > 2 || na != nb {
			t.Fatalf("round %d: %d and %d connections", round, na, nb)
		}
		a.Close()
		b.Close()
	}
}

// TestPendingSeesUnreadBytes: Pending reports bytes waiting on a watched
// connection until they are read.
func TestPendingSeesUnreadBytes(t *testing.T) {
	tr := &Transport{in: map[net.Conn]bool{}, byFd: map[int32]*inConn{}}
	tr.watch.Store(newWatch())
	defer tr.closeWatch()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fds[0])
	defer unix.Close(fds[1])
	tr.watchConn(&inConn{fd: fds[0]})
	if tr.Pending() {
		t.Fatal("pending before anything was written")
	}
	unix.Write(fds[1], []byte("frame"))
	if !tr.Pending() {
		t.Fatal("written bytes not pending")
	}
	var buf [8]byte
	unix.Read(fds[0], buf[:])
	if tr.Pending() {
		t.Fatal("still pending after the bytes were read")
	}
	tr.closeWatch()
	unix.Write(fds[1], []byte("more"))
	if tr.Pending() {
		t.Fatal("pending after the watch was closed")
	}
}

// TestRanksDrainBesideTheReader: ranks that poll the transport drain the
// connections themselves while the connection goroutines do too; every
// frame still arrives once, whole and in order, small and large ones
// mixed.
func TestRanksDrainBesideTheReader(t *testing.T) {
	a, b, ib := pair(t, make(chan error, 1))
	for _, i := range ib {
		i.AddPoller(a)
		i.AddPoller(b)
	}
	const n = 3000
	size := func(i int) int {
		switch i % 7 {
		case 0:
			return 100 << 10 // read straight into its own buffer
		case 1:
			return 0
		}
		return 8 + i%300
	}
	var wg sync.WaitGroup
	wg.Add(2)
	send := func(tr *Transport, src, dst int) {
		defer wg.Done()
		for i := 0; i < n; i++ {
			f := transport.NewFrame()
			f.Header = transport.Header{Kind: transport.Data, Src: int32(src), Dst: int32(dst), Tag: int32(i), Size: int64(size(i))}
			f.Payload = make([]byte, size(i))
			for j := range f.Payload {
				f.Payload[j] = byte(i + j)
			}
			if err := tr.Send(f); err != nil {
				t.Error(err)
				return
			}
		}
	}
	go send(a, 0, 2)
	go send(b, 1, 0)
	check := func(in *transport.Inbox, who int) {
		deadline := time.Now().Add(20 * time.Second)
		for i := 0; i < n; {
			f := in.Next() // polls the transports: drains sockets here
			if f == nil {
				if time.Now().After(deadline) {
					t.Errorf("rank %d: frame %d not there after 20s", who, i)
					return
				}
				runtime.Gosched()
				continue
			}
			if int(f.Tag) != i || len(f.Payload) != size(i) {
				t.Errorf("rank %d: got tag %d with %d bytes, want tag %d with %d", who, f.Tag, len(f.Payload), i, size(i))
				return
			}
			for j, c := range f.Payload {
				if c != byte(i+j) {
					t.Errorf("rank %d: frame %d byte %d is %d", who, i, j, c)
					return
				}
			}
			f.Free()
			i++
		}
	}
	done := make(chan struct{})
	go func() { check(ib[2], 2); close(done) }()
	check(ib[0], 0)
	<-done
	if t.Failed() {
		// Frames went missing: the senders may wait on full sockets that
		// nobody drains. Closing ends their writes, so the test fails
		// instead of hanging.
		a.Close()
		b.Close()
	}
	wg.Wait()
}

// TestSimultaneousDialsWithFullSockets: both processes dial each other at
// once and keep writing frames larger than a socket holds, with nobody
// reading but the connection goroutines. Each process's accepted
// connection must be read even while its own sender, holding the send
// lock, waits on a full socket: the acceptor used to wait for that lock
// before reading, and both processes then waited for each other for ever.
func TestSimultaneousDialsWithFullSockets(t *testing.T) {
	for round := 0; round < 10; round++ {
		a, b, ib := pair(t, make(chan error, 4))
		const frames, size = 4, 16 << 20
		start := make(chan struct{})
		done := make(chan struct{}, 2)
		send := func(tr *Transport, src, dst int) {
			defer func() { done <- struct{}{} }()
			<-start
			for i := 0; i < frames; i++ {
				f := transport.NewFrame()
				f.Header = transport.Header{Kind: transport.Data, Src: int32(src), Dst: int32(dst), Tag: int32(i), Size: size}
				f.Payload = make([]byte, size)
				if err := tr.Send(f); err != nil {
					t.Error(err)
					return
				}
			}
		}
		go send(a, 0, 1)
		go send(b, 1, 0)
		close(start)
		timeout := time.After(20 * time.Second)
		for range 2 {
			select {
			case <-done:
			case <-timeout:
				// Closing unblocks the writers, so the test ends.
				a.Close()
				b.Close()
				t.Fatalf("round %d: senders still blocked after 20s: the processes wait for each other", round)
			}
		}
		for i := 0; i < frames; i++ {
			if f := next(t, ib[1]); int(f.Tag) != i {
				t.Fatalf("round %d: rank 1 got tag %d, want %d", round, f.Tag, i)
			}
			if f := next(t, ib[0]); int(f.Tag) != i {
				t.Fatalf("round %d: rank 0 got tag %d, want %d", round, f.Tag, i)
			}
		}
		a.Close()
		b.Close()
	}
}

// TestCloseEndsABlockedWrite: Close returns while a Send waits on a peer
// that accepted the connection but never reads, and that Send fails.
func TestCloseEndsABlockedWrite(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() { // a peer that answers the handshake, then reads nothing
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		hello := make([]byte, len(magic)+2+len("secret")+4)
		if _, err := io.ReadFull(c, hello); err != nil {
			return
		}
		c.Write([]byte{1})
		time.Sleep(30 * time.Second)
	}()
	tr, err := Listen(Config{Token: "secret", Proc: 0, Base: 0, Inboxes: []*transport.Inbox{transport.NewInbox()}})
	if err != nil {
		t.Fatal(err)
	}
	tr.SetPeers([]Peer{{Addr: tr.Addr(), Base: 0, N: 1}, {Addr: ln.Addr().String(), Base: 1, N: 1}})
	sent := make(chan error, 1)
	go func() {
		f := transport.NewFrame()
		f.Header = transport.Header{Kind: transport.Data, Src: 0, Dst: 1, Size: 64 << 20}
		f.Payload = make([]byte, 64<<20)
		sent <- tr.Send(f)
	}()
	time.Sleep(200 * time.Millisecond) // let the write fill the socket
	closed := make(chan struct{})
	go func() { tr.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("Close still waiting for a blocked Send after 10s")
	}
	select {
	case err := <-sent:
		if err == nil {
			t.Fatal("a Send cut short by Close reported success")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Send still blocked 10s after Close")
	}
}
