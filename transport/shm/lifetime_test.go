//go:build linux

package shm

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gompi/gompi/transport"
	"golang.org/x/sys/unix"
)

// TestSegmentFootprintIsLinear: a segment's size is bounded whatever the
// number of processes sharing memory, so a host's shared memory grows at
// most linearly with its processes. (Rings of 64 KiB at least, each with a
// page of control words, made a segment of 10000 processes 680 MB, and the
// host's total grow as their square.)
func TestSegmentFootprintIsLinear(t *testing.T) {
	// Fastbox cells take a 512th of a ring of 64 KiB or more, one cell
	// below.
	const bound = pageSize + segmentData + segmentData/512 + MaxLocal*(ringCtl+cellSize) // 44 MiB
	for _, n := range []int{1, 2, 4, 64, 65, 240, 1000, 1024, 4096, 10000, MaxLocal} {
		b, err := SegmentBytes(n)
		if err != nil {
			t.Fatalf("SegmentBytes(%d): %v", n, err)
		}
		if b > bound {
			t.Errorf("%d processes: a segment of %d bytes, more than %d", n, b, bound)
		}
		if n <= 1024 && int64(n)*b > hostData+hostData/512+int64(n)*(pageSize+int64(n)*(ringCtl+cellSize)) {
			t.Errorf("%d processes: %d bytes of segments on the host, more than 1 GiB of rings", n, int64(n)*b)
		}
	}
	if b, _ := SegmentBytes(2); b < 2*maxRingAuto {
		t.Errorf("two processes get rings of less than %d bytes (segment of %d)", maxRingAuto, b)
	}
	if _, err := SegmentBytes(MaxLocal + 1); err == nil {
		t.Error("SegmentBytes accepted more processes than MaxLocal")
	}
}

// TestSmallestRingsCarryFrames: at the smallest ring size, every payload
// size still travels, in many chunks.
func TestSmallestRingsCarryFrames(t *testing.T) {
	t.Setenv(RingEnv, "1024")
	g := openGroup(t, "tiny", 1, 1)
	for seq, size := range []int{0, 1, 100, 188, 189, 240, 241, 256, 257, 512, 513, 1000, 70000} {
		if err := g.trs[0].Send(dataFrame(0, 1, seq, pattern(seq, size))); err != nil {
			t.Fatal(err)
		}
		f := recvFrame(g.inbox(1), 20*time.Second)
		if err := checkFrame(f, 0, seq, size); err != nil {
			t.Fatal(err)
		}
		f.Free()
	}
}

// TestJoinUnlinks: once every process of the host has mapped the segments
// (one process never opened its own), the files are gone and the
// transports still work.
func TestJoinUnlinks(t *testing.T) {
	dir := t.TempDir()
	procs := blocks(1, 1, 1)
	opened := []bool{true, false, true}
	var trs []*Transport
	var ibs []*transport.Inbox
	for i, ok := range opened {
		ib := transport.NewInbox()
		ibs = append(ibs, ib)
		if !ok {
			continue
		}
		tr, err := Open(Config{JobID: "join", Dir: dir, LocalProc: i, Procs: procs, Inboxes: []*transport.Inbox{ib}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { tr.Close() })
		trs = append(trs, tr)
	}
	files := 0
	for _, tr := range trs {
		files++
		if tr.wakeIn != nil {
			files++ // its wake-up pipe, where its waiter may wait on one
		}
	}
	for i, tr := range trs {
		if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) != files {
			t.Fatalf("before process %d joined: files %v, want both segments and their wake-up pipes (%d files)", i, left, files)
		}
		if err := tr.Join(opened); err != nil {
			t.Fatal(err)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) != 0 {
		t.Fatalf("segments left after every process mapped them: %v", left)
	}
	for seq, size := range []int{8, 1 << 20} {
		if err := trs[0].Send(dataFrame(0, 2, seq, pattern(seq, size))); err != nil {
			t.Fatal(err)
		}
		f := recvFrame(ibs[2], 20*time.Second)
		if err := checkFrame(f, 0, seq, size); err != nil {
			t.Fatal(err)
		}
		f.Free()
	}
	if err := trs[0].Join(make([]bool, 2)); err == nil {
		t.Error("Join accepted a list of the wrong length")
	}
}

// TestJoinAPeerThatClosed: a process joins the segment of a peer that
// has closed already and removed its wake-up pipe (a peer whose rank
// failed at once): the join succeeds, so that the job reports the peer's
// failure rather than this process's "no such file" (seen as a flaky
// failure of npb-go's TestBadInput in CI).
func TestJoinAPeerThatClosed(t *testing.T) {
	dir := t.TempDir()
	procs := blocks(1, 1)
	var trs []*Transport
	for i := range 2 {
		tr, err := Open(Config{JobID: "joinclosed", Dir: dir, LocalProc: i, Procs: procs, Inboxes: []*transport.Inbox{transport.NewInbox()}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { tr.Close() })
		trs = append(trs, tr)
	}
	if trs[1].wakeIn == nil {
		t.Skip("no wake-up pipe here (more ranks than cores): nothing to lose")
	}
	// Close removes the pipe before the segment: the window in which the
	// peer's segment is still there and its pipe is not.
	if err := os.Remove(wakePath(trs[1].own.path)); err != nil {
		t.Fatal(err)
	}
	if err := trs[0].Join([]bool{true, true}); err != nil {
		t.Fatalf("joining a peer whose wake-up pipe is gone: %v", err)
	}
}

// TestRemoveStale removes the segments of dead processes and of creators
// that died before writing a header, with their wake-up pipes, and the
// old pipes of creators that died before making their segment, and
// nothing else.
func TestRemoveStale(t *testing.T) {
	dir := t.TempDir()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skipf("no 'true' command to get a dead process id: %v", err)
	}
	header := func(pid int) []byte {
		b := make([]byte, pageSize)
		binary.LittleEndian.PutUint64(b[offMagic:], magic)
		binary.LittleEndian.PutUint32(b[offPid:], uint32(pid))
		return b
	}
	files := map[string][]byte{
		"gompi-a-0.shm":  header(dead.Process.Pid),
		"gompi-a-1.shm":  header(os.Getpid()),
		"gompi-b-0.shm":  nil, // no header yet, old: its creator died
		"gompi-b-1.shm":  nil, // no header yet, new: its creator is writing it
		"other-file.shm": header(dead.Process.Pid),
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-2 * staleAge)
	os.Chtimes(filepath.Join(dir, "gompi-b-0.shm"), old, old)
	pipes := []string{
		"gompi-a-0.wake", // its segment's owner is dead
		"gompi-a-1.wake", // its segment's owner lives
		"gompi-c-0.wake", // no segment, old: its creator died
		"gompi-c-1.wake", // no segment, new: its creator is making it
	}
	for _, name := range pipes {
		if err := unix.Mkfifo(filepath.Join(dir, name), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	os.Chtimes(filepath.Join(dir, "gompi-c-0.wake"), old, old)
	if n := RemoveStale(dir); n != 3 {
		t.Errorf("removed %d files (pipes of removed segments not counted), want 3", n)
	}
	left, _ := filepath.Glob(filepath.Join(dir, "*"))
	want := []string{"gompi-a-1.shm", "gompi-a-1.wake", "gompi-b-1.shm", "gompi-c-1.wake", "other-file.shm"}
	if len(left) != len(want) {
		t.Fatalf("left %v, want %v", left, want)
	}
	for i, f := range left {
		if filepath.Base(f) != want[i] {
			t.Fatalf("left %v, want %v", left, want)
		}
	}
}

// TestRemoveProcess removes one process's segment and wake-up pipe, and
// nothing of the others.
func TestRemoveProcess(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"gompi-j-3.shm", "gompi-j-4.shm", "gompi-j-4.wake"} {
		if err := os.WriteFile(filepath.Join(dir, f), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := unix.Mkfifo(filepath.Join(dir, "gompi-j-3.wake"), 0o600); err != nil {
		t.Fatal(err)
	}
	RemoveProcess(dir, "j", 3)
	left, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(left) != 2 || filepath.Base(left[0]) != "gompi-j-4.shm" || filepath.Base(left[1]) != "gompi-j-4.wake" {
		t.Fatalf("left %v, want process 4's files only", left)
	}
}

// TestAliveFollowsTheOwner: a peer segment is alive while its owner
// process is, whatever its pid later names. Once the owner is killed
// (and before it is reaped) alive says no, with or without a pidfd; with
// one (watchOwner) it still says no when the header's pid names a live
// process, as it would once the pid is reused.
func TestAliveFollowsTheOwner(t *testing.T) {
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep command to stand for the owner")
	}
	for _, pidfd := range []bool{true, false} {
		s, err := createSegment(t.TempDir()+"/seg", 2, minRing, segmentFlags{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.close()
		owner := exec.Command(sleep, "60")
		if err := owner.Start(); err != nil {
			t.Fatal(err)
		}
		reaped := false
		defer func() {
			if !reaped {
				owner.Process.Kill()
				owner.Wait()
			}
		}()
		s.u32(offPid).Store(uint32(owner.Process.Pid))
		if pidfd {
			s.watchOwner()
			if s.owner == nil {
				t.Log("this kernel gives no pidfd: only /proc is checked")
				continue
			}
		}
		if !s.alive() {
			t.Fatalf("pidfd %v: a running owner is not alive", pidfd)
		}
		owner.Process.Kill()
		deadline := time.Now().Add(10 * time.Second)
		for s.alive() {
			if time.Now().After(deadline) {
				t.Fatalf("pidfd %v: a killed, unreaped owner is still alive after 10 s", pidfd)
			}
			time.Sleep(time.Millisecond)
		}
		owner.Wait()
		reaped = true
		if pidfd {
			s.u32(offPid).Store(uint32(os.Getpid()))
			if s.alive() {
				t.Error("an owner that exited is alive again once its pid names a live process")
			}
		}
	}
}

// TestCloseUnderTraffic closes both processes of a group while each
// process's ranks send to the other's in every way a message travels
// (fastbox cells, ring records, chunked frames) and poll their inboxes.
// Close retires the mappings under them (segment.retire): every call
// must return, without a fault, and report nothing but the close.
// Unmapping instead faults this test at once.
func TestCloseUnderTraffic(t *testing.T) {
	t.Setenv(RingEnv, "65536") // chunked frames from 16 KiB up
	for round := range 20 {
		g := openGroup(t, fmt.Sprintf("closebusy%d", round), 2, 2)
		g.peerOf(t, 0, 1) // attached before either closes
		g.peerOf(t, 1, 0)
		var wg sync.WaitGroup
		var stop atomic.Bool
		errs := make(chan error, 8)
		for p := range 2 {
			for i := range 2 {
				src, dst := g.base[p]+i, g.base[1-p]+i
				wg.Add(2)
				go func() { // a rank sending until its transport closes
					defer wg.Done()
					sizes := []int{8, 200, 3000, 40000}
					for n := 0; ; n++ {
						err := g.trs[p].Send(dataFrame(src, dst, n, pattern(n, sizes[n%len(sizes)])))
						if err != nil {
							if err != errClosed && err != errPeerGone {
								errs <- err
							}
							return
						}
					}
				}()
				go func() { // and polling its inbox until the test ends
					defer wg.Done()
					ib := g.inbox(src)
					for !stop.Load() {
						if f := ib.NextNow(); f != nil {
							f.Free()
						}
					}
				}()
			}
		}
		time.Sleep(time.Duration(round%5) * time.Millisecond)
		closed := make(chan struct{})
		go func() {
			g.trs[round%2].Close()
			g.trs[1-round%2].Close()
			close(closed)
		}()
		select {
		case <-closed:
		case <-time.After(30 * time.Second):
			t.Fatal("Close under traffic did not return in 30 s")
		}
		stop.Store(true)
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Fatal("sends or polls did not end in 30 s after Close")
		}
		close(errs)
		for err := range errs {
			t.Errorf("round %d: a send racing Close: %v", round, err)
		}
		for p, tr := range g.trs {
			if err := tr.Err(); err != nil {
				t.Errorf("round %d: process %d reports %v after closing", round, p, err)
			}
		}
	}
}

// TestCloseRetiresAbandonKeeps: Close leaves zero pages where the segment
// was mapped (a late access reads zeros, and faults nothing); Abandon
// leaves the mapping as it was, for ranks that run until the process
// exits, but removes the files and stops the transport.
func TestCloseRetiresAbandonKeeps(t *testing.T) {
	g := openGroup(t, "retire", 1, 1)
	closed, abandoned := g.trs[0], g.trs[1]
	pr := g.peerOf(t, 0, 1)
	own, peerSeg := closed.own, pr.seg
	if err := closed.Close(); err != nil {
		t.Fatal(err)
	}
	for name, s := range map[string]*segment{"own": own, "peer": peerSeg} {
		if m := s.u64(offMagic).Load(); m != 0 {
			t.Errorf("%s segment after Close: magic %#x, want the zero page's 0", name, m)
		}
		s.u32(offSleepers).Add(1) // a late writer: no fault
	}
	abandoned.Abandon()
	if m := abandoned.own.u64(offMagic).Load(); m != magic {
		t.Errorf("segment after Abandon: magic %#x, want %#x (still mapped)", m, magic)
	}
	if _, err := os.Stat(abandoned.own.path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Abandon left the segment file: %v", err)
	}
	if err := abandoned.Send(dataFrame(1, 0, 0, nil)); err != errClosed {
		t.Errorf("send after Abandon: %v, want %v", err, errClosed)
	}
	if abandoned.Poll(g.inbox(1)) {
		t.Error("a poll after Abandon delivered")
	}
}

// TestSharedFdAfterClose: a write through a closed sharedFd goes nowhere,
// even when the kernel has given its number to another pipe.
func TestSharedFdAfterClose(t *testing.T) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC|unix.O_NONBLOCK); err != nil {
		t.Fatal(err)
	}
	defer unix.Close(p[0])
	s := newSharedFd(p[1], "pipe")
	s.close()
	var q [2]int
	if err := unix.Pipe2(q[:], unix.O_CLOEXEC|unix.O_NONBLOCK); err != nil {
		t.Fatal(err)
	}
	defer unix.Close(q[0])
	defer unix.Close(q[1])
	if q[0] != p[1] && q[1] != p[1] {
		t.Skipf("the kernel did not reuse descriptor %d (got %v)", p[1], q)
	}
	s.write([]byte{1})
	var buf [1]byte
	for _, fd := range q {
		if n, _ := unix.Read(fd, buf[:]); n > 0 {
			t.Fatalf("a write through the closed sharedFd reached descriptor %d", fd)
		}
	}
	if n, _ := unix.Read(p[0], buf[:]); n > 0 {
		t.Fatal("a write after close reached the closed pipe")
	}
	if _, ok := s.readable(); ok {
		t.Error("a closed sharedFd says whether it is readable")
	}
}
