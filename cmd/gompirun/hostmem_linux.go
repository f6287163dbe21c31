package main

import "golang.org/x/sys/unix"

// hostMemory is this host's physical memory in bytes, or 0 if unknown.
func hostMemory() uint64 {
	var si unix.Sysinfo_t
	if unix.Sysinfo(&si) != nil {
		return 0
	}
	return uint64(si.Totalram) * uint64(si.Unit)
}
