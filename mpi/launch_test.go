package mpi

import "testing"

func TestPublicAddr(t *testing.T) {
	cases := map[string]string{
		"127.0.0.1:4000": "127.0.0.1:4000",
		"0.0.0.0:4000":   "node7:4000",
		"[::]:4000":      "node7:4000",
		"10.1.2.3:99":    "10.1.2.3:99",
	}
	for in, want := range cases {
		if got := publicAddr(in, "node7"); got != want {
			t.Errorf("publicAddr(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestProcInfoRoundTrip(t *testing.T) {
	p := procInfo{host: "h", tcpAddr: "127.0.0.1:1", shm: true}
	if q, ok := parseProcInfo(p.String()); !ok || q != p {
		t.Fatalf("round trip of %+v gave %+v, %v", p, q, ok)
	}
	if _, ok := parseProcInfo("garbage"); ok {
		t.Fatal("garbage parsed")
	}
}
