//go:build linux

package shm

import (
	"bytes"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gompi/gompi/transport"
)

// group is several "processes" of one host simulated in one test process:
// one Transport each, with their own ranks.
type group struct {
	trs     []*Transport
	inboxes [][]*transport.Inbox // by local process
	base    []int
}

// openGroup opens len(ranks) transports; process i hosts ranks[i] ranks.
func openGroup(t testing.TB, job string, ranks ...int) *group {
	t.Helper()
	g := &group{base: []int{0}}
	for _, n := range ranks {
		g.base = append(g.base, g.base[len(g.base)-1]+n)
	}
	dir := t.TempDir()
	for i, n := range ranks {
		ibs := make([]*transport.Inbox, n)
		for j := range ibs {
			ibs[j] = transport.NewInbox()
		}
		tr, err := Open(Config{JobID: job, Dir: dir, LocalProc: i, Procs: blocks(ranks...), Inboxes: ibs})
		if err != nil {
			t.Fatal(err)
		}
		g.trs = append(g.trs, tr)
		g.inboxes = append(g.inboxes, ibs)
	}
	t.Cleanup(func() {
		for _, tr := range g.trs {
			tr.Close()
		}
	})
	return g
}

// blocks describes processes 0, 1, ... hosting ranks[i] ranks each, in
// contiguous blocks from rank 0.
func blocks(ranks ...int) []Proc {
	var ps []Proc
	base := 0
	for i, n := range ranks {
		ps = append(ps, Proc{ID: i, Base: base, N: n})
		base += n
	}
	return ps
}

// peerOf returns local process from's attachment to local process to.
func (g *group) peerOf(t testing.TB, from, to int) *peer {
	t.Helper()
	pr, err := g.trs[from].peer(to)
	if err != nil {
		t.Fatal(err)
	}
	return pr
}

// inbox returns world rank r's inbox.
func (g *group) inbox(r int) *transport.Inbox {
	for p := range g.trs {
		if r < g.base[p+1] {
			return g.inboxes[p][r-g.base[p]]
		}
	}
	return nil
}

// recvFrame waits for the next frame of ib, at most d; nil on timeout.
func recvFrame(ib *transport.Inbox, d time.Duration) *transport.Frame {
	var expired atomic.Bool
	timer := time.AfterFunc(d, func() { expired.Store(true); ib.Kick() })
	defer timer.Stop()
	for {
		if f := ib.Next(); f != nil {
			return f
		}
		if expired.Load() {
			return nil
		}
		ib.Park(expired.Load)
	}
}

// recvUntil waits for the next frame of ib until stop reports true (then
// nil). It costs no timer per call, for benchmarks and the echo child,
// which get a watchdog that sets stop and kicks ib.
func recvUntil(ib *transport.Inbox, stop *atomic.Bool) *transport.Frame {
	for {
		if f := ib.Next(); f != nil {
			return f
		}
		if stop.Load() {
			return nil
		}
		ib.Park(stop.Load)
	}
}

// waitFor parks on ib until cond holds, at most d; it reports cond.
func waitFor(ib *transport.Inbox, d time.Duration, cond func() bool) bool {
	var expired atomic.Bool
	timer := time.AfterFunc(d, func() { expired.Store(true); ib.Kick() })
	defer timer.Stop()
	for !cond() && !expired.Load() {
		ib.Park(func() bool { return cond() || expired.Load() })
	}
	return cond()
}

// pattern fills a payload recognisably for (seq, size).
func pattern(seq, size int) []byte {
	b := make([]byte, size)
	for i := range b {
		b[i] = byte(i*7 + seq*13 + i>>8)
	}
	return b
}

func dataFrame(src, dst, seq int, payload []byte) *transport.Frame {
	return &transport.Frame{
		Header:  transport.Header{Kind: transport.Data, Src: int32(src), Dst: int32(dst), Tag: int32(seq), SendID: uint64(seq), Size: int64(len(payload))},
		Payload: payload,
	}
}

// checkFrame verifies f is frame seq from src with the pattern payload.
func checkFrame(f *transport.Frame, src, seq, size int) error {
	if f == nil {
		return fmt.Errorf("frame %d from %d (%d bytes) never arrived", seq, src, size)
	}
	if int(f.Src) != src || f.SendID != uint64(seq) || f.Size != int64(size) {
		return fmt.Errorf("got %v, want frame %d from %d with %d bytes", f, seq, src, size)
	}
	got := make([]byte, size)
	if n, err := f.ReadPayload(got); err != nil || n != size {
		return fmt.Errorf("frame %d from %d: read %d of %d bytes: %v", seq, src, n, size, err)
	}
	if !bytes.Equal(got, pattern(seq, size)) {
		return fmt.Errorf("frame %d from %d: payload of %d bytes differs", seq, src, size)
	}
	return nil
}
