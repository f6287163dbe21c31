//go:build linux

package shm

import (
	"bytes"
	"testing"
)

// TestRingCopy: ringCopy does what copy does at every size either side of
// repMovsbMin, any alignment and either slice the shorter.
func TestRingCopy(t *testing.T) {
	src := make([]byte, 70000)
	for i := range src {
		src[i] = byte(i*7 + i>>8)
	}
	for _, n := range []int{0, 1, 15, 1023, 1024, 1025, 2048, 4096, 8191, 65536, 69000} {
		for _, off := range []int{0, 1, 4, 68} {
			for _, short := range []int{0, 1, 100} {
				want := make([]byte, n+off+8)
				got := make([]byte, n+off+8)
				dst, s := got[off:off+n], src[off:off+n]
				if short > 0 && short <= n {
					s = s[:n-short] // a shorter source leaves dst's tail alone
				}
				k := ringCopy(dst, s)
				wk := copy(want[off:off+n], s)
				if k != wk || !bytes.Equal(got, want) {
					t.Fatalf("n=%d off=%d short=%d: copied %d (copy: %d), bytes differ: %v", n, off, short, k, wk, !bytes.Equal(got, want))
				}
				if short > 0 && short <= n {
					// and a shorter destination copies only what fits
					d := make([]byte, n-short)
					if k := ringCopy(d, src[off:off+n]); k != n-short || !bytes.Equal(d, src[off:off+n-short]) {
						t.Fatalf("n=%d off=%d: short destination: copied %d", n, off, k)
					}
				}
			}
		}
	}
}
