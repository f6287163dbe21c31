//go:build linux

package shm

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gompi/gompi/transport"
	"golang.org/x/sys/unix"
)

// sizes crosses every path: empty, small, the largest single record of the
// default 512 KiB ring, one byte more (chunked), and several chunks.
var sizes = []int{0, 1, 8, 52, 100, 4095, 4096, 32 << 10, 128 << 10, 128<<10 + 1, 300 << 10, 1 << 20, 3<<20 + 5}

// TestOrderAndSizes sends every size, copied (eager) and borrowed
// (rendezvous), from one process to the other and checks content, order,
// and that every borrowed payload is released exactly once.
func TestOrderAndSizes(t *testing.T) {
	for _, cma := range []bool{true, false} {
		t.Run(fmt.Sprintf("cma=%v", cma), func(t *testing.T) {
			if !cma {
				t.Setenv(CMAEnv, "0")
			}
			g := openGroup(t, "order", 1, 1)
			if got := strings.HasPrefix(g.trs[0].Path(), "single"); cma && !got {
				t.Skipf("single-copy path unavailable: %s", g.trs[0].Path())
			} else if !cma && got {
				t.Fatalf("path %q with %s=0", g.trs[0].Path(), CMAEnv)
			}
			var released atomic.Int64
			seq := 0
			for _, borrow := range []bool{false, true} {
				for _, size := range sizes {
					seq++
					f := dataFrame(0, 1, seq, pattern(seq, size))
					if borrow {
						f.Borrow(func() { released.Add(1) })
					}
					if err := g.trs[0].Send(f); err != nil {
						t.Fatalf("send %d bytes: %v", size, err)
					}
				}
			}
			seq = 0
			for range 2 {
				for _, size := range sizes {
					seq++
					f := recvFrame(g.inbox(1), 10*time.Second)
					if err := checkFrame(f, 0, seq, size); err != nil {
						t.Fatal(err)
					}
					f.Free()
				}
			}
			if !waitFor(g.inbox(0), 10*time.Second, func() bool { return released.Load() == int64(len(sizes)) }) {
				t.Fatalf("%d of %d borrowed payloads released", released.Load(), len(sizes))
			}
			if err := g.trs[1].Err(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestManyRanksConcurrent has every rank of three processes (two ranks
// each) send to every other rank at once, each rank from its own goroutine,
// and checks per-pair order. Run it with -race.
func TestManyRanksConcurrent(t *testing.T) {
	g := openGroup(t, "many", 2, 2, 2)
	const nranks, msgs = 6, 150
	var wg sync.WaitGroup
	errs := make(chan error, 2*nranks)
	for src := range nranks {
		wg.Add(2)
		go func() { // sender
			defer wg.Done()
			tr := g.trs[src/2]
			for i := range msgs {
				for dst := range nranks {
					if dst == src {
						continue
					}
					size := (i * 37 * (dst + 1)) % 5000
					if i%50 == 7 {
						size = 200 << 10 // chunked
					}
					f := dataFrame(src, dst, i, pattern(i, size))
					if i%3 == 0 && size > 0 {
						f.Borrow(func() {})
					}
					if err := tr.Send(f); err != nil {
						errs <- err
						return
					}
				}
			}
		}()
		go func() { // receiver: src is the receiving rank here
			defer wg.Done()
			next := make([]int, nranks)
			for range msgs * (nranks - 1) {
				f := recvFrame(g.inbox(src), 20*time.Second)
				if f == nil {
					errs <- fmt.Errorf("rank %d: timed out, next expected %v", src, next)
					return
				}
				from := int(f.Src)
				if f.SendID != uint64(next[from]) || int(f.Dst) != src {
					errs <- fmt.Errorf("rank %d: got %v, want send id %d from %d", src, f, next[from], from)
					return
				}
				size := (next[from] * 37 * (src + 1)) % 5000
				if next[from]%50 == 7 {
					size = 200 << 10
				}
				if err := checkFrame(f, from, next[from], size); err != nil {
					errs <- err
					return
				}
				f.Free()
				next[from]++
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for _, tr := range g.trs {
		if err := tr.Err(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestWakeAfterLongSleep lets the receiving rank fall asleep, then sends:
// the wake-up must reach it, for eager and single-copy frames, and a
// sender sleeping for its completion must be woken too.
func TestWakeAfterLongSleep(t *testing.T) {
	g, rx, got := sleepingReceiver(t, "wake")
	if err := g.trs[0].Send(dataFrame(0, 1, 1, pattern(1, 8))); err != nil {
		t.Fatal(err)
	}
	if err := checkFrame(<-got, 0, 1, 8); err != nil {
		t.Fatal(err)
	}

	// Large borrowed frame to a sleeping receiver; the sender then sleeps
	// until the receiver's completion record wakes it.
	go func() { got <- recvFrame(rx, 20*time.Second) }()
	waitAsleep(t, rx)
	var released atomic.Bool
	f := dataFrame(0, 1, 2, pattern(2, 1<<20))
	f.Borrow(func() { released.Store(true); g.inbox(0).Kick() })
	if err := g.trs[0].Send(f); err != nil {
		t.Fatal(err)
	}
	big := <-got
	if err := checkFrame(big, 0, 2, 1<<20); err != nil {
		t.Fatal(err)
	}
	big.Free() // the engine frees after reading: that completes the send
	if !waitFor(g.inbox(0), 10*time.Second, released.Load) {
		t.Fatal("borrowed payload never released")
	}
}

// sleepingReceiver opens two processes of a rank each and starts a
// receive on rank 1 that has fallen asleep when it returns; the frame it
// gets comes on got.
func sleepingReceiver(t *testing.T, job string) (*group, *transport.Inbox, chan *transport.Frame) {
	t.Helper()
	g := openGroup(t, job, 1, 1)
	rx := g.inbox(1)
	got := make(chan *transport.Frame, 1)
	go func() { got <- recvFrame(rx, 20*time.Second) }()
	waitAsleep(t, rx)
	return g, rx, got
}

// waitAsleep waits until ib's owner sleeps in Park for a while.
func waitAsleep(t *testing.T, ib *transport.Inbox) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if asleep, _ := ib.Asleep(); asleep {
			time.Sleep(50 * time.Millisecond) // a long sleep, not a nap
			if asleep, _ := ib.Asleep(); asleep {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("receiver never went to sleep")
		}
		time.Sleep(time.Millisecond)
	}
}

// TestFullRingDrainedByWaiter fills a small ring while the receiving rank
// is not in MPI at all: the receiver's waiter must drain it so the sender
// never depends on the receiving rank's progress.
func TestFullRingDrainedByWaiter(t *testing.T) {
	t.Setenv(RingEnv, "65536")
	g := openGroup(t, "full", 1, 1)
	const n = 200
	for i := range n {
		if err := g.trs[0].Send(dataFrame(0, 1, i, pattern(i, 3000))); err != nil {
			t.Fatal(err)
		}
	}
	for i := range n {
		if err := checkFrame(recvFrame(g.inbox(1), 10*time.Second), 0, i, 3000); err != nil {
			t.Fatal(err)
		}
	}
}

// TestPeerGone: a sender blocked on the full ring of a process that closed
// gets an error rather than hanging.
func TestPeerGone(t *testing.T) {
	t.Setenv(RingEnv, "65536")
	g := openGroup(t, "gone", 1, 1)
	if err := g.trs[0].Send(dataFrame(0, 1, 0, nil)); err != nil {
		t.Fatal(err)
	}
	g.trs[1].Close()
	var err error
	for i := 0; i < 1000 && err == nil; i++ {
		err = g.trs[0].Send(dataFrame(0, 1, i, make([]byte, 8000)))
	}
	if err == nil {
		t.Fatal("sending to a closed peer never failed")
	}
}

// TestCorruptRing writes garbage where a record should be: the consumer
// must report it, not panic, and stop reading that ring.
func TestCorruptRing(t *testing.T) {
	for name, rec := range map[string][]byte{
		"length":    {0xff, 0xff, 0, 0, 0, 0, 0, 0, recFrame, 0, 0, 0, 0, 0, 0, 0},
		"type":      {32, 0, 0, 0, 8, 0, 0, 0, 99},
		"body":      {32, 0, 0, 0, 40, 0, 0, 0, recFrame},
		"header":    {80, 0, 0, 0, 60, 0, 0, 0, recFrame, 0, 0, 0, 0, 0, 0, 0, 9},
		"chunk":     {32, 0, 0, 0, 4, 0, 0, 0, recChunk},
		"done":      append([]byte{32, 0, 0, 0, 8, 0, 0, 0, recDone, 0, 0, 0, 0, 0, 0, 0}, binary.LittleEndian.AppendUint64(nil, 12345)...),
		"misrouted": misrouted(),
	} {
		t.Run(name, func(t *testing.T) {
			g := openGroup(t, "corrupt-"+name, 1, 1)
			r := g.trs[1].own.ring(0)
			copy(r.data, rec)
			n := alignUp(max(len(rec), recHdr))
			if l := binary.LittleEndian.Uint32(rec); int(l) > n && l < 1<<16 {
				n = int(l)
			}
			r.tail.Store(uint64(n))
			// Waiting for the ring's lock: the waiter goroutine's first
			// drain may hold it, and then it reports the fault (a Poll
			// would skip the ring and find no error yet).
			if g.trs[1].drain(g.inbox(1), true) {
				t.Fatal("a corrupt record was delivered")
			}
			if g.trs[1].Err() == nil {
				t.Fatal("corrupt record not reported")
			}
			t.Log(g.trs[1].Err())
		})
	}
}

// TestRecordPastTheEnd: records never wrap, so one that starts 32 bytes
// before the end of the data and claims 48 runs 16 bytes past it, into the
// next ring's control words. The consumer must refuse it, whatever its type
// and however much the producer published after it.
func TestRecordPastTheEnd(t *testing.T) {
	for _, typ := range []byte{recPad, recChunk, recDone} {
		t.Run(fmt.Sprint(typ), func(t *testing.T) {
			g := openGroup(t, "pastend", 1, 1)
			tr := g.trs[1]
			r := tr.in[0]
			size := uint64(len(r.data))
			start := 2*size - 32 // second lap, 32 bytes before the end
			// The waiter reads pos under the ring's lock.
			for !r.tryLock() {
				runtime.Gosched()
			}
			putRecHdr(r.data[start&r.mask:], 48, 0, typ)
			r.pos = start
			r.head.Store(start)
			r.tail.Store(start + 64)
			r.unlock()
			tr.drain(g.inbox(1), true) // not Poll: see TestCorruptRing
			if tr.Err() == nil || r.head.Load() != start {
				t.Fatalf("a record running past the end of the ring was consumed (head %d, start %d, err %v)", r.head.Load(), start, tr.Err())
			}
			t.Log(tr.Err())
		})
	}
}

// misrouted is a well-formed frame record for rank 7, which the receiving
// process does not host.
func misrouted() []byte {
	b := make([]byte, alignUp(recHdr+transport.HeaderSize))
	putRecHdr(b, len(b), transport.HeaderSize, recFrame)
	transport.EncodeHeader(b[recHdr:], &transport.Header{Kind: transport.Req, Dst: 7})
	return b
}

func TestBadConfig(t *testing.T) {
	ib := transport.NewInbox()
	for _, c := range []Config{
		{JobID: "", Procs: blocks(1), Inboxes: []*transport.Inbox{ib}},
		{JobID: "a/b", Procs: blocks(1), Inboxes: []*transport.Inbox{ib}},
		{JobID: "x", LocalProc: 2, Procs: blocks(1, 1), Inboxes: []*transport.Inbox{ib}},
		{JobID: "x", Inboxes: []*transport.Inbox{ib}},
		{JobID: "x", Procs: []Proc{{0, 1, 1}, {1, 0, 1}}, Inboxes: []*transport.Inbox{ib}},
		{JobID: "x", Procs: []Proc{{0, 0, 2}, {1, 1, 1}}, Inboxes: []*transport.Inbox{ib, ib}},
		{JobID: "x", Procs: []Proc{{0, 0, 1}, {0, 1, 1}}, Inboxes: []*transport.Inbox{ib}},
		{JobID: "x", Procs: []Proc{{0, 0, 0}}},
		{JobID: "x", Procs: blocks(2), Inboxes: []*transport.Inbox{ib}},
		{JobID: "x", Procs: blocks(1), Inboxes: []*transport.Inbox{nil}},
		{JobID: "x", Procs: make([]Proc, MaxLocal+1), Inboxes: []*transport.Inbox{ib}},
		{JobID: "x", Dir: "/nonexistent-dir", Procs: blocks(1), Inboxes: []*transport.Inbox{ib}},
	} {
		if tr, err := Open(c); err == nil {
			tr.Close()
			t.Errorf("Open(%+v) succeeded", c)
		}
	}
}

func TestSendErrors(t *testing.T) {
	g := openGroup(t, "errs", 1, 1)
	if err := g.trs[0].Send(dataFrame(0, 5, 0, nil)); err == nil {
		t.Error("send to a rank of no process succeeded")
	}
	f := dataFrame(0, 1, 0, make([]byte, 10))
	f.Size = 20
	if err := g.trs[0].Send(f); err == nil {
		t.Error("send of a frame whose size disagrees with its payload succeeded")
	}
	// Own process: delivered directly.
	if err := g.trs[0].Send(dataFrame(0, 0, 3, pattern(3, 10))); err != nil {
		t.Fatal(err)
	}
	if err := checkFrame(recvFrame(g.inbox(0), time.Second), 0, 3, 10); err != nil {
		t.Fatal(err)
	}
	g.trs[0].Close()
	if err := g.trs[0].Send(dataFrame(0, 1, 0, nil)); err == nil {
		t.Error("send after Close succeeded")
	}
}

// TestCMARefusedAtRunTime: the receiver advertised single copy but the
// kernel refuses process_vm_readv. That receive must fail with an error,
// the sender's buffer must still be released, and the receiver must stop
// advertising the path, so the next payload arrives through the ring.
func TestCMARefusedAtRunTime(t *testing.T) {
	g := openGroup(t, "refused", 1, 1)
	if !g.trs[0].cma {
		t.Skipf("single-copy path unavailable: %s", g.trs[0].Path())
	}
	cmaRead = func(int, uintptr, []byte) (int, error) { return 0, unix.EPERM }
	defer func() { cmaRead = readRemote }()
	var released atomic.Int32
	for seq := 1; seq <= 2; seq++ {
		f := dataFrame(0, 1, seq, pattern(seq, 1<<20))
		f.Borrow(func() { released.Add(1); g.inbox(0).Kick() })
		if err := g.trs[0].Send(f); err != nil {
			t.Fatal(err)
		}
		// Rank 0 waits for its send, as the engine does, polling the
		// completion.
		sent := make(chan bool)
		go func() {
			sent <- waitFor(g.inbox(0), 10*time.Second, func() bool { return released.Load() == int32(seq) })
		}()
		got := recvFrame(g.inbox(1), 10*time.Second)
		err := checkFrame(got, 0, seq, 1<<20)
		if seq == 1 && (err == nil || !strings.Contains(err.Error(), "operation not permitted")) {
			t.Fatalf("refused read: got error %v", err)
		}
		if seq == 2 && err != nil {
			t.Fatal(err)
		}
		if got != nil {
			got.Free()
		}
		if !<-sent {
			t.Fatalf("borrowed frame %d never released", seq)
		}
		if g.trs[1].own.u32(offCMA).Load() != 0 {
			t.Fatal("receiver still advertises single copy after a refusal")
		}
	}
	if err := g.trs[1].Err(); err != nil {
		t.Fatal(err)
	}
}

// TestWakeStress makes every wait a real sleep (no spinning) while two
// ranks per process play ping-pong across processes, so that every send
// races with its receiver falling asleep, with the other rank of the
// process polling the same ring and with the waiter parking. A lost
// wake-up shows as a timeout. Counted: the processes have a processor per
// rank, and ranks count themselves asleep. Pinned: one processor for two
// ranks, whose segments keep their sleepers count raised for good, so
// only the waiter delivers to a sleeping rank.
func TestWakeStress(t *testing.T) {
	for _, pinned := range []bool{false, true} {
		name := map[bool]string{false: "counted", true: "pinned"}[pinned]
		t.Run(name, func(t *testing.T) {
			procs := 2
			if pinned {
				procs = 1
			}
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			wakeStress(t, "wakestress-"+name, pinned)
		})
	}
}

func wakeStress(t *testing.T, job string, pinned bool) {
	t.Setenv(SpinEnv, "0s")
	g := openGroup(t, job, 2, 2)
	for _, tr := range g.trs {
		if tr.pinned != pinned {
			t.Fatalf("transport pinned %v with GOMAXPROCS %d and 2 ranks, want %v", tr.pinned, runtime.GOMAXPROCS(0), pinned)
		}
	}
	for _, ibs := range g.inboxes {
		for _, ib := range ibs {
			ib.SetSpin(transport.Spin{Checks: 1})
		}
	}
	const rounds = 300
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for _, pair := range [][2]int{{0, 2}, {1, 3}} {
		for side := range 2 {
			me, peer := pair[side], pair[1-side]
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range rounds {
					if side == 0 {
						if err := g.trs[me/2].Send(dataFrame(me, peer, i, pattern(i, 8))); err != nil {
							errs <- err
							return
						}
					}
					f := recvFrame(g.inbox(me), 10*time.Second)
					if err := checkFrame(f, peer, i, 8); err != nil {
						errs <- fmt.Errorf("rank %d round %d: %v", me, i, err)
						return
					}
					f.Free()
					if side == 1 {
						if err := g.trs[me/2].Send(dataFrame(me, peer, i, pattern(i, 8))); err != nil {
							errs <- err
							return
						}
					}
				}
			}()
		}
	}
	wg.Wait()
	var naps, wakeups uint64
	for r := range 4 {
		_, n := g.inbox(r).Asleep()
		naps += n
	}
	for _, tr := range g.trs {
		wakeups += tr.wakeups.Load()
	}
	t.Logf("%d sleeps, %d waiter wake-ups", naps, wakeups)
	if naps < rounds {
		t.Errorf("only %d sleeps in %d round trips: the test did not exercise sleeping", naps, 2*rounds)
	}
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for i, tr := range g.trs {
		if n := tr.own.u32(offSleepers).Load(); pinned && n != 1 {
			t.Errorf("process %d's pinned sleepers count is %d, want 1 for good", i, n)
		}
	}
}

// TestNotifyWakesOnlyAParkedWaiter: a sender wakes the receiver's waiter
// (and counts it in the segment's seq word) only when one of its ranks sleeps and its waiter says it blocks.
func TestNotifyWakesOnlyAParkedWaiter(t *testing.T) {
	s, err := createSegment(t.TempDir()+"/seg", 2, minRing, segmentFlags{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	pr := &peer{seg: s}
	for _, c := range []struct {
		sleepers, parked uint32
		wakes            bool
	}{{0, 0, false}, {0, 1, false}, {1, 0, false}, {1, 1, true}, {3, 1, true}} {
		s.u32(offSleepers).Store(c.sleepers)
		s.u32(offParked).Store(c.parked)
		before := s.u32(offSeq).Load()
		notify(pr)
		if woke := s.u32(offSeq).Load() != before; woke != c.wakes {
			t.Errorf("sleepers %d, parked %d: woke %v, want %v", c.sleepers, c.parked, woke, c.wakes)
		}
	}
	pinned, err := createSegment(t.TempDir()+"/pinned", 2, minRing, segmentFlags{pinned: true})
	if err != nil {
		t.Fatal(err)
	}
	defer pinned.close()
	if n := pinned.u32(offSleepers).Load(); n != 1 {
		t.Errorf("a pinned segment starts with %d sleepers, want 1", n)
	}
}

// TestFullRingWakesOnlyAStalledConsumer: a sender waiting for room in a
// full ring asks the consumer's waiter to drain (a wake-up, counted in the
// seq word) only when the consumer freed no room over the last 64 steps:
// a consumer that drains needs no help, and the wake-up would take its
// processor.
func TestFullRingWakesOnlyAStalledConsumer(t *testing.T) {
	s, err := createSegment(t.TempDir()+"/seg", 2, minRing, segmentFlags{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	tr := &Transport{spinFor: time.Hour} // it keeps yielding: no awaitRoom
	pr := &peer{seg: s}
	seq := s.u32(offSeq)
	var w stallWait
	step := func(draining bool) {
		t.Helper()
		if draining {
			pr.out.seenHead += 64 // what reserve read of the consumer's head
		}
		if err := tr.stall(pr, &w); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 64*3; i++ {
		step(true)
	}
	if n := seq.Load(); n != 0 {
		t.Fatalf("a sender whose consumer drains woke its waiter %d times", n)
	}
	for i := 0; i < 64; i++ {
		step(false)
	}
	step(false) // the 64th step since the consumer last moved
	if n := seq.Load(); n != 1 {
		t.Fatalf("a sender whose consumer stopped for 64 steps woke its waiter %d times, want 1", n)
	}
}

// TestWaiterParks: an idle transport's waiter says it blocks, and a send
// to a sleeping rank then wakes it.
func TestWaiterParks(t *testing.T) {
	g := openGroup(t, "parks", 1, 1)
	parked := g.trs[1].own.u32(offParked)
	deadline := time.Now().Add(10 * time.Second)
	for parked.Load() == parkedNot {
		if time.Now().After(deadline) {
			t.Fatal("the idle waiter never raised its parked word")
		}
		time.Sleep(time.Millisecond)
	}
	rx := g.inbox(1)
	got := make(chan *transport.Frame, 1)
	go func() { got <- recvFrame(rx, 20*time.Second) }()
	waitAsleep(t, rx)
	before := g.trs[1].wakeups.Load()
	if err := g.trs[0].Send(dataFrame(0, 1, 1, pattern(1, 8))); err != nil {
		t.Fatal(err)
	}
	if err := checkFrame(<-got, 0, 1, 8); err != nil {
		t.Fatal(err)
	}
	if g.trs[1].wakeups.Load() == before {
		t.Error("a frame for a sleeping rank reached it without waking the parked waiter")
	}
}

// TestParkAfterClose: ranks may still park on their inboxes after the
// transport closed (the poller stays registered); that must neither crash
// on the unmapped segment nor hang.
func TestParkAfterClose(t *testing.T) {
	g := openGroup(t, "parkclosed", 1, 1)
	g.trs[1].Close()
	ib := g.inbox(1)
	if f := recvFrame(ib, 50*time.Millisecond); f != nil {
		t.Fatalf("got %v from a closed transport", f)
	}
	if g.trs[1].Poll(ib) {
		t.Fatal("a closed transport delivered")
	}
}

// TestLendCopiesSenderDoesNotWaitForTheReceiver: with LendCopies
// (virtual-time runs) the sender gets its buffer back without the
// receiving rank reading the frame, whether the payload fits one ring
// record (copied into the ring) or not (a copy is lent, read with one
// copy where process_vm_readv is allowed); the receiver reads what the
// buffer held at the send, not what the sender wrote there afterwards.
// Without LendCopies the single-copy path keeps the buffer lent until the
// receiver has read it.
func TestLendCopiesSenderDoesNotWaitForTheReceiver(t *testing.T) {
	dir := t.TempDir()
	var trs []*Transport
	var ibs []*transport.Inbox
	for i := range 2 {
		ib := transport.NewInbox()
		tr, err := Open(Config{JobID: "lend", Dir: dir, LocalProc: i, Procs: blocks(1, 1),
			Inboxes: []*transport.Inbox{ib}, LendCopies: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { tr.Close() })
		trs, ibs = append(trs, tr), append(ibs, ib)
	}
	if p := trs[0].Path(); trs[0].cma && !strings.Contains(p, "lends") && !strings.Contains(p, "process_vm_writev") {
		t.Fatalf("path %q with LendCopies", trs[0].Path())
	}
	for seq, size := range []int{64 << 10, 4 << 20} {
		var released atomic.Int64
		buf := pattern(seq, size)
		f := dataFrame(0, 1, seq, buf)
		f.Borrow(func() { released.Add(1) })
		if err := trs[0].Send(f); err != nil {
			t.Fatal(err)
		}
		// Nobody takes the frame out of rank 1's inbox before the release.
		if !waitFor(ibs[0], 10*time.Second, func() bool { return released.Load() == 1 }) {
			t.Fatalf("%d bytes: the sender's buffer is still lent while the receiver has not read the frame", size)
		}
		clear(buf)
		g := recvFrame(ibs[1], 10*time.Second)
		if err := checkFrame(g, 0, seq, size); err != nil {
			t.Fatal(err)
		}
		g.Free()
	}
	// The lent copy goes back to the pool at the receiver's completion.
	pending := func() int {
		trs[0].pendMu.Lock()
		defer trs[0].pendMu.Unlock()
		return len(trs[0].pending)
	}
	if !waitFor(ibs[0], 10*time.Second, func() bool { return pending() == 0 }) {
		t.Fatalf("%d lent copies outstanding after the receiver freed its frames", pending())
	}
}

// TestFullRingWaitSpinsThenSleeps: a sender waiting for room yields while
// its transport's ranks spin (spinFor) and only then sleeps; with no spin
// (more ranks than cores) it sleeps after 64 yields.
func TestFullRingWaitSpinsThenSleeps(t *testing.T) {
	g := openGroup(t, "stall", 1, 1)
	tr, pr := g.trs[0], g.peerOf(t, 0, 1)
	saved := tr.spinFor
	defer func() { tr.spinFor = saved }()

	tr.spinFor = time.Hour
	var w stallWait
	for range 1000 {
		if err := tr.stall(pr, &w); err != nil {
			t.Fatal(err)
		}
	}
	if w.naps != 0 || w.spins != 1000 {
		t.Fatalf("with a spin: %d yields, %d sleeps; want 1000 yields", w.spins, w.naps)
	}

	tr.spinFor = 0
	w = stallWait{}
	for range 70 {
		if err := tr.stall(pr, &w); err != nil {
			t.Fatal(err)
		}
	}
	if w.spins != 64 || w.naps != 6 {
		t.Fatalf("without a spin: %d yields, %d sleeps; want 64 and 6", w.spins, w.naps)
	}
}

// TestFullRingSenderDrainsItsOwnRings: a sender waiting for room takes
// what the other processes sent to its own, as MPICH's progress engine
// does while a send waits. Two ranks that both send more than a ring
// holds to each other (osu bibw, an exchange of many messages) otherwise
// each wait in their sends for the other's waiter, a wake-up a ring.
func TestFullRingSenderDrainsItsOwnRings(t *testing.T) {
	g := stallWithAFrameWaiting(t, "stalldrain", nil)
	if err := checkFrame(recvFrame(g.inbox(0), 10*time.Second), 1, 7, 3000); err != nil {
		t.Fatal(err)
	}
}

// TestFullRingWaitYieldsThroughTheSendersInbox: a step of a full-ring wait
// that yields its processor, and one that parks for room, first call the
// waiting rank's inbox's SetOnYield function (where a virtual rank's
// pinned meter lets go of its thread: vtime.Pinner); a wait without an
// inbox calls none.
func TestFullRingWaitYieldsThroughTheSendersInbox(t *testing.T) {
	g := openGroup(t, "yielding", 1, 1)
	tr, pr := g.trs[0], g.peerOf(t, 0, 1)
	yields := 0
	w := stallWait{mine: g.inbox(0)}
	w.mine.SetOnYield(func() { yields++ })
	if err := tr.stall(pr, &w); err != nil {
		t.Fatal(err)
	}
	if yields != 1 || w.spins != 1 {
		t.Fatalf("a spinning step with nothing to drain called the hook %d times (%d spins), want 1", yields, w.spins)
	}
	w.spins, w.start = 64, time.Now().Add(-time.Hour) // past the spin: the next step parks
	if err := tr.stall(pr, &w); err != nil {
		t.Fatal(err)
	}
	if yields != 2 || w.naps != 1 {
		t.Fatalf("a parking step left the hook called %d times in all (%d naps), want 2", yields, w.naps)
	}
	if err := tr.stall(pr, &stallWait{}); err != nil {
		t.Fatal(err)
	}
	if yields != 2 {
		t.Fatal("a wait without an inbox called the rank's hook")
	}
}

// TestFullRingSenderTakesItsFramesDirect: a sending rank that waits for
// room, and whose frame named its inbox (transport.Frame.SetSender),
// takes the frames its own rings hold for it straight into its posted
// receives (Inbox.OfferDirect), one copy, as its own poll would; without
// that (TestFullRingSenderDrainsItsOwnRings) they are queued.
func TestFullRingSenderTakesItsFramesDirect(t *testing.T) {
	var took []int32
	g := stallWithAFrameWaiting(t, "stalldirect", func(mine *transport.Inbox) {
		mine.SetDirect(func(h *transport.Header, payload []byte) bool {
			if !bytes.Equal(payload, pattern(int(h.Tag), int(h.Size))) {
				t.Errorf("frame %d offered with a wrong payload", h.Tag)
			}
			took = append(took, h.Tag)
			return true
		})
	})
	if !slices.Equal(took, []int32{7}) || !g.inbox(0).Empty() {
		t.Fatalf("frames taken straight %v, queue empty %v: want [7] and nothing queued", took, g.inbox(0).Empty())
	}
}

// stallWithAFrameWaiting opens two processes of one rank each and, once
// the first's waiter has parked (nobody sleeps on rank 0's inbox, so
// nothing wakes it), has rank 1 send rank 0 a frame (tag 7, 3000 bytes)
// and runs one step of a full-ring wait of the first process's: with rank
// 0's inbox as the waiting rank's when direct is set, which it sets up
// first, and with none when it is nil. It fails if the step left the
// frame in the ring.
func stallWithAFrameWaiting(t *testing.T, job string, direct func(mine *transport.Inbox)) *group {
	t.Helper()
	g := openGroup(t, job, 1, 1)
	tr, pr := g.trs[0], g.peerOf(t, 0, 1)
	in := tr.in[1]
	var w stallWait
	if direct != nil {
		w.mine = g.inbox(0)
		direct(w.mine)
	}
	deadline := time.Now().Add(10 * time.Second)
	for tr.own.u32(offParked).Load() == parkedNot {
		if time.Now().After(deadline) {
			t.Fatal("the waiter never parked")
		}
		time.Sleep(time.Millisecond)
	}
	if err := g.trs[1].Send(dataFrame(1, 0, 7, pattern(7, 3000))); err != nil {
		t.Fatal(err)
	}
	if in.tail.Load() == in.head.Load() {
		t.Fatal("the frame is not in the ring")
	}
	if err := tr.stall(pr, &w); err != nil {
		t.Fatal(err)
	}
	if in.tail.Load() != in.head.Load() {
		t.Fatal("a step of a send waiting for room left the sender's own ring undrained")
	}
	return g
}

// TestSendCopiesPayload: the transport.SendCopier promise the MPI engine
// relies on to lend an eager send the user's buffer. A frame for another
// process's rank has its payload copied by the time Send returns, in a
// cell, a record, or chunks (larger than a quarter of the ring): the
// buffer, overwritten right after, arrives as it was. Frames for this
// process's ranks are handed on, so CopiesOnSend says false for them.
func TestSendCopiesPayload(t *testing.T) {
	t.Setenv(RingEnv, "65536")
	g := openGroup(t, "copies", 1, 2)
	tr := g.trs[0]
	if !tr.CopiesOnSend(1) || !tr.CopiesOnSend(2) || tr.CopiesOnSend(0) || tr.CopiesOnSend(3) {
		t.Fatalf("CopiesOnSend(0..3) = %v %v %v %v, want false true true false",
			tr.CopiesOnSend(0), tr.CopiesOnSend(1), tr.CopiesOnSend(2), tr.CopiesOnSend(3))
	}
	var table transport.Table
	table.Routes = []transport.Transport{nil, tr, tr}
	if table.CopiesOnSend(0) || !table.CopiesOnSend(1) || table.CopiesOnSend(5) {
		t.Fatal("a Table's CopiesOnSend is not its route's")
	}
	sizes := []int{8, 3000, 16384, 100000} // a cell, records, chunks
	done := make(chan error, 1)
	go func() {
		for i, size := range sizes {
			if err := checkFrame(recvFrame(g.inbox(1), 10*time.Second), 0, i, size); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	for i, size := range sizes {
		buf := pattern(i, size)
		if err := tr.Send(dataFrame(0, 1, i, buf)); err != nil {
			t.Fatal(err)
		}
		for j := range buf {
			buf[j] = ^buf[j]
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestFullRingWaitEndsWhenTheConsumerFreesRoom sends a frame of many
// rings' worth through a 1 KiB ring with no spin (a host with more
// processes than cores) while the receiving rank is not in MPI: its
// process's waiter drains, and each time it frees room in the ring the
// sender waits on, it must wake the sender (awaitRoom), not leave it to
// its timeout.
func TestFullRingWaitEndsWhenTheConsumerFreesRoom(t *testing.T) {
	t.Setenv(RingEnv, "1024")
	t.Setenv(CMAEnv, "0") // stream the payload through the ring
	g := openGroup(t, "room", 1, 1)
	tr := g.trs[0]
	tr.spinFor = 0
	const size = 1 << 20
	// The receiver's waiter may keep up with the sender's yields all
	// along on an idle host: send again until a wait parked.
	for seq := 0; seq < 5 && tr.roomParks.Load() == 0; seq++ {
		sent := make(chan error, 1)
		go func() { sent <- tr.Send(dataFrame(0, 1, seq, pattern(seq, size))) }()
		select {
		case err := <-sent:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(20 * time.Second):
			t.Fatal("the send never finished")
		}
		if err := checkFrame(recvFrame(g.inbox(1), 10*time.Second), 0, seq, size); err != nil {
			t.Fatal(err)
		}
	}
	parks, signals := tr.roomParks.Load(), tr.roomSignals.Load()
	t.Logf("%d waits for room parked, %d ended by the consumer", parks, signals)
	switch {
	case parks == 0:
		t.Fatal("no send waited for room in 5 attempts")
	case signals == 0:
		t.Error("no wait for room was ended by the consumer freeing room: each waited for its timeout")
	}
}

// TestWaiterHoldsNoProcessor: the waiter of a process whose rank is awake
// waits in the network poller, where it holds no processor, not in a
// system call, where it keeps its processor until the runtime's monitor
// takes it back (milliseconds later). With one processor a process, a
// waiter that blocked in a futex while its rank, spinning, had just
// yielded stopped the rank for that long (wake.go; docs/transports-shm.md,
// "Receiving and waking"). And a wake-up ends that wait.
func TestWaiterHoldsNoProcessor(t *testing.T) {
	g := openGroup(t, "noproc", 1, 1)
	if g.trs[0].wakeIn == nil || g.trs[1].wakeIn == nil {
		t.Skip("fewer cores than the test's two ranks: the waiters have no pipes and always wait on the futex")
	}
	// Parked is raised just before the wait: look until the dump shows
	// both waiters blocked.
	var states []string
	deadline := time.Now().Add(10 * time.Second)
	for {
		states = waiterStates(t)
		if len(states) == 2 && !slices.ContainsFunc(states, func(s string) bool {
			return strings.HasPrefix(s, "running") || strings.HasPrefix(s, "runnable")
		}) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the waiters never both blocked (states %q)", states)
		}
		time.Sleep(time.Millisecond)
	}
	for _, s := range states {
		if !strings.HasPrefix(s, "IO wait") {
			t.Errorf("a blocked waiter is in state %q, want IO wait (the network poller)", s)
		}
	}
	tr := g.trs[1]
	before := tr.wakeups.Load()
	wake(tr.own)
	deadline = time.Now().Add(10 * time.Second)
	for tr.wakeups.Load() == before {
		if time.Now().After(deadline) {
			t.Fatal("a wake-up did not end the waiter's wait")
		}
		time.Sleep(time.Millisecond)
	}
}

// TestWaiterWaitsOnTheFutexWhenAllSleep: a waiter that goes to wait
// while every rank of the process sleeps waits on the futex word (nothing
// of the process wants the processor then), and a frame for the sleeping
// rank still reaches it.
func TestWaiterWaitsOnTheFutexWhenAllSleep(t *testing.T) {
	g, _, got := sleepingReceiver(t, "futexwait")
	// The waiter chose how to wait before the rank slept: a wake-up with
	// nothing to deliver makes it choose again.
	wake(g.trs[1].own)
	parked := g.trs[1].own.u32(offParked)
	deadline := time.Now().Add(10 * time.Second)
	for parked.Load() != parkedFutex {
		if time.Now().After(deadline) {
			t.Fatalf("with its only rank asleep the waiter's parked word is %d, want %d (the futex)", parked.Load(), parkedFutex)
		}
		time.Sleep(time.Millisecond)
	}
	if err := g.trs[0].Send(dataFrame(0, 1, 1, pattern(1, 8))); err != nil {
		t.Fatal(err)
	}
	if err := checkFrame(<-got, 0, 1, 8); err != nil {
		t.Fatal(err)
	}
}

// TestMayWaitOnPipe: a waiter gets a pipe where its ranks have a core each
// or its process is pinned, and not on a host of more processes than
// maxPeerFdProcs, where every process would hold a descriptor of each
// other's pipe.
func TestMayWaitOnPipe(t *testing.T) {
	for _, c := range []struct {
		spin   time.Duration
		pinned bool
		nlocal int
		want   bool
	}{
		{time.Millisecond, false, 2, true},
		{0, false, 2, false},
		{0, true, 2, true},
		{time.Millisecond, false, maxPeerFdProcs, true},
		{time.Millisecond, false, maxPeerFdProcs + 1, false},
		{0, true, maxPeerFdProcs + 1, false},
	} {
		if got := mayWaitOnPipe(c.spin, c.pinned, c.nlocal); got != c.want {
			t.Errorf("mayWaitOnPipe(%v, %v, %d) = %v, want %v", c.spin, c.pinned, c.nlocal, got, c.want)
		}
	}
}

// waiterStates are the states the goroutine dump gives the waiters of
// the transports alive in this test process ("IO wait", "syscall",
// "running", ...).
func waiterStates(t *testing.T) []string {
	t.Helper()
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var states []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		if !strings.Contains(g, "shm.(*Transport).waiter(") {
			continue
		}
		first, _, _ := strings.Cut(g, "\n")
		// goroutine 12 [IO wait]: or [IO wait, 2 minutes]:
		_, s, ok := strings.Cut(first, "[")
		if !ok {
			t.Fatalf("unexpected goroutine header %q", first)
		}
		s, _, _ = strings.Cut(s, "]")
		states = append(states, s)
	}
	return states
}

// TestConsumeAllEnds: emptying a ring whose producer publishes a record
// for every record taken ends after about a ring's worth: the waiter,
// which empties rings, otherwise held its process's processor for as long
// as a sender kept ahead of it (until the runtime preempted it).
func TestConsumeAllEnds(t *testing.T) {
	const payload, more = 1000, 5000
	g := openGroup(t, "consumeall", 1, 1)
	send := func(seq int) {
		if err := g.trs[0].Send(dataFrame(0, 1, seq, pattern(seq, payload))); err != nil {
			t.Error(err)
		}
	}
	tr := g.trs[1]
	r := tr.in[0]
	for !r.tryLock() { // keep the waiter out
		runtime.Gosched()
	}
	send(0)
	sent, taken := 1, 0
	hook := func() {
		taken++
		if sent < more {
			send(sent)
			sent++
		}
	}
	testHookConsumed.Store(&hook)
	tr.consume(r, true, nil)
	testHookConsumed.Store(nil)
	r.unlock()
	ringRecords := len(r.data) / alignUp(recHdr+transport.HeaderSize+payload)
	if taken > 2*ringRecords+2 {
		t.Errorf("consume took %d records of a producer that kept publishing, want about a ring's worth (%d)", taken, ringRecords)
	}
	if taken == 0 {
		t.Error("consume took nothing")
	}
}

// TestConsumerShowsRoomInSteps: a consumer taking a backlog of records
// shows the producer the room they free a step of showEvery bytes at a
// time, not after each record (each store of its head a transfer of its
// cache line to a producer that runs ahead), and all of it when it stops.
func TestConsumerShowsRoomInSteps(t *testing.T) {
	const payload, n = 100, 300 // too big for a fastbox cell: every frame a record
	g := openGroup(t, "showsteps", 1, 1)
	tr := g.trs[1]
	r := tr.in[0]
	for !r.tryLock() { // keep the waiter out
		runtime.Gosched()
	}
	for i := range n {
		if err := g.trs[0].Send(dataFrame(0, 1, i, pattern(i, payload))); err != nil {
			t.Fatal(err)
		}
	}
	rec := uint64(alignUp(recHdr + transport.HeaderSize + payload))
	stores, taken, maxLag := 0, 0, uint64(0)
	last := r.head.Load()
	hook := func() {
		taken++
		h := r.head.Load()
		if h != last {
			stores++
			last = h
		}
		maxLag = max(maxLag, r.pos-h)
	}
	testHookConsumed.Store(&hook)
	tr.consume(r, true, nil)
	testHookConsumed.Store(nil)
	r.unlock()
	if taken != n {
		t.Fatalf("consume took %d records, want %d", taken, n)
	}
	if h := r.head.Load(); h != r.pos {
		t.Errorf("consume returned with its head at %d, %d bytes behind what it took", h, r.pos-h)
	}
	if want := int(uint64(n)*rec/showEvery) + 1; stores > want {
		t.Errorf("the head moved %d times while %d records of %d bytes were taken, want at most %d", stores, n, rec, want)
	}
	if maxLag >= showEvery+rec {
		t.Errorf("the head fell %d bytes behind what was taken, want under %d", maxLag, showEvery+rec)
	}
}

// TestRingControlWordsApart: the consumer's words (head, cell head), the
// producer's tail, which it writes at every record, and its room-wait flag,
// which it writes only when it waits and the consumer reads whenever it
// shows room, lie on three different cache lines, and the consumer's are
// not in the tail's prefetched pair of lines, all within a ring's control
// words. A flag beside the tail took the tail's line from the producer at
// every read.
func TestRingControlWordsApart(t *testing.T) {
	const line = 64
	consumer, tail, flag := 0/line, ringTail/line, ringRoomWait/line
	if ringCellHead/line != consumer || ringCellHead+8 > line {
		t.Errorf("the cell head at %d is not on the head's line", ringCellHead)
	}
	if consumer == tail || tail == flag || flag == consumer {
		t.Errorf("head, tail and room-wait flag on lines %d, %d and %d: want three lines", consumer, tail, flag)
	}
	if consumer/2 == tail/2 {
		t.Errorf("head and tail in the same pair of lines (%d, %d)", consumer, tail)
	}
	if ringRoomWait+4 > ringCtl || ringTail+8 > ringCtl {
		t.Errorf("control words beyond the %d control bytes", ringCtl)
	}
}
