//go:build linux

package shm

import (
	"bytes"
	"errors"
	"os"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TestTransferRemoteInPieces reads and writes this process's own memory
// through the single-copy calls, a buffer of several pieces and an odd
// tail, and checks every byte arrives.
func TestTransferRemoteInPieces(t *testing.T) {
	if ok, why := probeCMA(); !ok {
		t.Skip("no single-copy path here: " + why)
	}
	n := 2*cmaPiece + 4093
	src := make([]byte, n)
	for i := range src {
		src[i] = byte(i*7 + i>>12)
	}
	dst := make([]byte, n)
	got, err := readRemote(os.Getpid(), uintptr(unsafe.Pointer(&src[0])), dst)
	if err != nil || got != n || !bytes.Equal(dst, src) {
		t.Fatalf("read %d of %d bytes, err %v, equal %v", got, n, err, bytes.Equal(dst, src))
	}
	if !probeCMAWrite() {
		t.Skip("process_vm_writev refused here")
	}
	back := make([]byte, n)
	got, err = writeRemote(os.Getpid(), uintptr(unsafe.Pointer(&back[0])), src)
	if err != nil || got != n || !bytes.Equal(back, src) {
		t.Fatalf("wrote %d of %d bytes, err %v, equal %v", got, n, err, bytes.Equal(back, src))
	}
}

// TestTransferRemoteFault: an address that is not mapped is an error the
// caller can classify (EFAULT, not a permanent refusal of the call).
func TestTransferRemoteFault(t *testing.T) {
	if ok, why := probeCMA(); !ok {
		t.Skip("no single-copy path here: " + why)
	}
	dst := make([]byte, 64)
	got, err := readRemote(os.Getpid(), 8, dst) // page zero is never mapped
	if !errors.Is(err, unix.EFAULT) || got != 0 {
		t.Fatalf("read from address 8: %d bytes, err %v; want EFAULT", got, err)
	}
	if permanentCMAFailure(err) {
		t.Fatal("a fault counted as the call refused")
	}
}
