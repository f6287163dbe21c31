package mpi

import (
	"testing"

	"github.com/gompi/gompi/transport"
)

// TestHandshakeSaysWhetherTheRankExchanges: a receive's ACK carries
// transport.FlagExchanging while its rank has rendezvous sends of its own
// in progress, and a rendezvous DATA while its rank has matched receives
// waiting for theirs (an exchange), so that shared memory does not split
// the copy of a payload between the two ends, which pays only when one
// end would otherwise wait (transport/shm split.go); otherwise they do
// not.
func TestHandshakeSaysWhetherTheRankExchanges(t *testing.T) {
	cfg, err := newConfig(nil)
	if err != nil {
		t.Fatal(err)
	}
	w := newWorld(2, 0, 2, cfg)
	r := w.ranks[1]
	reqFrame := func(id uint64) *transport.Frame {
		return &transport.Frame{Header: transport.Header{Kind: transport.Req, Src: 0, Dst: 1, SendID: id, Size: 1 << 20}}
	}
	alone := r.ackFor(&Request{r: r, comm: r.worldComm, id: 1, buf: make([]byte, 1<<20)}, reqFrame(1))
	if alone.Kind != transport.Ack || alone.Flags&transport.FlagExchanging != 0 {
		t.Fatalf("ACK of a rank with no sends: %+v", alone.Header)
	}
	r.rareState().sends = map[uint64]*Request{9: {r: r, comm: r.worldComm, id: 9}}
	exchanging := r.ackFor(&Request{r: r, comm: r.worldComm, id: 2, buf: make([]byte, 1<<20)}, reqFrame(2))
	if exchanging.Flags&transport.FlagExchanging == 0 {
		t.Fatalf("ACK of a rank with a rendezvous send in progress: %+v", exchanging.Header)
	}

	s := w.ranks[0]
	send := &Request{r: s, comm: s.worldComm, id: 1, buf: make([]byte, 1<<20)}
	ack := &transport.Frame{Header: transport.Header{Kind: transport.Ack, Src: 1, Dst: 0, SendID: 1, RecvID: 5, Size: 1 << 20}}
	if d, _ := s.dataFor(send, ack); d.Flags&transport.FlagExchanging != 0 || d.Flags&transport.FlagRendezvous == 0 {
		t.Fatalf("DATA of a rank with no matched receives: %+v", d.Header)
	}
	s.rareState().recvs = map[uint64]*Request{4: {r: s, comm: s.worldComm, id: 4}}
	if d, _ := s.dataFor(send, ack); d.Flags&transport.FlagExchanging == 0 {
		t.Fatalf("DATA of a rank with a matched receive waiting: %+v", d.Header)
	}
}

// framesTo records the frames a rank sends.
type framesTo struct{ got []*transport.Frame }

func (f *framesTo) Send(fr *transport.Frame) error { f.got = append(f.got, fr); return nil }
func (f *framesTo) Close() error                   { return nil }

// TestEagerLimitFollowsTheRoute: a real send is eager up to the limit of
// its route, DefaultEagerLimit to a rank of the same process,
// DefaultRemoteEagerLimit to one of another process over shared memory,
// and DefaultNetEagerLimit to one reached over TCP; above, it is a
// rendezvous (a REQ). Two of the defaults are equal (64 KiB), so the
// routes are checked with limits of their own.
func TestEagerLimitFollowsTheRoute(t *testing.T) {
	cfg, err := newConfig(nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.eagerLimit != DefaultEagerLimit || cfg.eagerRemote != DefaultRemoteEagerLimit || cfg.eagerNet != DefaultNetEagerLimit {
		t.Fatalf("default limits %d, %d, %d", cfg.eagerLimit, cfg.eagerRemote, cfg.eagerNet)
	}
	cfg.eagerLimit, cfg.eagerRemote, cfg.eagerNet = 3000, 2000, 1000
	w := newWorld(4, 0, 2, cfg) // ranks 0 and 1 here; 2 over shared memory, 3 over TCP
	w.overTCP = func(r int) bool { return r == 3 }
	r := w.ranks[0]
	out := &framesTo{}
	w.out = out
	for _, c := range []struct{ dst, limit int }{{1, 3000}, {2, 2000}, {3, 1000}} {
		for _, size := range []int{c.limit, c.limit + 1} {
			out.got = nil
			r.startSend(new(Request), r.worldComm, make([]byte, size), c.dst, 0, 0, false)
			want := transport.Data
			if size > c.limit {
				want = transport.Req
			}
			if len(out.got) != 1 || out.got[0].Kind != want {
				t.Fatalf("%d bytes to rank %d: sent %v, want one %v", size, c.dst, out.got, want)
			}
		}
	}
}
