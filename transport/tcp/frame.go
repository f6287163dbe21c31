package tcp

import (
	"bufio"
	"fmt"
	"io"
	"net"

	"github.com/gompi/gompi/transport"
)

// readChunk bounds each allocation step while a payload arrives, so a
// header announcing a huge size costs memory only as its bytes really come.
const readChunk = 4 << 20

// writeFrame sends f's header then its payload, in one writev when the
// payload is separate.
func writeFrame(c net.Conn, hdr []byte, f *transport.Frame) error {
	transport.EncodeHeader(hdr, &f.Header)
	n := f.PayloadLen()
	if int64(len(f.Payload)) != n {
		return fmt.Errorf("tcp: frame %v carries %d payload bytes, header says %d", f, len(f.Payload), n)
	}
	if n == 0 {
		_, err := c.Write(hdr)
		return err
	}
	bufs := net.Buffers{hdr, f.Payload}
	_, err := bufs.WriteTo(c)
	return err
}

// readFrame reads one frame. It returns io.EOF only at a clean frame
// boundary; a frame cut short is io.ErrUnexpectedEOF, a malformed header a
// descriptive error. It never panics, whatever the bytes.
func readFrame(r *bufio.Reader, hdr []byte) (*transport.Frame, error) {
	if _, err := io.ReadFull(r, hdr); err != nil {
		return nil, err
	}
	h, err := transport.DecodeHeader(hdr)
	if err != nil {
		return nil, err
	}
	f := transport.NewFrame()
	f.Header = h
	n := h.PayloadLen()
	if n == 0 {
		return f, nil
	}
	if n <= transport.InlinePayload {
		// Small payloads land in the pooled frame's own store: no allocation.
		var small [transport.InlinePayload]byte
		if _, err := io.ReadFull(r, small[:n]); err != nil {
			f.Free()
			return nil, noEOF(err)
		}
		f.CopyPayload(small[:n])
		return f, nil
	}
	p, err := readPayload(r, n)
	if err != nil {
		f.Free()
		return nil, noEOF(err)
	}
	f.Payload = p
	return f, nil
}

// noEOF turns an end of stream inside a frame into io.ErrUnexpectedEOF.
func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// readPayload reads n bytes, growing the buffer in bounded steps.
func readPayload(r io.Reader, n int64) ([]byte, error) {
	if n <= readChunk {
		buf := make([]byte, n)
		_, err := io.ReadFull(r, buf)
		return buf, err
	}
	buf := make([]byte, 0, readChunk)
	for int64(len(buf)) < n {
		step := min(n-int64(len(buf)), readChunk)
		if int64(cap(buf)-len(buf)) < step {
			grown := make([]byte, len(buf), min(n, 2*int64(cap(buf))))
			copy(grown, buf)
			buf = grown
		}
		k, err := io.ReadFull(r, buf[len(buf):int64(len(buf))+step])
		buf = buf[:len(buf)+k]
		if err != nil {
			return nil, err
		}
	}
	return buf, nil
}
