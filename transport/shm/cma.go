//go:build linux

package shm

import (
	"errors"
	"os"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Single-copy path: Linux cross-memory attach. A rendezvous DATA's payload
// stays in the sender's user buffer; the receiver reads it with
// process_vm_readv straight from the sender's address space.

// CMAEnv names the environment variable that disables the single-copy path
// when set to 0 (large payloads then stream through the ring).
const CMAEnv = "GOMPI_SHM_CMA"

// probeCMA reports whether this process can use process_vm_readv, and why
// not. It lets any process of the same user read this one (Yama's
// restricted mode would otherwise allow only ancestors, and local ranks are
// siblings), then tries a read of its own memory, which fails where a
// seccomp profile forbids the call.
func probeCMA() (bool, string) {
	if os.Getenv(CMAEnv) == "0" {
		return false, CMAEnv + "=0"
	}
	if b, err := os.ReadFile("/proc/sys/kernel/yama/ptrace_scope"); err == nil {
		if s := strings.TrimSpace(string(b)); s != "0" && s != "1" {
			return false, "kernel.yama.ptrace_scope=" + s
		}
	}
	// EINVAL without Yama: nothing to permit then.
	unix.Prctl(unix.PR_SET_PTRACER, unix.PR_SET_PTRACER_ANY, 0, 0, 0)
	src := uint64(0x5eed)
	var dst uint64
	if _, err := readRemote(os.Getpid(), uintptr(unsafe.Pointer(&src)), unsafe.Slice((*byte)(unsafe.Pointer(&dst)), 8)); err != nil {
		return false, "process_vm_readv: " + err.Error()
	}
	if dst != src {
		return false, "process_vm_readv read wrong data"
	}
	return true, ""
}

// probeCMAWrite reports whether this process can write others' memory
// with process_vm_writev (landing.go), trying a write of its own memory.
func probeCMAWrite() bool {
	src := uint64(0x5eed)
	var dst uint64
	_, err := writeRemote(os.Getpid(), uintptr(unsafe.Pointer(&dst)), unsafe.Slice((*byte)(unsafe.Pointer(&src)), 8))
	return err == nil && dst == src
}

// cmaRead is the read the receiver uses, cmaWrite the write a sender uses
// to land a payload; tests replace them to simulate a kernel that refuses.
var (
	cmaRead  = readRemote
	cmaWrite = writeRemote
)

// readRemote fills dst from address addr of process pid.
func readRemote(pid int, addr uintptr, dst []byte) (int, error) {
	return transferRemote(pid, addr, dst, unix.ProcessVMReadv, "process_vm_readv")
}

// writeRemote copies src to address addr of process pid.
func writeRemote(pid int, addr uintptr, src []byte) (int, error) {
	return transferRemote(pid, addr, src, unix.ProcessVMWritev, "process_vm_writev")
}

// transferRemote moves all of local to or from address addr of process pid
// with call, in pieces of at most 1 GiB, resuming after partial transfers.
func transferRemote(pid int, addr uintptr, local []byte,
	call func(int, []unix.Iovec, []unix.RemoteIovec, uint) (int, error), name string) (int, error) {
	done := 0
	for done < len(local) {
		n := min(len(local)-done, 1<<30)
		liov := []unix.Iovec{{Base: &local[done]}}
		liov[0].SetLen(n)
		riov := []unix.RemoteIovec{{Base: addr + uintptr(done), Len: n}}
		got, err := call(pid, liov, riov, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return done, err
		}
		if got == 0 {
			return done, errors.New(name + " made no progress")
		}
		done += got
	}
	return done, nil
}

// permanentCMAFailure tells a refusal of the call itself (then the receiver
// stops accepting descriptors) from a failure of one read.
func permanentCMAFailure(err error) bool {
	return errors.Is(err, unix.EPERM) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EACCES)
}
