//go:build linux

package shm

import (
	"bytes"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gompi/gompi/transport"
	"golang.org/x/sys/unix"
)

// openPair opens transports for two processes of one rank each in this
// process (rank 0 sends the DATA, rank 1 receives it).
func openPair(t *testing.T, job string, lend bool) ([]*Transport, []*transport.Inbox) {
	t.Helper()
	dir := t.TempDir()
	var trs []*Transport
	var ibs []*transport.Inbox
	for i := range 2 {
		ib := transport.NewInbox()
		tr, err := Open(Config{JobID: job, Dir: dir, LocalProc: i, Procs: blocks(1, 1),
			Inboxes: []*transport.Inbox{ib}, LendCopies: lend})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { tr.Close() })
		trs, ibs = append(trs, tr), append(ibs, ib)
	}
	return trs, ibs
}

// ackFor runs the start of a rendezvous's end: rank 1 registers buf for
// receive id and sends the ACK (with flags) for a message of size bytes,
// which rank 0 takes.
func ackFor(t *testing.T, trs []*Transport, ibs []*transport.Inbox, id uint64, size int, buf []byte, flags uint8) {
	t.Helper()
	ibs[1].ExpectPayload(id, buf)
	ack := transport.NewFrame()
	ack.Header = transport.Header{Kind: transport.Ack, Flags: flags, Src: 1, Dst: 0, Tag: 7, SendID: 3, RecvID: id, Size: int64(size)}
	if err := trs[1].Send(ack); err != nil {
		t.Fatal(err)
	}
	a := recvFrame(ibs[0], 10*time.Second)
	if a == nil || a.Kind != transport.Ack || a.RecvID != id {
		t.Fatalf("rank 0 got %v, want the ACK for receive %d", a, id)
	}
	a.Free()
}

// dataFor is rank 0's rendezvous DATA (with flags added) answering the ACK
// for receive id, borrowing payload; released reports when rank 0's
// buffer is released.
func dataFor(id uint64, payload []byte, flags uint8) (d *transport.Frame, released *atomic.Bool) {
	released = new(atomic.Bool)
	d = &transport.Frame{Header: transport.Header{Kind: transport.Data, Flags: transport.FlagRendezvous | flags,
		Src: 0, Dst: 1, Tag: 7, SendID: 3, RecvID: id, Size: int64(len(payload))}, Payload: payload}
	d.Borrow(func() { released.Store(true) })
	return d, released
}

// rendezvous runs the end of a rendezvous from rank 1's ACK on: rank 1
// registers buf for receive id, sends the ACK; rank 0 takes it and sends a
// borrowed DATA of payload. It returns the DATA frame rank 1 got and
// whether rank 0's buffer was released before rank 1 took that frame.
func rendezvous(t *testing.T, trs []*Transport, ibs []*transport.Inbox, id uint64, payload, buf []byte) (*transport.Frame, bool) {
	t.Helper()
	ackFor(t, trs, ibs, id, len(payload), buf, 0)
	d, released := dataFor(id, payload, 0)
	if err := trs[0].Send(d); err != nil {
		t.Fatal(err)
	}
	early := waitFor(ibs[0], 10*time.Second, released.Load)
	f := recvFrame(ibs[1], 10*time.Second)
	if f == nil {
		t.Fatal("the DATA never arrived")
	}
	return f, early
}

// TestLandedRendezvousOneCopyByTheSender: in virtual-time runs
// (LendCopies) the ACK names the receive buffer, the sender writes the
// payload into it and is released before the receiving rank has taken the
// DATA, and the DATA's payload is the receive buffer itself (the rank
// copies nothing), truncated to it where the message is longer.
func TestLandedRendezvousOneCopyByTheSender(t *testing.T) {
	trs, ibs := openPair(t, "landed", true)
	if !trs[0].cmaWrite.Load() {
		t.Skipf("process_vm_writev not permitted here (path: %s)", trs[0].Path())
	}
	for i, c := range []struct{ size, room int }{{4 << 20, 4 << 20}, {64 << 10, 64 << 10}, {1 << 20, 1000}} {
		payload := pattern(i, c.size)
		buf := make([]byte, c.room)
		f, early := rendezvous(t, trs, ibs, uint64(100+i), payload, buf)
		if !early {
			t.Fatalf("%d bytes: the sender's buffer was not released before the receiver took the DATA", c.size)
		}
		if f.Size != int64(c.size) || len(f.Payload) != min(c.size, c.room) || &f.Payload[0] != &buf[0] {
			t.Fatalf("%d bytes into %d: got a %d-byte payload for a %d-byte message, in the receive buffer: %v",
				c.size, c.room, len(f.Payload), f.Size, len(f.Payload) > 0 && &f.Payload[0] == &buf[0])
		}
		if n, err := f.ReadPayload(buf); err != nil || n != min(c.size, c.room) || !bytes.Equal(buf, payload[:n]) {
			t.Fatalf("%d bytes into %d: read %d, %v, or the bytes differ", c.size, c.room, n, err)
		}
		f.Free()
	}
	trs[0].landMu.Lock()
	left := len(trs[0].lands)
	trs[0].landMu.Unlock()
	if left != 0 {
		t.Fatalf("%d receive buffers still noted after their DATA went", left)
	}
}

// TestLandedRendezvousFallsBackToALentCopy: where the kernel refuses the
// write, the sender lends a copy as before (still released at once) and
// stops trying to write.
func TestLandedRendezvousFallsBackToALentCopy(t *testing.T) {
	trs, ibs := openPair(t, "landrefused", true)
	if !trs[0].cmaWrite.Load() {
		t.Skipf("process_vm_writev not permitted here (path: %s)", trs[0].Path())
	}
	defer func(w func(int, uintptr, []byte) (int, error)) { cmaWrite = w }(cmaWrite)
	cmaWrite = func(int, uintptr, []byte) (int, error) { return 0, unix.EPERM }
	payload := pattern(5, 2<<20)
	buf := make([]byte, len(payload))
	f, early := rendezvous(t, trs, ibs, 200, payload, buf)
	if !early {
		t.Fatal("the sender's buffer was not released before the receiver took the DATA")
	}
	got := make([]byte, len(payload))
	if n, err := f.ReadPayload(got); err != nil || n != len(payload) || !bytes.Equal(got, payload) {
		t.Fatalf("read %d, %v, or the bytes differ", n, err)
	}
	f.Free()
	ibs[1].ForgetPayload(200) // as the engine does when the DATA came another way
	if trs[0].cmaWrite.Load() {
		t.Fatal("still writing after the kernel refused")
	}
}

// TestRingDataLandsInTheReceiveBuffer: a rendezvous DATA streaming through
// the ring (no single-copy path) is copied from the ring straight into the
// receive buffer its rank registered, chunks included, and what does not
// fit is dropped.
func TestRingDataLandsInTheReceiveBuffer(t *testing.T) {
	t.Setenv(CMAEnv, "0")
	trs, ibs := openPair(t, "ringland", false)
	for i, c := range []struct{ size, room int }{{3 << 20, 3 << 20}, {20000, 20000}, {3 << 20, 5000}} {
		payload := pattern(i, c.size)
		buf := make([]byte, c.room)
		f, _ := rendezvous(t, trs, ibs, uint64(300+i), payload, buf)
		if f.Size != int64(c.size) || len(f.Payload) != min(c.size, c.room) || &f.Payload[0] != &buf[0] {
			t.Fatalf("%d bytes into %d: got a %d-byte payload for a %d-byte message, in the receive buffer: %v",
				c.size, c.room, len(f.Payload), f.Size, len(f.Payload) > 0 && &f.Payload[0] == &buf[0])
		}
		if !bytes.Equal(buf, payload[:len(buf)]) {
			t.Fatalf("%d bytes into %d: the bytes differ", c.size, c.room)
		}
		f.Free()
	}
	if err := errors.Join(trs[0].Err(), trs[1].Err()); err != nil {
		t.Fatal(err)
	}
}
