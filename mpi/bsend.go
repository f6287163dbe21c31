package mpi

import "sort"

// Buffered sends (MPI_Buffer_attach, MPI_Buffer_detach, MPI_Bsend,
// MPI_Ibsend).
//
// A rank may attach one buffer (MPI's is per process; a rank is one). A
// buffered send copies its message into a segment of that buffer and
// starts a standard send from the copy, so it returns at once whatever the
// receiver does; the segment is reused once that send has completed (an
// eager one at once, a rendezvous one when the receiver has taken the
// data, progressed by the rank's later MPI calls). Each message takes
// BsendOverhead bytes of the buffer beyond its data, so a buffer for k
// messages of s bytes needs k*(s+BsendOverhead). Detach, and the rank's
// end, wait for the buffered messages to be delivered.

// BsendOverhead is MPI_BSEND_OVERHEAD: the bytes of the attached buffer a
// buffered message takes beyond its data. 96 is MPICH's value on 64-bit
// hosts, so that buffers sized for MPICH fit here too.
const BsendOverhead = 96

// bsendBuffer is a rank's attached buffer and the messages in it.
type bsendBuffer struct {
	mem  []byte
	segs []bsendSeg // in offset order
}

// bsendSeg is the part of the buffer one message occupies until its send
// completes.
type bsendSeg struct {
	off, end int
	q        *Request
}

// BufferAttach attaches buf as the calling rank's buffer for buffered
// sends (MPI_Buffer_attach), for all its communicators. buf must not be
// used until BufferDetach returns it. A rank has at most one buffer:
// attaching another is a ClassBuffer error.
func (c *Comm) BufferAttach(buf []byte) error {
	if err := c.check(); err != nil {
		return err
	}
	if b := c.r.bsendBuf(); b != nil {
		return errorf(ClassBuffer, "BufferAttach: a buffer of %d bytes is already attached", len(b.mem))
	}
	c.r.rareState().bsend = &bsendBuffer{mem: buf}
	return nil
}

// BufferDetach waits until every buffered message has been delivered,
// detaches the buffer and returns it (MPI_Buffer_detach). With no buffer
// attached it returns nil, as MPICH does.
func (c *Comm) BufferDetach() ([]byte, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	b := c.r.bsendBuf()
	if b == nil {
		return nil, nil
	}
	c.enter(callWaitall, 0, 0) // what a deadlock report says it waits in
	defer c.leave()
	err := c.r.drainBsend()
	c.r.rare.bsend = nil // b came from it
	return b.mem, err
}

// bsendBuf is the rank's attached buffer for buffered sends, nil when none.
func (r *rank) bsendBuf() *bsendBuffer {
	if r.rare == nil {
		return nil
	}
	return r.rare.bsend
}

// drainBsend waits for every buffered send of the rank to complete.
func (r *rank) drainBsend() error {
	b := r.bsendBuf()
	if b == nil || len(b.segs) == 0 {
		return nil
	}
	reqs := make([]*Request, len(b.segs))
	for i, s := range b.segs {
		reqs[i] = s.q
	}
	_, err := waitall(reqs)
	b.segs = b.segs[:0]
	return err
}

// Bsend sends buf to dest in buffered mode (MPI_Bsend): the message is
// copied into the attached buffer and the call returns without waiting
// for the receiver. No buffer attached, or too little room left in it for
// len(buf) bytes plus BsendOverhead, is a ClassBuffer error.
func Bsend[T Numeric](c *Comm, buf []T, dest, tag int) error {
	c.unrecordable(unrecBsend) // a record cannot hold it yet (record.go)
	if c == nil {
		return errorf(ClassComm, "null communicator")
	}
	c.enter(callSend, dest, tag)
	defer c.leave()
	_, err := c.bsend(asBytes(buf), dest, tag)
	return err
}

// Ibsend is the nonblocking Bsend (MPI_Ibsend). As in MPICH the request is
// complete once the message is in the buffer, which is when Ibsend returns.
func Ibsend[T Numeric](c *Comm, buf []T, dest, tag int) (*Request, error) {
	c.unrecordable(unrecBsend) // a record cannot hold it yet (record.go)
	if c.traceCall(callIsend, dest, tag) {
		defer c.leave()
	}
	st, err := c.bsend(asBytes(buf), dest, tag)
	if err != nil {
		return nil, err
	}
	q := &Request{r: c.r, comm: c, kind: reqSend, status: st}
	q.complete()
	return q, nil
}

// bsend copies data into the attached buffer and starts its send.
func (c *Comm) bsend(data []byte, dest, tag int) (Status, error) {
	if err := c.check(); err != nil {
		return Status{}, err
	}
	if _, err := c.peer(dest, false, "destination"); err != nil {
		return Status{}, err
	}
	if err := checkTag(tag, false); err != nil {
		return Status{}, err
	}
	if dest == ProcNull { // nothing to buffer, as in MPICH
		return Status{Source: ProcNull, Tag: AnyTag}, nil
	}
	r := c.r
	b := r.bsendBuf()
	if b == nil {
		return Status{}, errorf(ClassBuffer, "Bsend of %d bytes with no buffer attached", len(data))
	}
	need := len(data) + BsendOverhead
	off := b.fit(need)
	if off < 0 {
		// Sends that completed since the last look free their
		// segments; progress once, as MPICH does, before giving up.
		r.pollBsend()
		off = b.fit(need)
	}
	if off < 0 {
		return Status{}, errorf(ClassBuffer, "Bsend of %d bytes (%d with overhead): not enough room left in the %d-byte attached buffer",
			len(data), need, len(b.mem))
	}
	seg := b.mem[off+BsendOverhead : off+need : off+need]
	copy(seg, data)
	q, err := c.postSend(seg, dest, tag, false)
	if err != nil {
		return Status{}, err
	}
	b.insert(bsendSeg{off: off, end: off + need, q: q})
	return Status{}, nil
}

// pollBsend progresses communication once without blocking, so that
// buffered sends waiting for an ACK or for their data to be taken can
// complete.
func (r *rank) pollBsend() {
	b := r.bsendBuf()
	reqs := make([]*Request, len(b.segs))
	for i, s := range b.segs {
		reqs[i] = s.q
	}
	if r.virtual {
		// A poll answered for the rank's virtual time, as Testall's.
		r.testVirtual(reqs, func() bool { return allKnown(reqs) }, func() []int { return knownIdx(reqs) })
		return
	}
	r.waitFor(reqs, func() bool { return allDone(reqs) }, false)
}

// fit reclaims the segments of completed sends and returns the offset of
// the first gap of need bytes, or -1.
func (b *bsendBuffer) fit(need int) int {
	kept := b.segs[:0]
	for _, s := range b.segs {
		if s.q.done.Load() {
			_, _ = s.q.finish() // an error of a buffered send has no one to go to, as in MPI
			continue
		}
		kept = append(kept, s)
	}
	for i := len(kept); i < len(b.segs); i++ {
		b.segs[i] = bsendSeg{}
	}
	b.segs = kept
	at := 0
	for _, s := range b.segs {
		if s.off-at >= need {
			return at
		}
		at = s.end
	}
	if len(b.mem)-at >= need {
		return at
	}
	return -1
}

func (b *bsendBuffer) insert(s bsendSeg) {
	i := sort.Search(len(b.segs), func(i int) bool { return b.segs[i].off > s.off })
	b.segs = append(b.segs, bsendSeg{})
	copy(b.segs[i+1:], b.segs[i:])
	b.segs[i] = s
}

// Rsend sends buf to dest in ready mode (MPI_Rsend): the program asserts
// that the matching receive is already posted. As in MPICH, it is a
// standard-mode send; a receive posted late is not detected as an error,
// the message simply waits for it.
func Rsend[T Numeric](c *Comm, buf []T, dest, tag int) error {
	c.unrecordable(unrecBsend) // a record cannot hold it yet (record.go)
	return Send(c, buf, dest, tag)
}

// Irsend is the nonblocking Rsend (MPI_Irsend): Isend, as in MPICH.
func Irsend[T Numeric](c *Comm, buf []T, dest, tag int) (*Request, error) {
	c.unrecordable(unrecBsend) // a record cannot hold it yet (record.go)
	return Isend(c, buf, dest, tag)
}
