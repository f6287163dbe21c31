package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/gompi/gompi/internal/launch"
	"github.com/gompi/gompi/transport/shm"
	"golang.org/x/sys/unix"
)

// perProcessMemory is the least memory a process of a job takes besides
// its shared memory: an idle gompi process's resident set (most of it the
// program's text, shared with its peers; docs/gompirun.md gives the
// figure), and the kernel keeps its page tables and threads' stacks on
// top.
const perProcessMemory = 8 << 20

// capacity is what a host has for a job: memory available (MemAvailable:
// what can be had without swapping) and the free space of /dev/shm, where
// the shared-memory segments live (and which takes memory too).
type capacity struct {
	memory, shm int64
}

// hostCapacity measures this host; tests replace it with a small host.
var hostCapacity = func() (capacity, bool) {
	var c capacity
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return c, false
	}
	defer f.Close()
	found := false
	for sc := bufio.NewScanner(f); sc.Scan(); {
		fields := strings.Fields(sc.Text())
		if len(fields) == 3 && fields[0] == "MemAvailable:" && fields[2] == "kB" {
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			c.memory, found = kb<<10, err == nil
		}
	}
	var st unix.Statfs_t
	if unix.Statfs("/dev/shm", &st) != nil {
		return c, false
	}
	c.shm = int64(st.Bavail) * st.Bsize
	return c, found
}

// hostFits checks, before anything starts, that n processes of the job
// fit on host (its name in messages: "this host" or "host NAME"): n
// segments of shared memory when they share it (shared), and
// perProcessMemory each. It returns the refusal, one line saying what the
// job needs and what the host has; nil when they fit or the host cannot be
// measured.
func hostFits(host string, n int, shared bool) error {
	have, ok := hostCapacity()
	if !ok {
		return nil
	}
	var shmBytes int64
	if n > 1 && shared {
		if seg, err := shm.SegmentBytes(n); err == nil {
			shmBytes = int64(n) * seg // beyond shm.MaxLocal, or a bad ring size, they use TCP
		}
	}
	need := int64(n)*perProcessMemory + shmBytes
	if need <= have.memory && shmBytes <= have.shm {
		return nil
	}
	return fmt.Errorf("%d processes need about %s of memory on %s (%s each and %s of shared memory); it has %s available and %s free in /dev/shm",
		n, humanBytes(need), host, humanBytes(perProcessMemory), humanBytes(shmBytes), humanBytes(have.memory), humanBytes(have.shm))
}

// humanBytes writes n bytes for people: 1.5 MiB.
func humanBytes(n int64) string {
	const unit = 1 << 10
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 4; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTP"[exp])
}

// localProcs is how many processes of the job run on this host.
func localProcs(j *job) int {
	n := 0
	for _, p := range j.procs {
		if p.px == nil {
			n++
		}
	}
	return n
}

// sharesMemory reports whether the processes of a host share memory, given
// the environment they get (GOMPI_TRANSPORT=tcp: they do not).
func sharesMemory(env []string) bool {
	for _, kv := range env {
		if kv == launch.EnvTransport+"=tcp" {
			return false
		}
	}
	return true
}
