// Package transport moves framed messages between ranks. It knows nothing of
// MPI semantics or virtual time: a frame is a fixed header plus a payload, and
// a transport's only job is to put each frame into the destination rank's
// Inbox, preserving the order in which one sender sent to one receiver.
//
// Concrete transports live in subpackages: inproc (ranks that are goroutines
// of one process), shm (processes on one host) and tcp (hosts).
package transport

import (
	"fmt"
	"sync"
)

// Kind is the type of a frame. The first three are the message kinds of the
// MPI protocol engine (VACED-SIM Sect. 3.1.1): eager DATA, and the REQ / ACK
// handshake that precedes a rendezvous DATA.
type Kind uint8

const (
	Data Kind = iota + 1 // payload; eager (unsolicited) or the last step of a rendezvous
	Req                  // rendezvous request to send: carries the size, no payload
	Ack                  // rendezvous clear-to-send: carries the receiver's request id
	Ctrl                 // runtime control (abort, wake-up); never matched by MPI receives
)

func (k Kind) String() string {
	switch k {
	case Data:
		return "DATA"
	case Req:
		return "REQ"
	case Ack:
		return "ACK"
	case Ctrl:
		return "CTRL"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Header flag bits.
const (
	// FlagRendezvous marks a DATA frame that answers an ACK (its RecvID names
	// the receive request) as opposed to an eager DATA that must be matched.
	FlagRendezvous uint8 = 1 << iota
	// FlagSync marks a REQ sent by a synchronous send (Ssend / Issend).
	FlagSync
	// FlagExchanging marks an ACK or a rendezvous DATA whose rank has
	// rendezvous transfers of its own in the other direction in progress
	// (sends for an ACK, matched receives for a DATA): an exchange, as in
	// Sendrecv or Alltoall, whose ends are both busy copying. Shared memory
	// splits a payload's copy between the two ends only where neither
	// frame says so (transport/shm split.go), since a split pays only while
	// one end would otherwise wait.
	FlagExchanging
)

// Header is the fixed part of every frame. All ranks are world ranks.
type Header struct {
	Kind    Kind
	Flags   uint8
	Context uint32  // communicator context id (matching scope)
	Src     int32   // sending world rank
	Dst     int32   // receiving world rank
	Tag     int32   // MPI tag (matching)
	SendID  uint64  // sender's request id: REQ, ACK and rendezvous DATA carry it
	RecvID  uint64  // receiver's request id: ACK and rendezvous DATA carry it
	Size    int64   // message size in bytes (for REQ: the size of the DATA to come)
	Arrival float64 // virtual arrival time t_a on the target machine, seconds (0 in real mode)
}

// HeaderSize is the encoded size of a Header in bytes (see Encode).
const HeaderSize = 1 + 1 + 2 + 4 + 4 + 4 + 4 + 8 + 8 + 8 + 8

// Frame is a header and its payload.
//
// Ownership: a frame handed to Transport.Send belongs to the receiving side
// from then on, with one exception. A frame whose payload is borrowed (made
// with Borrow) references memory the sender still owns, for a single-copy
// transfer; whoever last reads the payload (the receiving engine after it
// copies out, or a transport that serialises it) must call Release exactly
// once, which tells the sender its buffer is free again.
type Frame struct {
	// Field order keeps the queue link and the header in the first cache
	// line and a small payload in the second: a small message crosses
	// between cores as two lines.
	next *Frame // link in an Inbox queue; ordered by the queue's atomics
	Header
	Payload []byte
	release func()
	fetch   func(dst []byte) (int, error) // reads a payload left in the sender's process
	inline  [InlinePayload]byte           // backing store for small payloads of pooled frames
	pooled  *[]byte                       // payload buffer taken from a size-class pool
	sender  *Inbox                        // SetSender
}

// InlinePayload is the largest payload a pooled frame carries without a
// separate allocation.
const InlinePayload = 64

var framePool = sync.Pool{New: func() any { return new(Frame) }}

// NewFrame returns an empty frame from a pool. Return it with Free once
// nothing references it any more; frames may also simply be dropped.
func NewFrame() *Frame { return framePool.Get().(*Frame) }

// Free releases a borrowed payload if any and returns the frame to the
// pool. The caller must not touch f afterwards.
func (f *Frame) Free() {
	f.Release()
	f.fetch = nil
	if f.pooled != nil {
		putBuf(f.pooled)
		f.pooled = nil
	}
	f.Header = Header{}
	f.Payload = nil
	f.sender = nil
	framePool.Put(f)
}

// SetSender names the inbox of the rank whose own goroutine sends f, at a
// point where that rank may take frames straight into its posted receives
// (Inbox.Direct): a transport that waits inside Send for room to write f
// may meanwhile poll that inbox's frames, and offer them to OfferDirect,
// as the rank's own poll would. Without it (nil, the default) a waiting
// transport only queues what it drains: the sending goroutine may not be
// the rank's, or the rank may be in the middle of handling a frame.
func (f *Frame) SetSender(ib *Inbox) { f.sender = ib }

// Sender is the inbox SetSender named, or nil.
func (f *Frame) Sender() *Inbox { return f.sender }

// CopyPayload sets the payload to a copy of b: inside the frame when it
// fits, else in a pooled buffer that Free recycles.
func (f *Frame) CopyPayload(b []byte) {
	f.Payload = f.AllocPayload(len(b))
	copy(f.Payload, b)
}

// AllocPayload sets the payload to an uninitialised buffer of n bytes (for
// transports that read a payload off the wire) and returns it.
func (f *Frame) AllocPayload(n int) []byte {
	if n <= InlinePayload {
		f.Payload = f.inline[:n:n]
		return f.Payload
	}
	if f.pooled != nil {
		putBuf(f.pooled)
		f.pooled = nil
	}
	if bp := getBuf(n); bp != nil {
		f.pooled = bp
		f.Payload = (*bp)[:n]
	} else {
		f.Payload = make([]byte, n)
	}
	return f.Payload
}

// Payload buffers come from power-of-two size classes up to maxPooled; the
// eager path copies every message once into one, so recycling them keeps
// the garbage collector out of the message path, and a fresh buffer of
// several megabytes (a large payload read off a ring or a socket, or kept
// by a virtual rank until its time comes) would cost a page fault per
// 4 KiB on every message.
const (
	minPooledShift = 7  // 128 B
	maxPooledShift = 30 // 1 GiB
)

var bufPools [maxPooledShift - minPooledShift + 1]sync.Pool

func sizeClass(n int) int {
	c := 0
	for 1<<(minPooledShift+c) < n {
		c++
	}
	return c
}

func getBuf(n int) *[]byte {
	if n > 1<<maxPooledShift {
		return nil
	}
	c := sizeClass(n)
	if v := bufPools[c].Get(); v != nil {
		return v.(*[]byte)
	}
	b := make([]byte, 1<<(minPooledShift+c))
	return &b
}

func putBuf(bp *[]byte) {
	n := cap(*bp)
	c := sizeClass(n)
	if 1<<(minPooledShift+c) != n {
		return
	}
	*bp = (*bp)[:n]
	bufPools[c].Put(bp)
}

// SetFetch marks the payload as left in the sender's process: Payload stays
// nil and ReadPayload calls fetch to read it straight into the receiver's
// buffer, the single copy of a shared-memory rendezvous. fetch gets at most
// Size bytes to fill.
func (f *Frame) SetFetch(fetch func(dst []byte) (int, error)) { f.fetch = fetch }

// ReadPayload copies the payload into dst, as much as fits, and returns the
// number of bytes copied. Receivers use it rather than reading Payload, so
// that a payload left in another process (SetFetch) is read from there;
// only such a read can fail.
func (f *Frame) ReadPayload(dst []byte) (int, error) {
	if f.fetch == nil {
		if len(f.Payload) > 0 && len(dst) > 0 && &dst[0] == &f.Payload[0] {
			// Landed in place (Inbox.TakePayloadDest): nothing to copy.
			return min(len(dst), len(f.Payload)), nil
		}
		return copy(dst, f.Payload), nil
	}
	return f.fetch(dst[:min(int64(len(dst)), f.Size)])
}

// Borrow attaches a release hook, marking the payload as borrowed from the
// sender. release is called by Release.
func (f *Frame) Borrow(release func()) { f.release = release }

// Borrowed reports whether the payload is still borrowed from the sender.
func (f *Frame) Borrowed() bool { return f.release != nil }

// Own gives f a payload of its own: one borrowed from the sender (Borrow)
// or left in its process (SetFetch) is copied into the frame's buffer and
// the sender's is released at once. A receiver that keeps a frame for a
// while (a virtual rank holding a DATA until its model time) calls it so
// that the sender does not wait on the receiver's progress. A failed fetch
// leaves f as it was and returns the error.
func (f *Frame) Own() error {
	switch {
	case f.fetch != nil:
		fetch := f.fetch
		f.fetch = nil
		n, err := fetch(f.AllocPayload(int(f.Size)))
		if err != nil {
			f.Payload = nil
			f.fetch = fetch
			return err
		}
		f.Payload = f.Payload[:n]
	case f.release != nil:
		f.CopyPayload(f.Payload)
	default:
		return nil
	}
	f.Release()
	return nil
}

// Release returns a borrowed payload to its owner. It is a no-op for frames
// that own their payload, and idempotent.
func (f *Frame) Release() {
	if r := f.release; r != nil {
		f.release = nil
		r()
	}
}

func (f *Frame) String() string {
	return fmt.Sprintf("%v ctx=%d %d->%d tag=%d size=%d sid=%d rid=%d",
		f.Kind, f.Context, f.Src, f.Dst, f.Tag, f.Size, f.SendID, f.RecvID)
}
