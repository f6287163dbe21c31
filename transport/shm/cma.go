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

// A single-copy transfer is work the kernel does on the caller's core (it
// copies page by page between the two address spaces), not a wait, so it
// is made as a raw system call, during which the goroutine keeps its
// processor. Through the runtime's ordinary system call path, sysmon takes
// the processor from a thread that has been in a system call for 20 us,
// which a read of a large message always has: the runtime handed the
// processor to another thread, which competed with the copying one for the
// cores, took it back when the read returned, and kept sysmon waking every
// 20 us. docs/transports-shm.md has what it cost. A piece is at most
// cmaPiece bytes, so a stop-the-world of the garbage collector, which
// waits for a raw call to return, waits for one piece at most.
const cmaPiece = 1 << 20

// readRemote fills dst from address addr of process pid.
func readRemote(pid int, addr uintptr, dst []byte) (int, error) {
	return transferRemote(pid, addr, dst, unix.SYS_PROCESS_VM_READV, "process_vm_readv")
}

// writeRemote copies src to address addr of process pid.
func writeRemote(pid int, addr uintptr, src []byte) (int, error) {
	return transferRemote(pid, addr, src, unix.SYS_PROCESS_VM_WRITEV, "process_vm_writev")
}

// transferRemote moves all of local to or from address addr of process pid
// with the system call trap (process_vm_readv or process_vm_writev), in
// pieces of at most cmaPiece bytes, resuming after partial transfers.
func transferRemote(pid int, addr uintptr, local []byte, trap uintptr, name string) (int, error) {
	done := 0
	for done < len(local) {
		n := min(len(local)-done, cmaPiece)
		liov := unix.Iovec{Base: &local[done]}
		liov.SetLen(n)
		riov := unix.RemoteIovec{Base: addr + uintptr(done), Len: n}
		got, _, errno := unix.RawSyscall6(trap, uintptr(pid),
			uintptr(unsafe.Pointer(&liov)), 1, uintptr(unsafe.Pointer(&riov)), 1, 0)
		if errno == unix.EINTR {
			continue
		}
		if errno != 0 {
			return done, errno
		}
		if got == 0 {
			return done, errors.New(name + " made no progress")
		}
		done += int(got)
	}
	return done, nil
}

// permanentCMAFailure tells a refusal of the call itself (then the receiver
// stops accepting descriptors) from a failure of one read.
func permanentCMAFailure(err error) bool {
	return errors.Is(err, unix.EPERM) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EACCES)
}
