package mpi

import "encoding/binary"

// Idup duplicates c without blocking (MPI_Comm_idup): it returns the new
// communicator at once, usable (every call on it returns an error until
// then) once the request completes. Collective over c: every rank of c
// starts it in the same order as its other nonblocking collectives on c.
func (c *Comm) Idup() (*Comm, *Request, error) {
	c.unrecordable(unrecIdup) // a record cannot hold it yet (record.go)
	if err := c.check(); err != nil {
		return nil, nil, err
	}
	nc := &Comm{r: c.r, group: c.group, rank: c.rank, idup: true}
	prio := [2]uint32{c.ctx, c.nbcN}
	q, err := c.nonblocking(func(c *Comm) error {
		id, err := c.agreeContextNB(prio)
		if err != nil {
			nc.idup, nc.freed = false, true
			return err
		}
		nc.ctx, nc.idup = uint32(id)*2, false
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return nc, q, nil
}

// A context id is agreed (agreeContext) as the lowest id free on every
// rank. The blocking agreement reads the rank's free ids when it starts and
// takes the agreed id when it ends, with nothing of the rank's in between.
// A nonblocking one cannot: while an Idup agrees, the rank goes on, and its
// waits may complete a blocking agreement or another Idup that picks the
// same id from an older view. So an Idup agrees in two rounds, as MPICH's
// nonblocking context-id allocation does in spirit: the first finds the
// lowest id free everywhere and each rank holds it (marks it used, so that
// agreements starting later avoid it); the second confirms it only if
// every rank still holds it and none has a blocking agreement in flight
// (that agreement's view predates the hold and may pick the id). Otherwise
// every rank releases its hold and the Idup tries again.
//
// Two Idups that hold the same id on different ranks would both fail and
// could go on failing in step; of two competing holds the Idup first in a
// fixed order (parent context, then its sequence number on the parent:
// the same on every rank) takes the id from the other, unless the other
// has already voted. A blocking agreement that ends on an id an Idup holds
// takes it (the Idup has not voted yet: it votes no while the agreement is
// in flight).

// ctxHold is an Idup's hold on a context id between its two rounds.
type ctxHold struct {
	prio   [2]uint32 // the Idup's place in the order of competing holds
	voted  bool      // the confirming round has started: it keeps the id or releases it
	stolen bool      // taken over by another agreement: this Idup must not keep it
}

func (m *ctxMask) has(id int) bool { return m.word(id/64)&(1<<(id%64)) != 0 }

// before reports whether prio a goes before b.
func before(a, b [2]uint32) bool { return a[0] < b[0] || a[0] == b[0] && a[1] < b[1] }

// hold makes an Idup of priority prio hold id on rank r, or returns nil
// when the id is taken.
func (r *rank) hold(id int, prio [2]uint32) *ctxHold {
	n := &r.nbc
	o := n.held[id]
	switch {
	case !r.ctxUsed.has(id):
		r.ctxUsed.set(id)
	case o != nil && !o.voted && before(prio, o.prio):
		o.stolen = true
	default:
		return nil
	}
	h := &ctxHold{prio: prio}
	if n.held == nil {
		n.held = map[int]*ctxHold{}
	}
	n.held[id] = h
	return h
}

// release ends hold h on id; keep says the Idup keeps the id.
func (r *rank) release(id int, h *ctxHold, keep bool) {
	if r.nbc.held[id] == h {
		delete(r.nbc.held, id)
	}
	if !keep && !h.stolen {
		r.ctxUsed.clear(id)
	}
}

// takeHeld gives id, which a blocking agreement has just agreed on, to that
// agreement: an Idup holding it loses it.
func (n *nbcState) takeHeld(id int) {
	if h := n.held[id]; h != nil {
		h.stolen = true
		delete(n.held, id)
	}
}

// agreeContextNB is agreeContext for Idup's schedule on c.
func (c *Comm) agreeContextNB(prio [2]uint32) (int, error) {
	r := c.r
	and := func(acc, in []byte) {
		for i := range acc {
			acc[i] &= in[i]
		}
	}
	for {
		buf, err := c.agreeFree()
		if err != nil {
			return 0, err
		}
		id, err := lowestFree(buf)
		if err != nil {
			return 0, err
		}
		h := r.hold(id, prio)
		var vote [8]byte
		if h != nil {
			h.voted = true
			if !h.stolen && r.nbc.agreeing == 0 {
				binary.LittleEndian.PutUint64(vote[:], 1)
			}
		}
		err = c.allreduceBytes(vote[:], tagContext, and)
		ok := err == nil && binary.LittleEndian.Uint64(vote[:]) == 1
		if h != nil {
			r.release(id, h, ok)
		}
		if err != nil {
			return 0, err
		}
		if ok {
			return id, nil
		}
	}
}
