package mpi

// Isendrecv and IsendrecvReplace (MPI 4): one request for a send and a
// receive started together.
//
// The request is a composite (Request.parts): the send and the receive are
// ordinary requests, started as Sendrecv starts them, and the composite
// completes when both have (complete, partDone). A wait on it waits on its
// parts (waitFor expands it, withParts), so the engine and virtual time see
// exactly Sendrecv's waiting phase, and a prediction with Isendrecv + Wait
// equals one with Sendrecv. Its status is the receive's; its error the
// first of the two.

// Isendrecv starts sending sendbuf to dest and receiving into recvbuf from
// source (MPI_Isendrecv). The request completes when both have.
func Isendrecv[T, U Numeric](c *Comm, sendbuf []T, dest, sendtag int, recvbuf []U, source, recvtag int) (*Request, error) {
	c.unrecordable(unrecIsendrecv) // a record cannot hold it yet (record.go)
	if c.traceCall(callSendrecv, dest, source) {
		defer c.leave()
	}
	return c.isendrecv(asBytes(sendbuf), dest, sendtag, asBytes(recvbuf), source, recvtag)
}

// IsendrecvReplace starts sending buf to dest and replacing its contents
// with the message received from source (MPI_Isendrecv_replace). The send
// goes from a copy, so buf may be received into at once; it must not be
// touched until the request completes.
func IsendrecvReplace[T Numeric](c *Comm, buf []T, dest, sendtag, source, recvtag int) (*Request, error) {
	c.unrecordable(unrecIsendrecv) // a record cannot hold it yet (record.go)
	if c.traceCall(callSendrecv, dest, source) {
		defer c.leave()
	}
	b := asBytes(buf)
	return c.isendrecv(append([]byte(nil), b...), dest, sendtag, b, source, recvtag)
}

func (c *Comm) isendrecv(sbuf []byte, dest, stag int, rbuf []byte, source, rtag int) (*Request, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	// Both sets of arguments are checked before anything starts.
	if _, err := c.peer(dest, false, "destination"); err != nil {
		return nil, err
	}
	if err := checkTag(stag, false); err != nil {
		return nil, err
	}
	c.enterEngine() // no burst between the two starts, as in Sendrecv
	defer c.leaveEngine()
	rq, err := c.postRecv(rbuf, source, rtag)
	if err != nil {
		return nil, err
	}
	sq, err := c.postSend(sbuf, dest, stag, false)
	if err != nil { // unreachable after the checks above but for an abort
		_ = rq.Cancel()
		_, _ = rq.wait()
		return nil, err
	}
	return c.composite(rq, sq), nil
}

// composite makes the request that completes when all of parts have; its
// status is the first part's, its error the first error among them.
func (c *Comm) composite(parts ...*Request) *Request {
	w := &Request{r: c.r, comm: c, parts: parts}
	w.onDone = func(w *Request) {
		for _, p := range w.parts {
			st, err := p.finish()
			if p == w.parts[0] {
				w.status = st
			}
			if err != nil && w.err == nil {
				w.err = err
			}
		}
		w.status.Err = w.err
	}
	// A part completing from now on completes w with the last of them; a
	// borrowed send buffer is released on the receiver's goroutine, which
	// the DATA frame, sent after this, orders after these stores.
	for _, p := range parts {
		p.whole = w
	}
	w.partDone()
	return w
}

// partDone completes w once every part has. Parts may complete on
// different goroutines at once; each checks after storing its own done
// flag, so the last one always sees them all.
func (w *Request) partDone() {
	for _, p := range w.parts {
		if !p.done.Load() {
			return
		}
	}
	w.done.Store(true)
}

// withParts is reqs with the parts of its composite requests appended, for
// a wait: the parts are what the engine progresses and times. reqs itself
// when it has none.
func withParts(reqs []*Request) []*Request {
	for i, q := range reqs {
		if q == nil || q.parts == nil {
			continue
		}
		out := append([]*Request(nil), reqs...)
		for _, q := range reqs[i:] {
			if q != nil {
				out = append(out, q.parts...)
			}
		}
		return out
	}
	return reqs
}
