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
	c := &accepttest.EndlessConn{Head: append([]byte(magic), 0xff, 0xff)}
	if _, err := tr.handshake(c); err == nil {
		t.Fatal("a hello announcing a 65535-byte token was accepted")
	}
	if limit := len(magic) + 2 + len("secret") + 4; c.BytesRead > limit {
		t.Fatalf("the handshake read %d bytes before authenticating, want at most %d", c.BytesRead, limit)
	}
}
