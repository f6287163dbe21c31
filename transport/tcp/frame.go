package tcp

import (
	"fmt"
	"io"
	"net"
	"syscall"

	"github.com/gompi/gompi/transport"
	"golang.org/x/sys/unix"
)

// readChunk is the first allocation for a large payload, which then grows
// as its bytes arrive: a header announcing a huge size costs memory only as
// its bytes really come.
const readChunk = 4 << 20

// copyLimit is the largest payload that writeFrame copies behind the header
// into one buffer for a plain write; larger ones go out by writev without a
// copy.
const copyLimit = 4 << 10

// frameWriter is the sending half of a connection: its buffers are reused
// from frame to frame, so a send allocates nothing.
type frameWriter struct {
	buf  [transport.HeaderSize + copyLimit]byte
	bufs net.Buffers
	vec  [2][]byte
	fd   int // the socket, for a first write that skips Go's poller; -1 if unknown
}

// newFrameWriter returns a writer for c. The caller guarantees that c is
// not closed while a write is in progress (outConn's lock).
func newFrameWriter(c net.Conn) *frameWriter {
	w := &frameWriter{fd: -1}
	if sc, ok := c.(syscall.Conn); ok {
		if rc, err := sc.SyscallConn(); err == nil {
			rc.Control(func(fd uintptr) { w.fd = int(fd) })
		}
	}
	return w
}

// writeFrame sends f's header then its payload: one write of a copy for
// small payloads, one writev for large ones.
func (w *frameWriter) writeFrame(c net.Conn, f *transport.Frame) error {
	hdr := w.buf[:transport.HeaderSize]
	transport.EncodeHeader(hdr, &f.Header)
	n := f.PayloadLen()
	if int64(len(f.Payload)) != n {
		return fmt.Errorf("tcp: frame %v carries %d payload bytes, header says %d", f, len(f.Payload), n)
	}
	if n <= copyLimit {
		copy(w.buf[transport.HeaderSize:], f.Payload)
		b := w.buf[:transport.HeaderSize+n]
		// One write(2) on the non-blocking socket, without the locks and
		// poller bookkeeping of net.Conn.Write;
		// what the socket cannot take now goes through Write, which waits.
		if w.fd >= 0 {
			if m, _ := unix.Write(w.fd, b); m == len(b) {
				return nil
			} else if m > 0 {
				b = b[m:]
			}
		}
		_, err := c.Write(b)
		return err
	}
	w.vec = [2][]byte{hdr, f.Payload}
	w.bufs = w.vec[:]
	_, err := w.bufs.WriteTo(c)
	w.vec = [2][]byte{} // do not keep the payload alive
	return err
}

// noEOF turns an end of stream inside a frame into io.ErrUnexpectedEOF.
func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}
