//go:build linux

package shm

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/gompi/gompi/transport"
)

// Two-process tests: the test binary re-executes itself as local process 1
// (world rank 1), which echoes every frame back to rank 0.
const (
	childEnv = "GOMPI_SHM_TEST_CHILD" // "job dir" selects the child role
	quitTag  = -1
)

func TestMain(m *testing.M) {
	if role := os.Getenv(lineChildEnv); role != "" {
		if err := lineChild(role); err != nil {
			fmt.Fprintln(os.Stderr, "shm line child:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if role := os.Getenv(childEnv); role != "" {
		if err := echoChild(role); err != nil {
			fmt.Fprintln(os.Stderr, "shm test child:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// echoChild opens process 1 of the job and sends every frame back, as a
// borrowed (single-copy) frame when it came as one, until a quit frame.
func echoChild(role string) error {
	job, dir, ok := strings.Cut(role, " ")
	if !ok {
		return fmt.Errorf("bad %s=%q", childEnv, role)
	}
	ib := transport.NewInbox()
	tr, err := Open(Config{JobID: job, Dir: dir, LocalProc: 1, Procs: blocks(1, 1), Inboxes: []*transport.Inbox{ib}})
	if err != nil {
		return err
	}
	defer tr.Close()
	fmt.Println("ready", tr.Path())
	// Stop when the parent test process is gone (we are reparented).
	var orphan atomic.Bool
	parent := os.Getppid()
	go func() {
		for os.Getppid() == parent {
			time.Sleep(100 * time.Millisecond)
		}
		orphan.Store(true)
		ib.Kick()
	}()
	if smallEchoing() {
		return smallEcho(tr, ib, &orphan)
	}
	var user []byte // the "user buffer" a receive copies into, as the engine does
	for {
		f := recvUntil(ib, &orphan)
		if f == nil {
			return fmt.Errorf("parent process exited")
		}
		if f.Kind == transport.Ctrl && f.Tag == quitTag {
			return tr.Err()
		}
		if int64(cap(user)) < f.Size {
			user = make([]byte, f.Size)
		}
		user = user[:f.Size]
		if _, err := f.ReadPayload(user); err != nil {
			return err
		}
		e := transport.NewFrame() // pooled, as the engine's
		e.Header = f.Header
		f.Free()
		e.Src, e.Dst = 1, 0
		var released atomic.Bool
		if e.Flags&transport.FlagRendezvous != 0 {
			e.Payload = user
			e.Borrow(func() { released.Store(true); ib.Kick() })
		} else {
			e.CopyPayload(user)
			released.Store(true)
		}
		if err := tr.Send(e); err != nil {
			return err
		}
		for !released.Load() && !orphan.Load() {
			ib.Park(func() bool { return released.Load() || orphan.Load() })
		}
	}
}

// pair is rank 0 in this process and the echo child as rank 1.
type pair struct {
	tr   *Transport
	ib   *transport.Inbox
	cmd  *exec.Cmd
	path string // the child's large-payload path
}

// startPair opens process 0, starts the child and waits until it is ready.
// childEnv entries are added to the child's environment.
func startPair(t testing.TB, job string, childEnvs ...string) *pair {
	t.Helper()
	dir := t.TempDir()
	p := &pair{ib: transport.NewInbox()}
	var err error
	p.tr, err = Open(Config{JobID: job, Dir: dir, LocalProc: 0, Procs: blocks(1, 1), Inboxes: []*transport.Inbox{p.ib}})
	if err != nil {
		t.Fatal(err)
	}
	p.cmd = exec.Command(os.Args[0], "-test.run=^$")
	p.cmd.Env = append(append(os.Environ(), childEnv+"="+job+" "+dir), childEnvs...)
	p.cmd.Stderr = os.Stderr
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ready := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(out).ReadString('\n')
		ready <- line
	}()
	select {
	case line := <-ready:
		if !strings.HasPrefix(line, "ready") {
			p.cmd.Process.Kill()
			p.cmd.Wait()
			t.Fatalf("child did not start: %q", line)
		}
		p.path = strings.TrimSpace(strings.TrimPrefix(line, "ready"))
	case <-time.After(20 * time.Second):
		p.cmd.Process.Kill()
		p.cmd.Wait()
		t.Fatal("child not ready after 20s")
	}
	t.Cleanup(func() {
		p.tr.Send(&transport.Frame{Header: transport.Header{Kind: transport.Ctrl, Src: 0, Dst: 1, Tag: quitTag}})
		done := make(chan error, 1)
		go func() { done <- p.cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil && p.cmd.ProcessState != nil && !p.cmd.ProcessState.Exited() {
				break // killed on purpose by the test
			}
			if err != nil {
				t.Errorf("child: %v", err)
			}
		case <-time.After(20 * time.Second):
			p.cmd.Process.Kill()
			<-done
			t.Error("child did not quit")
		}
		p.tr.Close()
	})
	return p
}

// roundTrip sends frame seq of size bytes to the child and checks the echo.
func (p *pair) roundTrip(seq, size int, borrow bool) error {
	f := dataFrame(0, 1, seq, pattern(seq, size))
	var released atomic.Bool
	if borrow {
		f.Flags |= transport.FlagRendezvous
		f.Borrow(func() { released.Store(true); p.ib.Kick() })
	}
	if err := p.tr.Send(f); err != nil {
		return err
	}
	e := recvFrame(p.ib, 20*time.Second)
	if err := checkFrame(e, 1, seq, size); err != nil {
		return err
	}
	e.Free()
	if borrow && !waitFor(p.ib, 20*time.Second, released.Load) {
		return fmt.Errorf("borrowed frame %d never released", seq)
	}
	return nil
}

// TestTwoProcesses exchanges every size, copied and single-copy, with a real
// second process, then lets the child fall asleep and checks the
// wake-up reaches it across processes.
func TestTwoProcesses(t *testing.T) {
	for _, cma := range []string{"1", "0"} {
		t.Run(CMAEnv+"="+cma, func(t *testing.T) {
			t.Setenv(CMAEnv, cma)
			p := startPair(t, "two-"+cma)
			t.Logf("parent: %s; child: %s", p.tr.Path(), p.path)
			seq := 0
			for _, borrow := range []bool{false, true} {
				for _, size := range sizes {
					seq++
					if err := p.roundTrip(seq, size, borrow); err != nil {
						t.Fatal(err)
					}
				}
			}
			for _, size := range []int{8, 1 << 20} {
				time.Sleep(300 * time.Millisecond) // the child's rank sleeps by now
				seq++
				if err := p.roundTrip(seq, size, size > 8); err != nil {
					t.Fatalf("after a long sleep: %v", err)
				}
			}
			if err := p.tr.Err(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestDeadPeer kills the child (and leaves it unreaped, a zombie, as a
// launcher may for a moment): a sender blocked on its full ring must get an
// error.
func TestDeadPeer(t *testing.T) {
	p := startPair(t, "dead", RingEnv+"=65536")
	if err := p.roundTrip(1, 8, false); err != nil {
		t.Fatal(err)
	}
	p.cmd.Process.Signal(syscall.SIGKILL)
	deadline := time.Now().Add(20 * time.Second)
	var err error
	for err == nil && time.Now().Before(deadline) {
		err = p.tr.Send(dataFrame(0, 1, 2, make([]byte, 4000)))
	}
	if err == nil {
		t.Fatal("sends to a killed process never failed")
	}
	t.Log(err)
}

// TestCleanup removes what a killed child left behind, and only its job's
// files.
func TestCleanup(t *testing.T) {
	p := startPair(t, "cleanup*")
	if err := p.roundTrip(1, 8, false); err != nil {
		t.Fatal(err)
	}
	p.cmd.Process.Signal(syscall.SIGKILL)
	p.cmd.Wait()
	dir := filepath.Dir(p.tr.own.path)
	other := filepath.Join(dir, "gompi-cleanupx-0.shm")
	if err := os.WriteFile(other, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Cleanup(dir, "cleanup*"); err != nil {
		t.Fatal(err)
	}
	left, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(left) != 1 || left[0] != other {
		t.Fatalf("left behind: %v", left)
	}
	if err := Cleanup(dir, "a/b"); err == nil {
		t.Fatal("Cleanup accepted a job id with a slash")
	}
}
