package transport

import "sync"

// Landing zones let a transport that reads payloads off a stream (TCP) put
// a rendezvous DATA straight into the receive buffer it is for, instead of
// into an allocation the receiving rank then copies out of: the rank knows
// the buffer from the moment it matches the REQ and sends its ACK, as MPI
// libraries' rendezvous protocols use it. Without this a large message
// cost the receiver its size two to three times over (the growing
// allocation, the user's buffer, and the garbage collector's headroom).
type landings struct {
	mu  sync.Mutex
	buf map[uint64][]byte // by the receive request's id (Header.RecvID)
}

// ExpectPayload registers buf as the destination of the rendezvous DATA
// whose RecvID is id. Owner only; call before the ACK goes out, so that
// the DATA cannot arrive first.
func (ib *Inbox) ExpectPayload(id uint64, buf []byte) {
	l := &ib.landings
	l.mu.Lock()
	if l.buf == nil {
		l.buf = make(map[uint64][]byte)
	}
	l.buf[id] = buf
	l.mu.Unlock()
}

// ForgetPayload withdraws a registration that no transport took (the DATA
// came by another way, or the receive failed). Owner only.
func (ib *Inbox) ForgetPayload(id uint64) {
	l := &ib.landings
	l.mu.Lock()
	delete(l.buf, id)
	l.mu.Unlock()
}

// PeekPayloadDest returns the buffer registered for the rendezvous DATA
// with RecvID id, leaving the registration in place: a transport that
// tells the sender where to put the payload (shared memory in virtual
// runs) announces it with the ACK. Any goroutine may call it.
func (ib *Inbox) PeekPayloadDest(id uint64) (buf []byte, ok bool) {
	l := &ib.landings
	l.mu.Lock()
	buf, ok = l.buf[id]
	l.mu.Unlock()
	return buf, ok
}

// TakePayloadDest returns the buffer registered for the rendezvous DATA
// with RecvID id and removes the registration; ok is false when there is
// none.
// A transport that takes it writes the payload's first len(buf) bytes
// into it, drops the rest, and delivers the frame with Payload set to the
// part of buf it filled and Size left as the message's size: ReadPayload
// into that same buffer then copies nothing, and the receiver still sees
// a truncation. Any goroutine may call it.
func (ib *Inbox) TakePayloadDest(id uint64) (buf []byte, ok bool) {
	l := &ib.landings
	l.mu.Lock()
	buf, ok = l.buf[id]
	if ok {
		delete(l.buf, id)
	}
	l.mu.Unlock()
	return buf, ok
}
