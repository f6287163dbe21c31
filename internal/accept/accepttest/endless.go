package accepttest

import (
	"net"
	"time"
)

// EndlessConn is a connection that sends Head, then zeros without end, as
// an attacker's hello announcing a huge length would: a handshake under
// test must stop reading it. BytesRead counts what was read; writes and
// deadlines succeed and do nothing.
type EndlessConn struct {
	net.Conn
	Head      []byte
	BytesRead int
	Closed    bool
}

func (c *EndlessConn) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 0
		if c.BytesRead+i < len(c.Head) {
			p[i] = c.Head[c.BytesRead+i]
		}
	}
	c.BytesRead += len(p)
	return len(p), nil
}

func (c *EndlessConn) Write(p []byte) (int, error)      { return len(p), nil }
func (c *EndlessConn) SetDeadline(time.Time) error      { return nil }
func (c *EndlessConn) SetReadDeadline(time.Time) error  { return nil }
func (c *EndlessConn) SetWriteDeadline(time.Time) error { return nil }
func (c *EndlessConn) Close() error                     { c.Closed = true; return nil }
