package mpi

import (
	"strconv"
	"sync/atomic"

	"github.com/gompi/gompi/transport"
)

// This file is the protocol engine: the starting phases of sends and
// receives (activities DS, RS, DR, AS) and message dispatch. The waiting
// phase is in progress.go. Everything here runs on the rank's own goroutine;
// the only state touched from elsewhere is Request.done (set when a borrowed
// rendezvous payload is released) and the inbox.

type reqKind uint8

const (
	reqSend reqKind = iota + 1
	reqRecv
)

// Request is a nonblocking operation in progress (MPI_Request). A nil
// *Request is MPI_REQUEST_NULL: Wait and Test on it complete at once with an
// empty status.
type Request struct {
	// What a wait and a match read first, in the first 32 bytes: a
	// request is 224 bytes, and the heap's size classes hold it (alone
	// or in a slice) 32-byte aligned, so these never straddle two cache
	// lines.
	done atomic.Bool
	ctx  uint32
	peer int32 // world rank of the destination or source; AnySource; ProcNull
	tag  int32
	r    *rank
	comm *Comm
	id   uint64
	buf  []byte

	// The flags sit together: spread among the wider fields, each took
	// a word of padding, and the request a larger size class.
	kind     reqKind
	sync     bool
	matched  bool // receive: matched a REQ, DATA still to come
	posted   bool // receive: sits in the posted queue
	deferred bool // virtual mode: an AnySource receive or Probe whose match waits for virtual time (virtual_sensitive.go)
	acked    bool // rendezvous send: its ACK has been dealt with, so its model completion time is known (vready, or the wait's end)
	freed    bool // Free was called (persistent.go); reset keeps it
	recAny   bool // an AnySource receive whose completion the record has not reported yet (recID)

	waitMark uint64  // equals rank.waitEpoch while this request is being waited on
	pickMark uint64  // equals rank.waitEpoch while a Waitany or Waitsome chooses among it and others (virtual_waitany.go)
	vstart   float64 // virtual mode: the rank's virtual time when the receive was posted
	vready   float64 // virtual mode: model time the operation completed if no wait saw it (a DR copy, a DATA or ACK dealt unrelated), for the wait (eventClock.Ready)
	status   Status
	err      error
	onDone   func(*Request) // run once on the owner goroutine when the wait observes completion

	persist *persistentOp // a persistent request's arguments (persistent.go); reset keeps it
	parts   []*Request    // a composite's parts (isendrecv.go); only new requests get one
	whole   *Request      // the composite this is a part of (isendrecv.go); only new requests get one

	// The request's identity in its rank's record (record.go; 0: none),
	// kept here rather than in maps of the recorder, which held every
	// request of the run (and its buffer) until the end.
	recID int64
}

func (q *Request) complete() {
	q.done.Store(true)
	if w := q.whole; w != nil {
		w.partDone()
	}
}

// reset makes q a fresh request. It assigns field by field: a composite
// literal would be built and copied with write barriers, which measured as
// the largest single cost of a small send.
func (q *Request) reset(r *rank, c *Comm, kind reqKind, buf []byte, ctx uint32, peer, tag int32, sync bool) {
	q.r, q.comm, q.kind, q.id, q.buf = r, c, kind, 0, buf
	q.ctx, q.peer, q.tag, q.sync = ctx, peer, tag, sync
	if q.done.Load() {
		q.done.Store(false)
	}
	q.matched, q.posted, q.deferred, q.acked, q.waitMark, q.pickMark = false, false, false, false, 0, 0
	q.vstart, q.vready = 0, 0
	q.status = Status{}
	q.err, q.onDone = nil, nil
	q.recID, q.recAny = 0, false // a new operation: the record names it anew
}

// matches reports whether a receive request accepts a message header.
func (q *Request) matches(h *transport.Header) bool {
	return q.ctx == h.Context &&
		(q.peer == AnySource || q.peer == h.Src) &&
		(q.tag == AnyTag || q.tag == h.Tag)
}

// isend is the starting phase of a send: DS (eager) or RS (rendezvous).
// dst is a world rank or ProcNull.
func (r *rank) isend(c *Comm, buf []byte, dst int, tag int, ctx uint32, sync bool) *Request {
	return r.startSend(new(Request), c, buf, dst, tag, ctx, sync)
}

// startSend fills q (new, or the rank's reusable blocking request) and runs
// the send's starting phase.
func (r *rank) startSend(q *Request, c *Comm, buf []byte, dst int, tag int, ctx uint32, sync bool) *Request {
	r.clock.EnterEngine()
	defer r.clock.LeaveEngine()
	q.reset(r, c, reqSend, buf, ctx, int32(dst), int32(tag), sync)
	if dst == ProcNull {
		q.status = Status{Source: ProcNull, Tag: AnyTag}
		q.complete()
		return q
	}
	r.nextID++
	q.id = r.nextID
	f := transport.NewFrame()
	f.Header = transport.Header{
		Context: ctx, Src: int32(r.id), Dst: int32(dst), Tag: int32(tag),
		SendID: q.id, Size: int64(len(buf)),
	}
	// On the rank's goroutine, with no frame in hand: a transport waiting
	// for room may hand it frames for its posted receives meanwhile
	// (takeDirect, real mode only).
	f.SetSender(r.inbox)
	r.stats.sent++
	r.stats.sentBytes += int64(len(buf))
	if r.trace != nil {
		r.traceMessage(kindSend, ctx, int32(r.id), int32(dst), q.id, 0)
	}
	limit := r.w.eagerLimit
	if r.virtual && r.w.targetEager != nil {
		limit = r.w.targetEager(r.id, dst)
	} else if r.remote(dst) {
		limit = r.w.eagerRemote
		if r.w.overTCP != nil && r.w.overTCP(dst) {
			limit = r.w.eagerNet
		}
	}
	if !sync && len(buf) <= limit {
		r.clock.Begin(actDS)
		f.Kind = transport.Data
		if len(buf) > 0 {
			if r.w.copier != nil && r.w.copier.CopiesOnSend(dst) {
				f.Payload = buf // copied out before sendFrame returns
			} else {
				f.CopyPayload(buf)
			}
		}
		r.clock.Stamp(&f.Header)
		q.err = r.sendFrame(f)
		r.clock.End(actDS, len(buf))
		q.complete()
		return q
	}
	r.clock.Begin(actRS)
	f.Kind = transport.Req
	if sync {
		f.Flags |= transport.FlagSync
	}
	r.clock.Stamp(&f.Header)
	rr := r.rareState()
	if rr.sends == nil {
		rr.sends = map[uint64]*Request{}
	}
	rr.sends[q.id] = q
	if err := r.sendFrame(f); err != nil {
		delete(rr.sends, q.id)
		q.err = err
		q.complete()
	}
	r.clock.End(actRS, 0)
	return q
}

// irecv is the starting phase of a receive: DR when an eager DATA waits in
// the unexpected queue, AS when a REQ does, otherwise the request is posted.
// src is a world rank, AnySource or ProcNull.
func (r *rank) irecv(c *Comm, buf []byte, src int, tag int, ctx uint32) *Request {
	return r.startRecv(new(Request), c, buf, src, tag, ctx)
}

// startRecv fills q and runs the receive's starting phase.
func (r *rank) startRecv(q *Request, c *Comm, buf []byte, src int, tag int, ctx uint32) *Request {
	r.clock.EnterEngine()
	defer r.clock.LeaveEngine()
	q.reset(r, c, reqRecv, buf, ctx, int32(src), int32(tag), false)
	if src == ProcNull {
		q.status = Status{Source: ProcNull, Tag: AnyTag}
		q.complete()
		return q
	}
	r.nextID++
	q.id = r.nextID
	if r.defers(q) {
		q.deferred, q.posted = true, true
		r.deferrals++
		q.vstart, _ = r.clock.Now()
		r.posted = append(r.posted, q)
		return q
	}
	for i, f := range r.unexpected {
		if !q.matches(&f.Header) {
			continue
		}
		r.unexpected = removeFrame(r.unexpected, i)
		r.startMatched(q, f)
		return q
	}
	q.posted = true
	q.vstart, _ = r.clock.Now() // 0 in real mode
	r.posted = append(r.posted, q)
	return q
}

// startMatched is the starting phase of receive q for frame f, a REQ or
// eager DATA taken off the unexpected queue (by the receive's matching, or
// by a matched probe: mprobe.go): DR or AS.
func (r *rank) startMatched(q *Request, f *transport.Frame) {
	if len(r.early) > 0 && r.claimEarly(f, q) {
		// On the target f has not arrived yet: the receive is posted
		// and a waiting phase deals with f when its time comes.
		q.vstart, _ = r.clock.Now()
		return
	}
	if f.Kind == transport.Data {
		r.clock.Begin(actDR)
		n := len(f.Payload)
		r.copyOut(q, f) // frees f
		q.vready = r.clock.End(actDR, n)
		return
	}
	r.clock.Begin(actAS)
	ack := r.ackFor(q, f)
	r.clock.Stamp(&ack.Header)
	r.sendReply(q, ack)
	r.clock.End(actAS, 0)
	f.Free()
}

// sendFrame hands a frame to the transports, turning a failure into an MPI error.
func (r *rank) sendFrame(f *transport.Frame) error {
	r.window = min(r.window, f.Arrival) // what it sets off happens after it arrives (virtual_window.go); 0 in real mode
	if err := r.w.out.Send(f); err != nil {
		f.Release()
		return &Error{Class: ClassOther, Msg: "send to rank " + strconv.Itoa(int(f.Dst)) + " failed", Err: err}
	}
	return nil
}

// ackFor matches receive q with REQ f and builds the ACK that answers it.
func (r *rank) ackFor(q *Request, f *transport.Frame) *transport.Frame {
	q.matched = true
	q.status.Source = q.comm.rankOfWorld(int(f.Src))
	q.status.Tag = int(f.Tag)
	rr := r.rareState()
	if rr.recvs == nil {
		rr.recvs = map[uint64]*Request{}
	}
	rr.recvs[q.id] = q
	if r.remote(int(f.Src)) {
		// A transport reading the DATA off a stream puts it straight
		// into q's buffer (transport/landing.go).
		r.inbox.ExpectPayload(q.id, q.buf)
	}
	ack := transport.NewFrame()
	ack.Header = transport.Header{
		Kind: transport.Ack, Context: f.Context, Src: int32(r.id), Dst: f.Src, Tag: f.Tag,
		SendID: f.SendID, RecvID: q.id, Size: f.Size,
	}
	if len(rr.sends) > 0 {
		ack.Flags |= transport.FlagExchanging
	}
	return ack
}

// sendReply sends an ACK for receive q; a failure completes q with the error.
func (r *rank) sendReply(q *Request, ack *transport.Frame) {
	if err := r.sendFrame(ack); err != nil {
		delete(r.rare.recvs, q.id) // ackFor made r.rare
		r.inbox.ForgetPayload(q.id)
		q.err = err
		q.complete()
	}
}

// dataFor builds the rendezvous DATA answering ACK f for send q. The payload
// is borrowed from the user's buffer: the receiver copies straight out of it
// and its Release completes q. In virtual time a DATA to the rank itself
// carries a copy instead (owned reports it), and q completes once it is
// sent: borrowed, the send would wait on the host for the rank's own
// receive to copy it out, which Algorithm 2 holds back until the rank's
// clock reaches the DATA's arrival. That is a stall of the whole job, which
// across processes costs a host round trip through gompirun each (NPB CG's
// transpose exchange on two ranks is such a send, 416 per rank).
func (r *rank) dataFor(q *Request, f *transport.Frame) (d *transport.Frame, owned bool) {
	d = transport.NewFrame()
	d.Header = transport.Header{
		Kind: transport.Data, Flags: transport.FlagRendezvous, Context: q.ctx,
		Src: int32(r.id), Dst: f.Src, Tag: q.tag, SendID: q.id, RecvID: f.RecvID,
		Size: int64(len(q.buf)),
	}
	if r.rare != nil && len(r.rare.recvs) > 0 {
		d.Flags |= transport.FlagExchanging
	}
	if len(q.buf) > 0 && r.virtual && int(f.Src) == r.id {
		d.CopyPayload(q.buf)
		return d, true
	}
	if len(q.buf) > 0 {
		d.Payload = q.buf
		inbox := r.inbox
		d.Borrow(func() {
			q.complete()
			inbox.Kick()
		})
	}
	return d, false
}

// copyOut completes receive q with DATA frame f: it copies what fits,
// reports truncation, and releases the frame.
func (r *rank) copyOut(q *Request, f *transport.Frame) {
	n, err := f.ReadPayload(q.buf)
	r.received(q, &f.Header, n, err)
	f.Free()
	r.stats.recvd++
	r.stats.recvdBytes += int64(n)
	q.complete()
}

// received sets receive q's status and error for the n bytes of message h
// it got (err: reading them failed).
func (r *rank) received(q *Request, h *transport.Header, n int, err error) {
	q.status.Source = q.comm.rankOfWorld(int(h.Src))
	q.status.Tag = int(h.Tag)
	q.status.Bytes = n
	if err != nil {
		q.err = &Error{Class: ClassOther, Msg: "receiving from rank " + strconv.Itoa(int(h.Src)) + " failed", Err: err}
	} else if int64(len(q.buf)) < h.Size {
		q.err = errorf(ClassTruncate, "message of %d bytes from rank %d (tag %d) truncated to the %d-byte receive buffer",
			h.Size, q.status.Source, h.Tag, len(q.buf))
	}
	q.status.Err = q.err
	if r.trace != nil {
		r.traceMessage(kindRecv, h.Context, h.Src, int32(r.id), h.SendID, h.Arrival)
	}
}

// takeDirect is the rank's transport.DirectFunc (real mode): an eager
// DATA that a transport found on this rank's goroutine while its inbox was
// empty, and that a posted receive matches, is copied straight into that
// receive's buffer, as dispatch and deal would after queueing it in a
// frame. What needs more (a REQ, an unexpected message, a deferred
// receive, a traced rank) goes the usual way.
func (r *rank) takeDirect(h *transport.Header, payload []byte) bool {
	if h.Kind != transport.Data || h.Flags&transport.FlagRendezvous != 0 || r.trace != nil {
		return false
	}
	q, idx := r.requestOf(h)
	if q == nil {
		return false
	}
	if r.w.countCross {
		r.arrived(h) // the job's deadlock detection counts it: virtual_quiesce.go
	}
	r.unpost(q, idx)
	n := copy(q.buf, payload)
	r.received(q, h, n, nil)
	r.stats.recvd++
	r.stats.recvdBytes += int64(n)
	q.complete()
	return true
}

// requestOf finds the operation the frame with header h belongs to: the
// first matching posted receive for eager DATA and REQ, the send for an
// ACK, the matched receive for a rendezvous DATA. It returns nil when the operation has not started (the
// frame belongs in the unexpected queue). idx is the posted-queue index.
func (r *rank) requestOf(h *transport.Header) (q *Request, idx int) {
	switch {
	case h.Kind == transport.Ack:
		if r.rare == nil {
			return nil, -1
		}
		return r.rare.sends[h.SendID], -1
	case h.Kind == transport.Data && h.Flags&transport.FlagRendezvous != 0:
		if r.rare == nil {
			return nil, -1
		}
		return r.rare.recvs[h.RecvID], -1
	}
	for i, p := range r.posted {
		if p.matches(h) {
			if p.deferred {
				return nil, -1 // withheld until p's match is decided (virtual_sensitive.go)
			}
			return p, i
		}
	}
	return nil, -1
}

// deal handles frame f for its started operation q: Algorithm 1 lines 4-10
// (Algorithm 3 in virtual mode). related says whether q is one of the
// requests the current waiting phase waits for.
func (r *rank) deal(f *transport.Frame, q *Request, idx int, related bool) {
	switch f.Kind {
	case transport.Req: // send the ACK
		r.unpost(q, idx)
		ack := r.ackFor(q, f)
		r.clock.Deal(&f.Header, related, &ack.Header, int(f.Size), q.vstart)
		r.sendReply(q, ack)
		f.Free()
	case transport.Ack: // send the DATA
		delete(r.rare.sends, f.SendID) // q came from it (requestOf)
		d, owned := r.dataFor(q, f)
		sent := r.clock.Deal(&f.Header, related, &d.Header, len(q.buf), q.vstart)
		q.acked = true
		if !related {
			// The wait to come ends no earlier than the DATA has left
			// (foldReady), as this one would have.
			q.vready = max(q.vready, sent)
		}
		f.Free()
		if err := r.sendFrame(d); err != nil {
			q.err = err
			q.complete()
		} else if len(q.buf) == 0 || owned {
			q.complete()
		}
	case transport.Data: // receive the DATA
		if f.Flags&transport.FlagRendezvous != 0 {
			delete(r.rare.recvs, f.RecvID) // q came from it (requestOf)
			if r.remote(int(f.Src)) {
				r.inbox.ForgetPayload(f.RecvID) // if no transport took it
			}
		} else {
			r.unpost(q, idx)
		}
		copied := r.clock.Deal(&f.Header, related, nil, int(f.Size), q.vstart)
		if !related {
			// Dealt before its receive is waited for (a stall's
			// resolution): the wait to come ends no earlier (foldReady).
			q.vready = max(q.vready, copied)
		}
		r.copyOut(q, f)
	}
}

// remote reports whether world rank id lives in another process.
func (r *rank) remote(id int) bool { return uint(id-r.w.base) >= uint(len(r.w.ranks)) }

func (r *rank) unpost(q *Request, idx int) {
	if idx < 0 || idx >= len(r.posted) || r.posted[idx] != q {
		idx = -1
		for i, p := range r.posted {
			if p == q {
				idx = i
				break
			}
		}
		if idx < 0 {
			return
		}
	}
	copy(r.posted[idx:], r.posted[idx+1:])
	r.posted[len(r.posted)-1] = nil
	r.posted = r.posted[:len(r.posted)-1]
	q.posted = false
}

func removeFrame(s []*transport.Frame, i int) []*transport.Frame {
	copy(s[i:], s[i+1:])
	s[len(s)-1] = nil
	return s[:len(s)-1]
}
