package launch

import (
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"
)

// testServer serves an exchange for procs processes with token "tok" on a
// socket in the test's temporary directory, closed when the test ends.
func testServer(t *testing.T, procs int) (*Server, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "x.sock")
	s, err := Serve(path, "tok", procs)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, path
}

// testWatch opens process p's watch connection to testServer's exchange,
// closed when the test ends.
func testWatch(t *testing.T, path string, p int) *Watch {
	t.Helper()
	w, err := DialWatch(&Env{Exchange: path, Token: "tok", Proc: p})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

func TestExchangeBarrierAndFailure(t *testing.T) {
	s, path := testServer(t, 3)
	if _, err := Dial(&Env{Exchange: path, Token: "wrong", Proc: 0}); err == nil {
		t.Fatal("a client with the wrong token was accepted")
	}
	if _, err := Dial(&Env{Exchange: path, Token: "tok", Proc: 3}); err == nil {
		t.Fatal("a client with an out-of-range process index was accepted")
	}
	if n := s.Rejected(); n != 2 {
		t.Fatalf("rejected %d, want 2", n)
	}
	var wg sync.WaitGroup
	kvs := make([]map[string]string, 3)
	for p := 0; p < 3; p++ {
		c, err := Dial(&Env{Exchange: path, Token: "tok", Proc: p})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := c.Put("k"+string(rune('0'+p)), "v"); err != nil {
				t.Error(err)
			}
			// Records for gompirun alone: no barrier hands them out.
			if err := c.Put(TraceKey(p), "events"); err != nil {
				t.Error(err)
			}
			if err := c.Put(VirtualKey(p), "results"); err != nil {
				t.Error(err)
			}
			kvs[p], err = c.Barrier(BarrierInit)
			if err != nil {
				t.Error(err)
			}
			if _, err := c.Barrier(BarrierFinalize); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	for p, kv := range kvs {
		if len(kv) != 3 {
			t.Errorf("process %d saw %v after the barrier, want the three keys k0, k1, k2", p, kv)
		}
		if v, ok := s.Get(TraceKey(p)); !ok || v != "events" {
			t.Errorf("gompirun reads %q under %s", v, TraceKey(p))
		}
		if v, ok := s.Get(VirtualKey(p)); !ok || v != "results" {
			t.Errorf("gompirun reads %q under %s", v, VirtualKey(p))
		}
		if joined, fin := s.State(p); !joined || !fin {
			t.Errorf("process %d: joined %v finalized %v", p, joined, fin)
		}
	}
	c, _ := Dial(&Env{Exchange: path, Token: "tok", Proc: 1})
	c.Fail(4, 9, "rank 4 failed")
	select {
	case f := <-s.Failures:
		if f != (Failure{Proc: 1, Rank: 4, Code: 9, Msg: "rank 4 failed"}) {
			t.Fatalf("got %+v", f)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("failure report not received")
	}
}

func TestFromEnvValidates(t *testing.T) {
	set := func(kv map[string]string) {
		for k, v := range kv {
			t.Setenv(k, v)
		}
	}
	t.Setenv(EnvJob, "")
	if _, ok, _ := FromEnv(); ok {
		t.Fatal("no job id must mean a singleton")
	}
	good := map[string]string{EnvJob: "j", EnvToken: "t", EnvExchange: "/x", EnvSize: "4",
		EnvProcs: "2", EnvProc: "1", EnvRankBase: "2", EnvNRanks: "2"}
	set(good)
	if e, ok, err := FromEnv(); !ok || err != nil || e.RankBase != 2 {
		t.Fatalf("got %+v %v %v", e, ok, err)
	}
	for k, bad := range map[string]string{EnvSize: "x", EnvProc: "2", EnvNRanks: "3", EnvProcs: "5"} {
		set(good)
		t.Setenv(k, bad)
		if _, _, err := FromEnv(); err == nil {
			t.Errorf("%s=%s accepted", k, bad)
		}
	}
}

func TestPlacement(t *testing.T) {
	b := Placement(7, 3)
	if b[0] != 0 || b[1] != 2 || b[2] != 4 || b[3] != 7 {
		t.Fatalf("Placement(7, 3) = %v", b)
	}
}

// TestExchangeOverTCP serves the exchange on TCP too, as for a job
// spanning hosts: a probe with the right token answers, a wrong one does
// not, and a client dialing tcp:HOST:PORT learns its own end's address.
func TestExchangeOverTCP(t *testing.T) {
	s, err := Serve(filepath.Join(t.TempDir(), "x.sock"), "tok", 1)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// 192.0.2.1 (TEST-NET-1) is no address of this machine: left out.
	port, ips, err := s.ListenTCP([]string{"127.0.0.1", "192.0.2.1"})
	if err != nil {
		t.Fatal(err)
	}
	if len(ips) != 1 || ips[0] != "127.0.0.1" {
		t.Fatalf("listening at %v, want [127.0.0.1]", ips)
	}
	// Only there: another loopback address of this machine is refused
	// (a wildcard listener would answer it).
	if c, err := net.DialTimeout("tcp", "127.0.0.2:"+strconv.Itoa(port), time.Second); err == nil {
		c.Close()
		t.Fatal("the exchange answers at 127.0.0.2: it listens on every address")
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	if err := Probe(addr, "tok", time.Second); err != nil {
		t.Fatalf("probe with the job's token: %v", err)
	}
	if err := Probe(addr, "other", time.Second); err == nil {
		t.Fatal("probe with a wrong token answered")
	}
	env := &Env{Exchange: "tcp:" + addr, Token: "tok", Proc: 0}
	if !env.SpansHosts() {
		t.Fatal("a tcp: exchange does not count as spanning hosts")
	}
	c, err := Dial(env)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if ip := c.LocalIP(); ip != "127.0.0.1" {
		t.Fatalf("LocalIP = %q, want 127.0.0.1", ip)
	}
	if _, err := c.Barrier(BarrierInit); err != nil {
		t.Fatal(err)
	}
	if joined, _ := s.State(0); !joined {
		t.Fatal("the TCP client did not join")
	}
}

// TestRemoveWhenJoined: the socket and its directory disappear once every
// process has said hello (and opened its watch, when asked), before the
// last one's hello is answered; the exchange works on without them.
func TestRemoveWhenJoined(t *testing.T) {
	for _, watches := range []bool{false, true} {
		dir := filepath.Join(t.TempDir(), "private")
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		sock := filepath.Join(dir, "x.sock")
		s, err := Serve(sock, "tok", 2)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		s.RemoveWhenJoined(watches, sock, dir)
		var cs []*Client
		for p := range 2 {
			if _, err := os.Stat(sock); err != nil {
				t.Fatalf("watches %v: socket gone before process %d joined: %v", watches, p, err)
			}
			c, err := Dial(&Env{Exchange: sock, Token: "tok", Proc: p})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			cs = append(cs, c)
		}
		if watches {
			for p := range 2 {
				if _, err := os.Stat(sock); err != nil {
					t.Fatalf("socket gone before process %d watched: %v", p, err)
				}
				w, err := DialWatch(&Env{Exchange: sock, Token: "tok", Proc: p})
				if err != nil {
					t.Fatal(err)
				}
				defer w.Close()
			}
		}
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Fatalf("watches %v: the exchange's directory is still there after every process joined (%v)", watches, err)
		}
		done := make(chan error, 2)
		for _, c := range cs {
			go func() { _, err := c.Barrier(BarrierInit); done <- err }()
		}
		for range cs {
			select {
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("barrier after the socket was removed never completed")
			}
		}
	}
}

// TestExchangeLargeValues: values from rawPutMin bytes on travel after
// their request (putraw) and arrive whole, whatever their bytes, with the
// connection still in step for the requests after them; a putraw of a
// size out of range is refused.
func TestExchangeLargeValues(t *testing.T) {
	s, path := testServer(t, 1)
	c, err := Dial(&Env{Exchange: path, Token: "tok", Proc: 0})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	vals := map[string]string{}
	for i, n := range []int{rawPutMin - 1, rawPutMin, 3<<20 + 5} {
		b := make([]byte, n)
		for j := range b {
			b[j] = byte(j*7 + i) // zeros, 0xc0-0xdf (msgpack's codes) and the rest
		}
		key := VirtualKey(i)
		vals[key] = string(b)
		if err := c.Put(key, vals[key]); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Put("small", "after"); err != nil {
		t.Fatal(err)
	}
	kv, err := c.Barrier(BarrierInit)
	if err != nil {
		t.Fatal(err)
	}
	if kv["small"] != "after" {
		t.Fatalf("the put after the large values reads %q", kv["small"])
	}
	for key, want := range vals {
		if got, ok := s.Get(key); !ok || got != want {
			t.Errorf("%s: %d bytes arrived (ok %v), want the %d put", key, len(got), ok, len(want))
		}
	}

	// A writer that writes less than it announced: PutFrom says so and
	// drops the connection, which the exchange would otherwise read on.
	short, err := Dial(&Env{Exchange: path, Token: "tok", Proc: 0})
	if err != nil {
		t.Fatal(err)
	}
	err = short.PutFrom("short", 1<<20, func(w io.Writer) error {
		_, err := w.Write(make([]byte, 1000))
		return err
	})
	if err == nil {
		t.Error("PutFrom of 1000 bytes announced as 1 MiB succeeded")
	}
	if _, err := short.Barrier(BarrierInit); err == nil {
		t.Error("the connection PutFrom gave up on still answers")
	}
	if _, ok := s.Get("short"); ok {
		t.Error("the exchange kept a value that never arrived whole")
	}

	for _, size := range []int64{-1, maxRawPut + 1} {
		c, err := Dial(&Env{Exchange: path, Token: "tok", Proc: 0})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.enc.Encode(&request{Op: "putraw", Key: "x", Size: size}); err != nil {
			t.Fatal(err)
		}
		var r reply
		if err := c.dec.Decode(&r); err != nil || r.Err == "" {
			t.Errorf("putraw of %d bytes: reply %+v, error %v; want a refusal", size, r, err)
		}
		c.Close()
	}
}
