//go:build !purego && !race

package shm

import (
	"sync/atomic"
	"unsafe"
)

// Release stores. Go's atomic stores are sequentially consistent, which on
// x86-64 is an XCHG: a locked instruction that also waits for every store
// before it to leave the store buffer (docs/transports-shm.md, "Figures",
// has what two of them cost a message). A store that only publishes what was written before it
// (a lock's release, a consumer's position) needs release order alone,
// which every x86-64 store has: stores are seen in program order, and
// after the loads before them. A plain MOV in assembly is one, and the
// compiler moves no memory access across the call. Where a store is
// followed by a load that must see another side's store (wake.go's and
// awaitRoom's store-then-load handshakes), it stays an atomic store.

//go:noescape
func storeRelease32(p *uint32, v uint32)

//go:noescape
func storeRelease64(p *uint64, v uint64)

// releaseBool stores v into b with release order.
func releaseBool(b *atomic.Bool, v bool) {
	var u uint32
	if v {
		u = 1
	}
	storeRelease32(boolWord(b), u)
}

// releaseUint64 stores v into w with release order.
func releaseUint64(w *atomic.Uint64, v uint64) { storeRelease64(uint64Word(w), v) }

// The words of atomic.Bool and atomic.Uint64 are their first fields, as
// segment.u64 already assumes of the latter when it views shared memory
// as one.
func boolWord(b *atomic.Bool) *uint32     { return (*uint32)(unsafe.Pointer(b)) }
func uint64Word(w *atomic.Uint64) *uint64 { return (*uint64)(unsafe.Pointer(w)) }
