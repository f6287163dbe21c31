package tcp

import (
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"

	"github.com/gompi/gompi/transport"
)

// inConn is the receiving end of a connection with another process: its
// goroutine drains the socket whenever Go's network poller reports it
// readable, parsing frames out of a buffer filled by non-blocking reads.
// A spinning rank of this process may drain it too (Transport.Poll,
// pending.go); mu decides who does.
type inConn struct {
	t    *Transport
	c    net.Conn
	rc   syscall.RawConn
	fd   int                         // the socket; read only under mu while the connection is not dead
	read func(p []byte) (int, error) // readSome, or a stand-in in tests
	proc int
	peer Peer

	// Draining is done by the connection's goroutine or by a spinning rank
	// of this process (Transport.Poll), whichever takes mu; retry, set by
	// one that found mu taken, makes the holder drain again after it
	// unlocks, so that bytes arriving meanwhile are not left behind. The
	// fields below are mu's.
	mu    sync.Mutex
	retry atomic.Bool

	buf  []byte // received bytes not yet parsed: buf[r:w]
	r, w int
	big  *transport.Frame // a frame whose large payload is being read straight into it
	got  int64            // payload bytes of big received so far, kept or dropped
	// landed says that big's Payload is the receiving rank's own buffer
	// (transport.Inbox.TakePayloadDest): what does not fit is dropped.
	landed bool
	dead   bool

	// short records that the last read returned less than it asked for:
	// the socket was empty then, and anything arriving since raises a new
	// readiness edge, so when the buffer ends on a frame boundary drain
	// goes back to waiting without the read that would only say EAGAIN.
	// That read sat between a frame's arrival and its rank running. Inside
	// a frame it still reads on, so that an end of stream arriving with
	// the data (no new edge) is seen as a cut frame.
	short bool
}

// smallFrame is the largest frame assembled in the connection buffer; larger
// payloads are read straight into their own allocation.
const smallFrame = 64 << 10

func newInConn(t *Transport, c net.Conn, proc int) (*inConn, error) {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return nil, errors.New("connection has no file descriptor")
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil, err
	}
	ic := &inConn{t: t, c: c, rc: rc, proc: proc, peer: t.peers[proc], buf: make([]byte, 256<<10), fd: -1}
	ic.read = ic.readSome
	rc.Control(func(fd uintptr) { ic.fd = int(fd) })
	t.watchConn(ic)
	return ic, nil
}

// readSome does one non-blocking read into p: n bytes, or 0 with a nil
// error when nothing is waiting, or io.EOF. It runs inside loop's
// RawConn.Read callback, on the descriptor that callback was given (Go set
// it non-blocking), with no closure to allocate per read.
func (ic *inConn) readSome(p []byte) (n int, err error) {
	if len(p) == 0 {
		return 0, nil
	}
	for {
		// A raw system call, without the scheduler's bookkeeping: the
		// read cannot block, and entering it as a blocking call wakes the
		// runtime's monitor thread when it sleeps (a futex call, and on a
		// VM a virtual interrupt); docs/transports-tcp.md has the
		// measurement. (The same for the sending write made every run far
		// slower, for reasons not pinned down: that write wakes the peer
		// and runs loopback's receive path.)
		r, _, errno := syscall.RawSyscall(syscall.SYS_READ, uintptr(ic.fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
		n, err = int(r), nil
		if errno != 0 {
			n, err = -1, errno
		}
		if err != syscall.EINTR {
			break
		}
	}
	switch {
	case err == syscall.EAGAIN:
		return 0, nil
	case err != nil:
		return 0, err
	case n == 0 && len(p) > 0:
		return 0, io.EOF
	}
	return n, nil
}

// drain reads and delivers every complete frame available now. It reports
// whether it delivered any.
func (ic *inConn) drain() (bool, error) {
	delivered := false
	ic.short = false
	for {
		progress, err := ic.step(&delivered)
		if err != nil || !progress {
			return delivered, err
		}
	}
}

// step makes one unit of progress: a read, or a parsed frame.
func (ic *inConn) step(delivered *bool) (bool, error) {
	if f := ic.big; f != nil { // reading a large payload in place
		if ic.got < f.Size {
			n, err := ic.read(ic.bigSpace(f))
			if err != nil {
				return false, noEOF(err)
			}
			ic.got += int64(n)
			if ic.got < f.Size {
				return n > 0, nil
			}
		}
		ic.big = nil
		*delivered = true
		return true, ic.deliver(f)
	}
	avail := ic.buf[ic.r:ic.w]
	if len(avail) >= transport.HeaderSize {
		h, err := transport.DecodeHeader(avail)
		if err != nil {
			return false, err
		}
		n := h.PayloadLen()
		if n > smallFrame {
			ic.startBig(h, avail[transport.HeaderSize:])
			return true, nil
		}
		if int64(len(avail)) >= transport.HeaderSize+n {
			f := transport.NewFrame()
			f.Header = h
			if n > 0 {
				f.CopyPayload(avail[transport.HeaderSize : transport.HeaderSize+n])
			}
			ic.r += transport.HeaderSize + int(n)
			*delivered = true
			return true, ic.deliver(f)
		}
	}
	// Need more bytes: compact, then read.
	if ic.r > 0 {
		ic.w = copy(ic.buf, ic.buf[ic.r:ic.w])
		ic.r = 0
	}
	if ic.short && ic.w == 0 {
		return false, nil
	}
	n, err := ic.read(ic.buf[ic.w:])
	ic.short = n < len(ic.buf)-ic.w
	if err == io.EOF && ic.w > 0 {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		return false, err
	}
	ic.w += n
	return n > 0, nil
}

// startBig begins a frame whose payload is too large for the connection
// buffer, with head, the payload bytes already in that buffer. A
// rendezvous DATA goes straight into the buffer its receive registered, so
// the message costs the receiver no memory of its own; anything else into
// an allocation that grows as its bytes arrive (a header announcing a huge
// size costs memory only as its bytes really come).
func (ic *inConn) startBig(h transport.Header, head []byte) {
	f := transport.NewFrame()
	f.Header = h
	n := h.PayloadLen()
	ic.landed = false
	if dst, ok := ic.landing(&h); ok {
		f.Payload = dst[:min(int64(len(dst)), n)]
		ic.landed = true
	} else {
		f.Payload = make([]byte, min(n, readChunk))
	}
	have := min(int64(len(head)), n)
	copy(f.Payload, head[:have]) // a landed payload may keep less
	ic.got = have
	ic.r += transport.HeaderSize + int(have)
	if ic.r == ic.w { // the payload continues on the socket
		ic.r, ic.w = 0, 0
	}
	ic.big = f
}

// landing returns the receive buffer registered for rendezvous DATA h, if
// its destination is a rank of this process that registered one.
func (ic *inConn) landing(h *transport.Header) ([]byte, bool) {
	d, s := int(h.Dst)-ic.t.cfg.Base, int(h.Src)
	if h.Kind != transport.Data || h.Flags&transport.FlagRendezvous == 0 || d < 0 || d >= len(ic.t.cfg.Inboxes) ||
		s < ic.peer.Base || s >= ic.peer.Base+ic.peer.N {
		return nil, false // misrouted frames are refused by deliver
	}
	return ic.t.cfg.Inboxes[d].TakePayloadDest(h.RecvID)
}

// bigSpace is where the next bytes of big frame f's payload are read: the
// rest of its payload buffer, grown when it is full and more is due; or,
// once a landed payload's buffer is full, the connection buffer, whose
// bytes are dropped (the receive truncates). The connection buffer is empty
// while a large payload is read: the payload took all it held.
func (ic *inConn) bigSpace(f *transport.Frame) []byte {
	due := f.Size - ic.got
	switch {
	case ic.got < int64(len(f.Payload)):
		return f.Payload[ic.got:]
	case ic.landed:
		return ic.buf[:min(int64(len(ic.buf)), due)]
	}
	grown := make([]byte, min(f.Size, 2*int64(len(f.Payload))))
	copy(grown, f.Payload)
	f.Payload = grown
	return f.Payload[ic.got:]
}

// deliver checks that f comes from a rank of the peer and goes to a rank of
// this process, then queues it.
func (ic *inConn) deliver(f *transport.Frame) error {
	d := int(f.Dst) - ic.t.cfg.Base
	s := int(f.Src)
	if d < 0 || d >= len(ic.t.cfg.Inboxes) || s < ic.peer.Base || s >= ic.peer.Base+ic.peer.N {
		err := fmt.Errorf("misrouted frame %v", f)
		f.Free()
		return err
	}
	ic.t.cfg.Inboxes[d].Deliver(f)
	return nil
}

// loop is the connection's goroutine: it drains the socket whenever it
// becomes readable, until the connection ends (serve then closes it). Draining reads until the
// socket would block, so each wake-up costs the reads a plain blocking
// reader would make, and Go's edge-triggered readiness is never missed.
func (ic *inConn) loop() {
	rerr := ic.rc.Read(func(uintptr) bool {
		_, dead := ic.drainShared()
		return dead // otherwise drained: wait until readable again
	})
	ic.mu.Lock()
	if rerr != nil && !ic.dead {
		ic.fail(rerr)
	}
	ic.dead = true // receive closes the socket next: no more reads from it
	ic.mu.Unlock()
	ic.t.unwatchConn(ic)
}

// drainShared drains the socket unless another goroutine is at it, and
// reports whether it delivered any frame and whether the connection is
// dead.
func (ic *inConn) drainShared() (delivered, dead bool) {
	for {
		ic.retry.Store(true)
		if !ic.mu.TryLock() {
			return delivered, false // the holder sees retry and drains again
		}
		ic.retry.Store(false)
		if !ic.dead {
			got, err := ic.drain()
			delivered = delivered || got
			if err != nil {
				ic.fail(err)
			}
		}
		dead = ic.dead
		ic.mu.Unlock()
		if dead || !ic.retry.Load() {
			return delivered, dead
		}
	}
}

// fail marks the connection dead; serve closes it once loop has returned
// (closing inside the socket's read callback would wait for that very
// callback). A clean end of stream means the peer finished (it closes only
// after the job's finalize barrier, or when it dies, which gompirun
// handles); anything else breaks the job.
func (ic *inConn) fail(err error) {
	ic.dead = true
	if ic.big != nil {
		ic.big.Free()
		ic.big = nil
	}
	if err == io.EOF || ic.t.closing.Load() {
		return
	}
	ic.t.malformed.Add(1)
	if ic.t.cfg.OnError != nil {
		ic.t.cfg.OnError(fmt.Errorf("tcp: connection from process %d (ranks %d-%d): %w",
			ic.proc, ic.peer.Base, ic.peer.Base+ic.peer.N-1, err))
	}
}
