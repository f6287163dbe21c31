package launch

import (
	"bytes"
	"testing"
	"time"

	"github.com/gompi/gompi/internal/accept/accepttest"
	"github.com/vmihailenco/msgpack/v5"
)

// bigToken is the start of a hello whose token claims 16 MiB: a map of
// one entry, "token", then a str32 header.
var bigToken = []byte{0x81, 0xa5, 't', 'o', 'k', 'e', 'n', 0xdb, 0x01, 0x00, 0x00, 0x00}

// TestExchangeReadsBoundedHello: before a connection is authenticated the
// exchange reads no more than a hello can take, whatever length its
// token claims (it used to buffer the whole claim: 1.25 GB sent raised
// gompirun to 4.27 GB).
func TestExchangeReadsBoundedHello(t *testing.T) {
	s := &Server{token: "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", procs: 1}
	c := &accepttest.EndlessConn{Head: bigToken}
	s.serve(c, func() {})
	if c.BytesRead > 4<<10 || !c.Closed {
		t.Fatalf("the exchange read %d bytes of an unauthenticated hello (closed: %v), want at most %d", c.BytesRead, c.Closed, s.helloLimit())
	}
	if s.Rejected() != 1 {
		t.Fatalf("rejected %d connections, want 1", s.Rejected())
	}
}

// TestExchangeAcceptSurvivesDescriptorExhaustion floods the exchange's
// socket under a low open-file limit until Accept fails (EMFILE): once
// the flood is gone a process of the job must still get in. The accept
// loop used to return on its first error.
func TestExchangeAcceptSurvivesDescriptorExhaustion(t *testing.T) {
	s, path := testServer(t, 1)
	restore := accepttest.Exhaust(t, "unix", path, func() bool { return s.acceptErrors.Load() > 0 })
	restore()
	done := make(chan error, 1)
	go func() {
		c, err := Dial(&Env{Exchange: path, Token: "tok", Proc: 0})
		if err == nil {
			c.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no answer from the exchange after the flood")
	}
}

// FuzzExchangeHello feeds arbitrary bytes to the exchange's hello
// decoder: it must not panic, must read no more than its limit, and must
// decode what a client encodes.
func FuzzExchangeHello(f *testing.F) {
	for _, q := range []request{
		{Op: "hello", Token: "tok", Proc: 2},
		{Op: "watch", Token: "tok"},
		{Op: "probe", Token: "tok"},
		{Op: "put", Key: "k", Val: "v"},
	} {
		b, _ := msgpack.Marshal(&q)
		f.Add(b)
	}
	f.Add(bigToken)
	f.Add([]byte{0xdf, 0xff, 0xff, 0xff, 0xff}) // a map claiming 4 G entries
	f.Fuzz(func(t *testing.T, data []byte) {
		const limit = 3 + 64
		src := bytes.NewReader(data)
		q, _, lr, err := readHello(src, limit)
		if read := int64(len(data)) - int64(src.Len()); read > limit || lr.N < 0 {
			t.Fatalf("read %d bytes, limit %d", read, limit)
		}
		if err != nil {
			return
		}
		b, err := msgpack.Marshal(&q)
		if err != nil {
			t.Fatal(err)
		}
		q2, _, _, err := readHello(bytes.NewReader(b), int64(len(b)))
		if err != nil || q2 != q {
			t.Fatalf("re-encoded %+v decodes as %+v (%v)", q, q2, err)
		}
	})
}
