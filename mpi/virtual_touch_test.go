//go:build linux

package mpi

import (
	"testing"

	"golang.org/x/sys/unix"
)

// BenchmarkFirstTouch measures what the host charges for memory a process
// touches for the first time, the floor under a virtual rank's start: each
// rank's state and stack are fresh pages (docs/model.md, "Huge pages").
// "touch" writes one byte in each 4 KiB page of a fresh 256 MiB mapping,
// "huge" does so after MADV_HUGEPAGE (transparent huge pages, where the
// kernel allows them), "populate" after MADV_POPULATE_WRITE (Linux 5.14
// and later; elsewhere it measures "touch"). Each reports host
// nanoseconds per 4 KiB page:
//
//	go test -run NONE -bench FirstTouch -benchtime 5x ./mpi
func BenchmarkFirstTouch(b *testing.B) {
	const size = 256 << 20
	for _, mode := range []string{"touch", "huge", "populate"} {
		b.Run(mode, func(b *testing.B) {
			var pages float64
			for b.Loop() {
				m, err := unix.Mmap(-1, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
				if err != nil {
					b.Fatal(err)
				}
				switch mode {
				case "huge":
					unix.Madvise(m, unix.MADV_HUGEPAGE)
				case "populate":
					unix.Madvise(m, unix.MADV_POPULATE_WRITE)
				}
				for i := 0; i < size; i += 4096 {
					m[i] = 1
				}
				pages += size / 4096
				b.StopTimer()
				if err := unix.Munmap(m); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/pages, "ns/page")
			b.ReportMetric(0, "ns/op")
		})
	}
}
