package launch

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
)

// Host is one entry of a host list: a machine, how many processes it
// takes per pass over the list, and the most it takes in all (Open MPI's
// max_slots; 0: no limit, passes go on while processes remain).
type Host struct {
	Name     string
	Slots    int
	MaxSlots int
}

// ParseHosts reads MPICH's -hosts syntax: "a,b:2,c", slots default 1.
func ParseHosts(s string) ([]Host, error) {
	var hosts []Host
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			return nil, fmt.Errorf("host list %q: empty entry", s)
		}
		h, err := parseHostSlots(f)
		if err != nil {
			return nil, fmt.Errorf("host list %q: %v", s, err)
		}
		hosts = append(hosts, h)
	}
	return hosts, nil
}

// parseHostSlots reads "host" or "host:slots". An IPv6 address needs
// brackets ("[::1]:2") to carry slots, since it is full of colons.
func parseHostSlots(f string) (Host, error) {
	name, slots := f, ""
	if strings.HasPrefix(f, "[") {
		end := strings.IndexByte(f, ']')
		if end < 0 {
			return Host{}, fmt.Errorf("%q: unclosed [", f)
		}
		name, slots = f[1:end], strings.TrimPrefix(f[end+1:], ":")
		if f[end+1:] != "" && !strings.HasPrefix(f[end+1:], ":") {
			return Host{}, fmt.Errorf("%q: want [address]:slots", f)
		}
	} else if i := strings.LastIndexByte(f, ':'); i >= 0 && strings.Count(f, ":") == 1 {
		name, slots = f[:i], f[i+1:]
		if slots == "" {
			return Host{}, fmt.Errorf("%q: no slot count after ':'", f)
		}
	} else if strings.Contains(f, ":") && net.ParseIP(f) == nil {
		return Host{}, fmt.Errorf("%q: want host or host:slots ([address]:slots for IPv6)", f)
	}
	return newHost(name, slots, f)
}

func newHost(name, slots, entry string) (Host, error) {
	if name == "" {
		return Host{}, fmt.Errorf("%q: no host name", entry)
	}
	if strings.ContainsAny(name, " \t\"'`$\\;|&<>()*?!{}") {
		return Host{}, fmt.Errorf("%q: not a host name", name)
	}
	h := Host{Name: name, Slots: 1}
	if slots != "" {
		n, err := strconv.Atoi(slots)
		if err != nil || n < 1 {
			return Host{}, fmt.Errorf("%q: slots must be a positive number", entry)
		}
		h.Slots = n
	}
	return h, nil
}

// ReadHostfile reads a host file: one host per line as "host", "host:N"
// (MPICH) or "host slots=N" (Open MPI); '#' starts a comment; blank lines
// are skipped. Errors name the file and line.
func ReadHostfile(path string) ([]Host, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("host file: %v", err)
	}
	defer f.Close()
	return parseHostfile(f, path)
}

func parseHostfile(r io.Reader, name string) ([]Host, error) {
	var hosts []Host
	sc := bufio.NewScanner(r)
	for line := 1; sc.Scan(); line++ {
		text, _, _ := strings.Cut(sc.Text(), "#")
		fields := strings.Fields(text)
		if len(fields) == 0 {
			continue
		}
		bad := func(err error) error { return fmt.Errorf("%s:%d: %v", name, line, err) }
		var h Host
		var err error
		switch {
		case len(fields) == 1:
			h, err = parseHostSlots(fields[0])
		default:
			h, err = parseKeywords(fields, strings.TrimSpace(text))
		}
		if err != nil {
			return nil, bad(err)
		}
		hosts = append(hosts, h)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if len(hosts) == 0 {
		return nil, fmt.Errorf("%s: no hosts in the file", name)
	}
	return hosts, nil
}

// parseKeywords reads an Open MPI host file line: a host and keywords,
// slots=N and max_slots=M, each at most once (in any order).
func parseKeywords(fields []string, entry string) (Host, error) {
	slots, max := "", ""
	for _, kw := range fields[1:] {
		key, val, ok := strings.Cut(kw, "=")
		if val == "" {
			val = "none" // "slots=" alone is a mistake, not the default
		}
		switch {
		case ok && key == "slots" && slots == "":
			slots = val
		case ok && key == "max_slots" && max == "":
			max = val
		default:
			return Host{}, fmt.Errorf("%q: want host, host:N or host slots=N [max_slots=M]", entry)
		}
	}
	if slots == "" {
		slots = "1"
	}
	h, err := newHost(fields[0], slots, entry)
	if err != nil || max == "" {
		return h, err
	}
	m, err := strconv.Atoi(max)
	if err != nil || m < h.Slots {
		return Host{}, fmt.Errorf("%q: max_slots must be a number no smaller than slots (%d)", entry, h.Slots)
	}
	h.MaxSlots = m
	return h, nil
}

// AssignHosts gives each of np processes its host: the hosts are filled in
// order, Slots processes each, and the list is cycled over again while
// processes remain (as MPICH's hydra does), but no host gets more than its
// MaxSlots. The result is the index into hosts of every process; it is an
// error when the hosts' MaxSlots leave too few places.
func AssignHosts(hosts []Host, np int) ([]int, error) {
	at := make([]int, 0, np)
	count := make([]int, len(hosts))
	for len(at) < np {
		placed := false
		for i, h := range hosts {
			for s := 0; s < h.Slots && len(at) < np && (h.MaxSlots == 0 || count[i] < h.MaxSlots); s++ {
				at = append(at, i)
				count[i]++
				placed = true
			}
		}
		if !placed {
			return nil, fmt.Errorf("%d processes: the hosts' max_slots allow %d", np, len(at))
		}
	}
	return at, nil
}

// TotalSlots is the number of processes one pass over hosts places.
func TotalSlots(hosts []Host) int {
	n := 0
	for _, h := range hosts {
		n += h.Slots
	}
	return n
}

// IsThisHost reports whether name is this machine: localhost, a loopback
// address, or this machine's host name (full or up to the first dot).
func IsThisHost(name string) bool {
	if name == "localhost" {
		return true
	}
	if ip := net.ParseIP(name); ip != nil && ip.IsLoopback() {
		return true
	}
	me, err := os.Hostname()
	if err != nil || me == "" {
		return false
	}
	short, _, _ := strings.Cut(me, ".")
	nameShort, _, _ := strings.Cut(name, ".")
	return name == me || name == short || nameShort == me
}
