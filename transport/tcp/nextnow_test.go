package tcp

import (
	"net"
	"testing"

	"github.com/gompi/gompi/transport"
	"golang.org/x/sys/unix"
)

// TestTestDrainsTheSocketItself: a rank that polls (MPI_Test) takes a
// frame waiting on its TCP connection itself, as MPICH's MPI_Test reads
// its sockets, even when the transport is only registered as a Handoff
// (ranks that do not spin, or have shared-memory peers) and the
// connection's goroutine never runs. Here there is no such goroutine at
// all; with one processor and a rank polling in a loop there might as well
// not be one, and the rank used to see the frame only when the scheduler
// preempted it.
func TestTestDrainsTheSocketItself(t *testing.T) {
	ib := transport.NewInbox()
	tr := &Transport{in: map[net.Conn]bool{}, byFd: map[int32]*inConn{},
		cfg: Config{Base: 1, Inboxes: []*transport.Inbox{ib}}}
	tr.watch.Store(newWatch())
	defer tr.closeWatch()
	ib.AddHandoff(tr)
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fds[0])
	defer unix.Close(fds[1])
	if err := unix.SetNonblock(fds[0], true); err != nil {
		t.Fatal(err)
	}
	ic := &inConn{t: tr, fd: fds[0], buf: make([]byte, 256<<10), peer: Peer{Base: 0, N: 1}}
	ic.read = ic.readSome
	tr.watchConn(ic)

	if f := ib.NextNow(); f != nil {
		t.Fatalf("frame %v before anything was written", f)
	}
	frame := append(encode(transport.Header{Kind: transport.Data, Src: 0, Dst: 1, Tag: 7, Size: 3}), 1, 2, 3)
	if _, err := unix.Write(fds[1], frame); err != nil {
		t.Fatal(err)
	}
	f := ib.NextNow()
	if f == nil {
		t.Fatal("a frame waiting on the socket was not taken by a non-blocking Next")
	}
	if f.Tag != 7 || len(f.Payload) != 3 || f.Payload[2] != 3 {
		t.Fatalf("got %v payload %v", f, f.Payload)
	}
	if g := ib.NextNow(); g != nil {
		t.Fatalf("a second frame %v", g)
	}
}
