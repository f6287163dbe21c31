package wireup

import (
	"slices"
	"testing"

	"github.com/gompi/gompi/transport/shm"
)

func TestPublicAddr(t *testing.T) {
	cases := []struct{ addr, localIP, want string }{
		{"127.0.0.1:4000", "", "127.0.0.1:4000"},
		{"0.0.0.0:4000", "", "node7:4000"},
		{"[::]:4000", "", "node7:4000"},
		{"10.1.2.3:99", "", "10.1.2.3:99"},
		// Jobs spanning hosts: the address that reached gompirun.
		{"0.0.0.0:4000", "10.9.0.2", "10.9.0.2:4000"},
		{"[::]:4000", "fd00::2", "[fd00::2]:4000"},
		{"10.1.2.3:99", "10.9.0.2", "10.1.2.3:99"},
	}
	for _, c := range cases {
		if got := publicAddr(c.addr, c.localIP, "node7"); got != c.want {
			t.Errorf("publicAddr(%q, %q) = %q, want %q", c.addr, c.localIP, got, c.want)
		}
	}
}

func TestHostNameFromEnv(t *testing.T) {
	t.Setenv("GOMPI_HOST", "label-b")
	if h := hostName(); h != "label-b" {
		t.Fatalf("hostName() = %q under GOMPI_HOST=label-b", h)
	}
	t.Setenv("GOMPI_HOST", "")
	if h := hostName(); h == "label-b" || h == "" {
		t.Fatalf("hostName() = %q without GOMPI_HOST", h)
	}
}

func TestProcInfoRoundTrip(t *testing.T) {
	p := procInfo{host: "h", tcpAddr: "127.0.0.1:1", shm: true, machine: "0b1d"}
	if q, ok := parseProcInfo(p.String()); !ok || q != p {
		t.Fatalf("round trip of %+v gave %+v, %v", p, q, ok)
	}
	if _, ok := parseProcInfo("garbage"); ok {
		t.Fatal("garbage parsed")
	}
}

// TestSharingHost: the shared-memory transport of a process counts the
// processes of its own host only (it once got the job's process count,
// other hosts included: rings in every segment for processes that never
// write there, and a spin decision that counted them as local).
func TestSharingHost(t *testing.T) {
	// Hosts a and b, filled twice in turn (-hosts a:1,b:1 -np 5), and a
	// process of a that uses TCP only.
	procs := []procInfo{{host: "a", shm: true}, {host: "b", shm: true}, {host: "a", shm: true},
		{host: "b", shm: true}, {host: "a"}}
	bases := []int{0, 2, 4, 6, 8, 10} // two ranks each
	local, idx := sharingHost(procs, bases, 2)
	want := []shm.Proc{{ID: 0, Base: 0, N: 2}, {ID: 2, Base: 4, N: 2}}
	if idx != 1 || !slices.Equal(local, want) {
		t.Fatalf("process 2 shares memory with %v as %d, want %v as 1", local, idx, want)
	}
	if _, idx := sharingHost(procs, bases, 4); idx != -1 {
		t.Fatalf("a process using TCP only shares memory (as %d)", idx)
	}
}
