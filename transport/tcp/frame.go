package tcp

import (
	"fmt"
	"io"
	"net"

	"github.com/gompi/gompi/transport"
)

// readChunk is the first allocation for a large payload, which then grows
// as its bytes arrive: a header announcing a huge size costs memory only as
// its bytes really come.
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

// noEOF turns an end of stream inside a frame into io.ErrUnexpectedEOF.
func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}
