//go:build !purego

package shm

import "golang.org/x/sys/cpu"

// haveRepMovsb selects REP MOVSB for ringCopy: CPUs that advertise ERMS
// run it as a fast string copy.
var haveRepMovsb = cpu.X86.HasERMS

// repMovsbMin is the smallest copy ringCopy hands to REP MOVSB: the size
// from which Go's own memmove uses it where it prefers it (Intel CPUs with
// ERMS and FSRM). Below it the string copy's start-up cost shows and no
// gain was measured (docs/transports-shm.md, "Copies into the ring").
const repMovsbMin = 2048

//go:noescape
func repMovsb(dst, src *byte, n uintptr)

// ringCopy copies src into dst, a ring record the consumer's core read
// last, and returns the bytes copied, as copy does. Go's memmove copies
// with AVX stores on the x86-64 CPUs it does not trust with REP MOVSB
// (AMD's among them), and there an eager message of 4-32 KiB took twice
// as long into the ring as with REP MOVSB: presumably each AVX store
// first reads the line the consumer's core holds, where the fast string
// copy writes whole lines without reading them.
func ringCopy(dst, src []byte) int {
	n := min(len(dst), len(src))
	if n < repMovsbMin || !haveRepMovsb {
		return copy(dst, src)
	}
	repMovsb(&dst[0], &src[0], uintptr(n))
	return n
}
