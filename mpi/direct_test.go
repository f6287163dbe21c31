package mpi

import (
	"testing"

	"github.com/gompi/gompi/transport"
)

// TestTakeDirect: the rank's transport.DirectFunc completes the first
// posted receive an eager DATA matches, as dispatch would (status,
// truncation, the receive leaves the posted queue), and refuses what
// needs more than a copy: a message no receive is posted for, a REQ, a
// rendezvous DATA.
func TestTakeDirect(t *testing.T) {
	err := Run(1, func(c *Comm) error {
		r := c.r
		big := make([]byte, 8)
		small := make([]byte, 2)
		qa, _ := Irecv(c, big, AnySource, 5)
		qb, _ := Irecv(c, small, 0, AnyTag)
		ctx := qa.ctx
		data := func(tag int32, kind transport.Kind, flags byte) *transport.Header {
			return &transport.Header{Kind: kind, Flags: flags, Context: ctx, Src: 0, Dst: 0, Tag: tag, Size: 4}
		}
		payload := []byte{1, 2, 3, 4}
		if r.takeDirect(data(5, transport.Req, 0), nil) || r.takeDirect(data(5, transport.Data, transport.FlagRendezvous), payload) {
			t.Error("took a REQ or a rendezvous DATA")
		}
		if !r.takeDirect(data(5, transport.Data, 0), payload) {
			t.Fatal("refused an eager DATA that a posted receive matches")
		}
		if !qa.done.Load() || qa.posted || len(r.posted) != 1 || qa.status.Bytes != 4 || qa.status.Tag != 5 || qa.err != nil || string(big[:4]) != string(payload) {
			t.Errorf("first receive: done %v, posted %v, status %+v, err %v, buffer %v", qa.done.Load(), qa.posted, qa.status, qa.err, big)
		}
		if !r.takeDirect(data(7, transport.Data, 0), payload) {
			t.Fatal("refused the message for the second receive")
		}
		if !qb.done.Load() || qb.status.Bytes != 2 || qb.err == nil || ClassOf(qb.err) != ClassTruncate {
			t.Errorf("second receive: done %v, status %+v, err %v: want a truncation", qb.done.Load(), qb.status, qb.err)
		}
		if r.takeDirect(data(9, transport.Data, 0), payload) {
			t.Error("took a message no receive is posted for")
		}
		_, _ = qa.Wait()
		_, _ = qb.Wait()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
