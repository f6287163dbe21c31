package tcp

import (
	"io"
	"net"
	"testing"
	"time"

	"github.com/gompi/gompi/internal/accept/accepttest"
)

// TestAcceptSurvivesDescriptorExhaustion floods a transport's listener
// under a low open-file limit until Accept fails (EMFILE): once the flood
// is gone, a peer of the job must still be accepted. The accept loop used
// to return on its first error and leave the job's peers unanswered.
func TestAcceptSurvivesDescriptorExhaustion(t *testing.T) {
	a, _, _ := pair(t, make(chan error, 1))
	restore := accepttest.Exhaust(t, "tcp", a.Addr(), func() bool { return a.acceptErrors.Load() > 0 })
	restore()
	c, err := net.Dial("tcp", a.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(2 * handshakeTimeout))
	c.Write(hello("secret", 1))
	var ok [1]byte
	if _, err := io.ReadFull(c, ok[:]); err != nil || ok[0] != 1 {
		t.Fatalf("handshake after the flood: %v (answer %d)", err, ok[0])
	}
}

// TestHandshakeReadsNoMoreThanTheToken: a hello announcing a token longer
// than the job's is refused without reading (or buffering) its bytes: the
// token has a fixed size, so nothing more is read before authentication.
func TestHandshakeReadsNoMoreThanTheToken(t *testing.T) {
	tr := &Transport{cfg: Config{Token: "secret"}, ready: make(chan struct{})}
	c := &endlessHello{head: append([]byte(magic), 0xff, 0xff)}
	if _, err := tr.handshake(c); err == nil {
		t.Fatal("a hello announcing a 65535-byte token was accepted")
	}
	if limit := len(magic) + 2 + len("secret") + 4; c.read > limit {
		t.Fatalf("the handshake read %d bytes before authenticating, want at most %d", c.read, limit)
	}
}

// endlessHello is a connection that sends head, then zeros without end.
type endlessHello struct {
	net.Conn
	head []byte
	read int
}

func (c *endlessHello) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 0
		if c.read+i < len(c.head) {
			p[i] = c.head[c.read+i]
		}
	}
	c.read += len(p)
	return len(p), nil
}

func (c *endlessHello) Write(p []byte) (int, error) { return len(p), nil }
func (c *endlessHello) SetDeadline(time.Time) error { return nil }
