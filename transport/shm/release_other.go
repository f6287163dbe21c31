//go:build !amd64 || purego || race

package shm

import "sync/atomic"

// releaseBool and releaseUint64 are atomic stores where release_amd64.s
// is not built, and in race builds, whose detector sees the order they
// give only through sync/atomic.
func releaseBool(b *atomic.Bool, v bool) { b.Store(v) }

func releaseUint64(w *atomic.Uint64, v uint64) { w.Store(v) }
