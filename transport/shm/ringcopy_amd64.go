//go:build !purego && !race

package shm

import "golang.org/x/sys/cpu"

// haveRepMovsb selects REP MOVSB for ringCopy: CPUs that advertise ERMS
// run it as a fast string copy.
var haveRepMovsb = cpu.X86.HasERMS

// repMovsbMin is the smallest copy ringCopy hands to REP MOVSB. Measured
// (docs/transports-shm.md, "Copies into the ring"): from 1 KiB the ring's
// copy gains; at 128-512 bytes it does not, the string copy's start-up
// cost showing.
const repMovsbMin = 1024

//go:noescape
func repMovsb(dst, src *byte, n uintptr)

// ringCopy copies src into dst, a ring record the consumer's core read
// last, and returns the bytes copied, as copy does. Go's memmove copies
// with AVX stores on the x86-64 CPUs it does not trust with REP MOVSB
// (AMD's among them), and there an eager message took far longer to go
// into the ring than with REP MOVSB (docs/transports-shm.md, "Copies into
// the ring"): presumably each AVX store first reads the line the
// consumer's core holds, where the fast string copy writes whole lines
// without reading them.
func ringCopy(dst, src []byte) int {
	n := min(len(dst), len(src))
	if n < repMovsbMin || !haveRepMovsb {
		return copy(dst, src)
	}
	repMovsb(&dst[0], &src[0], uintptr(n))
	return n
}
