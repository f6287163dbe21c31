//go:build linux

package shm

import (
	"bytes"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gompi/gompi/transport"
	"golang.org/x/sys/unix"
)

// splitPair is openPair for real runs, skipped where this process may not
// write others' memory (then no copy is split).
func splitPair(t *testing.T, job string) ([]*Transport, []*transport.Inbox) {
	t.Helper()
	trs, ibs := openPair(t, job, false)
	if !trs[0].splitCopy.Load() || !trs[1].splitCopy.Load() {
		t.Skipf("process_vm_writev not permitted here (path: %s)", trs[0].Path())
	}
	return trs, ibs
}

// splitRendezvous runs a rendezvous from rank 1's ACK on, as rendezvous
// does, but returns as soon as rank 1 has the DATA: with a split copy the
// sender's buffer is released only once the receiver has read its part.
// It returns the DATA and the sender's release flag.
func splitRendezvous(t *testing.T, trs []*Transport, ibs []*transport.Inbox, id uint64, payload, buf []byte, ackFlags, dataFlags uint8) (*transport.Frame, *atomic.Bool) {
	t.Helper()
	ackFor(t, trs, ibs, id, len(payload), buf, ackFlags)
	d, released := dataFor(id, payload, dataFlags)
	if err := trs[0].Send(d); err != nil {
		t.Fatal(err)
	}
	f := recvFrame(ibs[1], 10*time.Second)
	if f == nil {
		t.Fatal("the DATA never arrived")
	}
	ibs[1].ForgetPayload(id) // as the engine does once the DATA is in
	return f, released
}

// TestSplitCopyBothEndsCopy: in a real run a large rendezvous payload is
// read in part by the receiver and written in part by the sender, and the
// receive buffer holds all of it, at sizes that are and are not whole
// pages; the sender's buffer is released once the receiver is done, and
// nothing stays noted on either side.
func TestSplitCopyBothEndsCopy(t *testing.T) {
	trs, ibs := splitPair(t, "split")
	for i, size := range []int{splitMin, 1<<20 + 123, 4 << 20} {
		payload := pattern(i, size)
		buf := make([]byte, size)
		before := trs[0].splitsOut.Load()
		f, released := splitRendezvous(t, trs, ibs, uint64(300+i), payload, buf, 0, 0)
		if trs[0].splitsOut.Load() != before+1 {
			t.Fatalf("%d bytes: not sent as a split copy", size)
		}
		if n, err := f.ReadPayload(buf); err != nil || n != size || !bytes.Equal(buf, payload) {
			t.Fatalf("%d bytes: read %d, %v, or the bytes differ", size, n, err)
		}
		f.Free()
		if !waitFor(ibs[0], 10*time.Second, released.Load) {
			t.Fatalf("%d bytes: the sender's buffer was never released", size)
		}
	}
	trs[0].landMu.Lock()
	lands := len(trs[0].lands)
	trs[0].landMu.Unlock()
	trs[1].splits.mu.Lock()
	waiting := len(trs[1].splits.waiting)
	trs[1].splits.mu.Unlock()
	if lands != 0 || waiting != 0 {
		t.Fatalf("%d receive buffers still noted by the sender, %d transfers by the receiver", lands, waiting)
	}
}

// TestSplitCopyReadsAloneWhereItMust: a payload below splitMin, one
// longer than its receive buffer (the receive truncates), and one whose
// receiving or sending rank is in an exchange (transport.FlagExchanging
// on its ACK or its DATA) go as ordinary single-copy reads, truncation
// included.
func TestSplitCopyReadsAloneWhereItMust(t *testing.T) {
	trs, ibs := splitPair(t, "splitalone")
	for i, c := range []struct {
		size, room  int
		ackF, dataF uint8
	}{
		{splitMin - 1, splitMin - 1, 0, 0}, {1 << 20, 1000, 0, 0}, {1 << 20, 1<<20 - 1, 0, 0},
		{1 << 20, 1 << 20, transport.FlagExchanging, 0}, {1 << 20, 1 << 20, 0, transport.FlagExchanging},
	} {
		payload := pattern(i, c.size)
		buf := make([]byte, c.room)
		before := trs[0].splitsOut.Load()
		f, released := splitRendezvous(t, trs, ibs, uint64(400+i), payload, buf, c.ackF, c.dataF)
		if trs[0].splitsOut.Load() != before {
			t.Fatalf("%d bytes into %d: sent as a split copy", c.size, c.room)
		}
		if n, err := f.ReadPayload(buf); err != nil || n != c.room || !bytes.Equal(buf, payload[:c.room]) {
			t.Fatalf("%d bytes into %d: read %d, %v, or the bytes differ", c.size, c.room, n, err)
		}
		f.Free()
		if !waitFor(ibs[0], 10*time.Second, released.Load) {
			t.Fatalf("%d bytes into %d: the sender's buffer was never released", c.size, c.room)
		}
	}
}

// TestSplitCopyReceiverReadsTheTailWhenTheWriteFails: where the kernel
// refuses the sender's write, the receiver reads the tail too, and the
// sender stops splitting.
func TestSplitCopyReceiverReadsTheTailWhenTheWriteFails(t *testing.T) {
	trs, ibs := splitPair(t, "splitrefused")
	defer func(w func(int, uintptr, []byte) (int, error)) { cmaWrite = w }(cmaWrite)
	cmaWrite = func(int, uintptr, []byte) (int, error) { return 0, unix.EPERM }
	payload := pattern(9, 2<<20)
	buf := make([]byte, len(payload))
	f, released := splitRendezvous(t, trs, ibs, 500, payload, buf, 0, 0)
	if n, err := f.ReadPayload(buf); err != nil || n != len(payload) || !bytes.Equal(buf, payload) {
		t.Fatalf("read %d, %v, or the bytes differ", n, err)
	}
	f.Free()
	if !waitFor(ibs[0], 10*time.Second, released.Load) {
		t.Fatal("the sender's buffer was never released")
	}
	if trs[0].splitCopy.Load() {
		t.Fatal("still splitting after the kernel refused the write")
	}
}

// slowWrites makes the sender's writes start only after d, so that the
// receiver has the DATA while the sender still copies, and returns an
// undo.
func slowWrites(d time.Duration) func() {
	w := cmaWrite
	cmaWrite = func(pid int, addr uintptr, src []byte) (int, error) {
		time.Sleep(d)
		return w(pid, addr, src)
	}
	return func() { cmaWrite = w }
}

// sendAsync sends f from tr on another goroutine; the channel gets the
// result.
func sendAsync(tr *Transport, f *transport.Frame) chan error {
	done := make(chan error, 1)
	go func() { done <- tr.Send(f) }()
	return done
}

// TestSplitCopyWaitsForTheSendersPart: the receiver's read, and a free of
// the DATA without reading it (a receive that failed), return only once
// the sender's write into the receive buffer is over.
func TestSplitCopyWaitsForTheSendersPart(t *testing.T) {
	trs, ibs := splitPair(t, "splitwait")
	defer slowWrites(100 * time.Millisecond)()
	for i, read := range []bool{true, false} {
		id := uint64(600 + i)
		payload := pattern(3+i, 1<<20)
		buf := make([]byte, len(payload))
		ackFor(t, trs, ibs, id, len(payload), buf, 0)
		d, released := dataFor(id, payload, 0)
		sent := sendAsync(trs[0], d)
		f := recvFrame(ibs[1], 10*time.Second)
		if f == nil {
			t.Fatal("the DATA never arrived")
		}
		if read {
			if n, err := f.ReadPayload(buf); err != nil || n != len(payload) || !bytes.Equal(buf, payload) {
				t.Fatalf("read %d, %v, or the bytes differ (the read did not wait for the sender's part)", n, err)
			}
		}
		f.Free()
		if !bytes.Equal(buf[splitAt(len(payload)):], payload[splitAt(len(payload)):]) {
			t.Fatalf("read %v: done before the sender's part was in the receive buffer", read)
		}
		if err := <-sent; err != nil {
			t.Fatal(err)
		}
		if !waitFor(ibs[0], 10*time.Second, released.Load) {
			t.Fatal("the sender's buffer was never released")
		}
		ibs[1].ForgetPayload(id)
	}
}
