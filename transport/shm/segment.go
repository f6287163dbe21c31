//go:build linux

package shm

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A segment is one process's receive area: a control page, then one ring per
// sending process (the ring of the owner itself stays unused), each its
// control words (ringCtl bytes), its fastbox cells (fastbox.go) and its
// data. Only the
// owner consumes from its segment; every other local process produces into
// its own ring there.
//
// Control page layout (byte offsets). Words that different processes write
// often sit on their own cache lines.
const (
	offMagic    = 0   // uint64, stored last by the creator: the segment is ready
	offNLocal   = 8   // uint32
	offPid      = 12  // uint32, the owner's process id (liveness checks, process_vm_readv)
	offRingSize = 16  // uint64, bytes of data per ring, a power of two
	offClosed   = 24  // uint32, set when the owner closes: senders stop waiting
	offCMA      = 28  // uint32, 1 when the owner accepts single-copy descriptors
	offMapped   = 32  // uint32, processes that mapped it for good (Join); the last unlinks the file
	offWakePipe = 36  // uint32, 1 when the owner made a wake-up pipe (wake.go)
	offSeq      = 64  // uint32 futex word: bumped by each wake-up of the owner's waiter (wake.go)
	offSleepers = 128 // uint32, owner ranks now asleep; senders wake only when nonzero
	offParked   = 192 // uint32, how the owner's waiter blocks (wake.go: parkedFutex, parkedPipe), 0 while it is awake; senders wake only then

	pageSize = 4096
	magic    = 0x366d7369706d6f67 // "gompism6" little-endian: the layout's version

	// Per ring: control words (head at 0 and the fastbox's head at
	// ringCellHead, both the consumer's; the producer's tail at ringTail,
	// far enough from the consumer's that the two do not share a cache
	// line or its prefetched neighbour; and the producer's room-wait flag
	// at ringRoomWait, on a line of its own, since the producer writes it
	// only when it waits and the consumer reads it each time it shows
	// room: beside the tail, which the producer writes at every record,
	// that read took the line from the producer's core), then the fastbox
	// cells, then the data. Not a page each: a segment has a ring per
	// local process, and a host as many segments.
	ringCellHead = 8
	ringTail     = 128
	ringRoomWait = 192 // uint32, 1 while the producer waits for room (send.go awaitRoom)
	ringCtl      = 256
)

type segment struct {
	mem      []byte
	path     string
	nlocal   int
	ringSize uint64
	// wakePipe is the write end of the owner's wake-up pipe (wake.go),
	// nil where there is none (a segment a test made alone).
	wakePipe *sharedFd
	// owner is a pidfd of a peer segment's owner (watchOwner), nil where
	// there is none (see watchOwner) and for an own segment.
	owner *sharedFd
}

func (s *segment) u32(off int) *atomic.Uint32 {
	return (*atomic.Uint32)(unsafe.Pointer(&s.mem[off]))
}

func (s *segment) u64(off int) *atomic.Uint64 {
	return (*atomic.Uint64)(unsafe.Pointer(&s.mem[off]))
}

func (s *segment) ringBase(i int) int { return pageSize + i*ringBlock(s.ringSize) }

// ringBlock is the bytes of one ring in a segment: control, cells, data.
func ringBlock(ringSize uint64) int {
	return ringCtl + fastboxCells(ringSize)*cellSize + int(ringSize)
}

func segmentSize(nlocal int, ringSize uint64) int {
	return pageSize + nlocal*ringBlock(ringSize)
}

func segmentPath(dir, job string, proc int) string {
	return fmt.Sprintf("%s/gompi-%s-%d.shm", dir, job, proc)
}

// segmentFlags are what a segment's header says of its owner.
type segmentFlags struct {
	cma      bool // it accepts single-copy descriptors
	pinned   bool // its sleepers count stays raised (wake.go)
	wakePipe bool // it made a wake-up pipe beside the segment (wake.go)
}

// createSegment makes and maps a fresh segment file. A file of the same name
// can only be left over from a crashed job with the same id, so it is
// replaced. A pinned segment's sleepers count starts raised (wake.go).
func createSegment(path string, nlocal int, ringSize uint64, flags segmentFlags) (*segment, error) {
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("shm: removing stale segment: %w", err)
	}
	fd, err := unix.Open(path, unix.O_RDWR|unix.O_CREAT|unix.O_EXCL|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("shm: creating segment %s: %w", path, err)
	}
	defer unix.Close(fd)
	size := segmentSize(nlocal, ringSize)
	if err := unix.Ftruncate(fd, int64(size)); err != nil {
		os.Remove(path)
		return nil, fmt.Errorf("shm: sizing segment %s to %d bytes: %w", path, size, err)
	}
	mem, err := unix.Mmap(fd, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		os.Remove(path)
		return nil, fmt.Errorf("shm: mapping segment %s: %w", path, err)
	}
	s := &segment{mem: mem, path: path, nlocal: nlocal, ringSize: ringSize}
	s.u32(offNLocal).Store(uint32(nlocal))
	s.u32(offPid).Store(uint32(os.Getpid()))
	s.u64(offRingSize).Store(ringSize)
	if flags.cma {
		s.u32(offCMA).Store(1)
	}
	if flags.pinned {
		s.u32(offSleepers).Store(1) // for good (wake.go)
	}
	if flags.wakePipe {
		s.u32(offWakePipe).Store(1)
	}
	s.u64(offMagic).Store(magic)
	return s, nil
}

// prefaultRing maps ring i's pages (control, cells and data) now
// (MADV_POPULATE_WRITE, Linux 5.14 and later; elsewhere it does nothing).
// A ring's pages are otherwise faulted in by its first lap, each page on
// each side, which slows a job's first messages (docs/transports-shm.md,
// "Layout"). madvise wants a page-aligned start, which a ring's block has
// only by chance: the range starts at the page that holds the block's
// first byte. (It once started at the ring's data, and madvise refused
// every call.)
func (s *segment) prefaultRing(i int) error {
	b := s.ringBase(i)
	return unix.Madvise(s.mem[b&^(pageSize-1):b+ringBlock(s.ringSize)], unix.MADV_POPULATE_WRITE)
}

// attachSegment maps a peer's segment. The peer creates it before the
// barrier that precedes Join, so it normally exists; a short bounded retry covers a peer
// that is still writing its header.
func attachSegment(path string, nlocal int) (*segment, error) {
	deadline := time.Now().Add(2 * time.Second)
	for {
		s, err := tryAttach(path, nlocal)
		if err == nil || !errors.Is(err, errNotReady) || time.Now().After(deadline) {
			return s, err
		}
		time.Sleep(time.Millisecond)
	}
}

var errNotReady = errors.New("shm: peer segment not ready")

func tryAttach(path string, nlocal int) (*segment, error) {
	fd, err := unix.Open(path, unix.O_RDWR|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.ENOENT) {
		return nil, fmt.Errorf("%w: %s does not exist", errNotReady, path)
	}
	if err != nil {
		return nil, fmt.Errorf("shm: opening peer segment %s: %w", path, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, fmt.Errorf("shm: stat %s: %w", path, err)
	}
	if st.Size < pageSize {
		return nil, fmt.Errorf("%w: %s has %d bytes", errNotReady, path, st.Size)
	}
	mem, err := unix.Mmap(fd, 0, int(st.Size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("shm: mapping peer segment %s: %w", path, err)
	}
	s := &segment{mem: mem, path: path}
	if s.u64(offMagic).Load() != magic {
		unix.Munmap(mem)
		return nil, fmt.Errorf("%w: %s has no header yet", errNotReady, path)
	}
	s.nlocal = int(s.u32(offNLocal).Load())
	s.ringSize = s.u64(offRingSize).Load()
	switch {
	case s.nlocal != nlocal:
		err = fmt.Errorf("shm: segment %s is for %d local processes, want %d", path, s.nlocal, nlocal)
	case s.ringSize < minRing || s.ringSize > maxRing || s.ringSize&(s.ringSize-1) != 0:
		err = fmt.Errorf("shm: segment %s has bad ring size %d", path, s.ringSize)
	case int64(segmentSize(s.nlocal, s.ringSize)) != st.Size:
		err = fmt.Errorf("shm: segment %s has %d bytes, its header implies %d", path, st.Size, segmentSize(s.nlocal, s.ringSize))
	}
	if err == nil && s.u32(offWakePipe).Load() != 0 {
		// The owner made its pipe before it published the header. A pipe
		// gone, or left without its reader, means the owner closed (no
		// one else removes it before every process has mapped the
		// segment): attach without it. A peer that failed at once is
		// then reported as itself, by gompirun, instead of as this
		// process's failure to join; sends to it end on its closed flag
		// or its death.
		s.wakePipe, err = openWakePipe(wakePath(path))
		if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENXIO) {
			s.wakePipe, err = nil, nil
		}
	}
	if err != nil {
		unix.Munmap(mem)
		return nil, err
	}
	s.watchOwner()
	return s, nil
}

// close ends this process's use of the segment: its mapping gives way to
// private zero pages (retire), and the write end of its owner's wake-up
// pipe and its pidfd close once no call uses them. Calls still under way
// may go on reading and writing it without harm.
func (s *segment) close() {
	s.retire()
	s.wakePipe.close()
	s.owner.close()
}

// retire replaces the segment's shared mapping, in one mmap call, with
// private zero pages at the same addresses. Close may come while a
// goroutine is between its check of the transport's closing flag and its
// last access to a ring (a sender waiting for room, a poll): that access
// now reads zeros and writes pages of this process's own, where unmapping
// would fault the process, and where a lock that every send and poll took
// to hold Close off was a large part of their cost (docs/transports-shm.md,
// "Closing"). The shared pages go with their last mapping; the address
// range stays reserved while the process lives, and its zero pages take
// memory only where such a late access writes.
func (s *segment) retire() {
	if len(s.mem) == 0 {
		return
	}
	// An error is not expected (the range is this process's own
	// mapping); the shared mapping would then stay until the process ends.
	unix.MmapPtr(-1, 0, unsafe.Pointer(&s.mem[0]), uintptr(len(s.mem)),
		unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_FIXED|unix.MAP_NORESERVE)
}

// watchOwner opens a pidfd of the process the header names, which alive
// then polls: one system call where a kill and reading /proc/PID/stat
// take several, and it goes on naming that process once its pid is
// reused. Where the kernel has no pidfd (before Linux 5.3) or refuses
// one, and on hosts of more than maxPeerFdProcs processes, alive reads
// /proc.
func (s *segment) watchOwner() {
	if pid := int(s.u32(offPid).Load()); pid > 0 && s.owner == nil && s.nlocal <= maxPeerFdProcs {
		if fd, err := unix.PidfdOpen(pid, 0); err == nil { // close-on-exec
			s.owner = newSharedFd(fd, "pidfd")
		}
	}
}

// alive reports whether the segment's owner may still consume: it has not
// closed, and its process exists.
func (s *segment) alive() bool {
	if s.u32(offClosed).Load() != 0 {
		return false
	}
	// A pidfd is readable once its process has exited, reaped or not.
	if readable, ok := s.owner.readable(); ok {
		return !readable
	}
	pid := int(s.u32(offPid).Load())
	if unix.Kill(pid, 0) == unix.ESRCH {
		return false
	}
	// A killed process its parent has not reaped yet still answers kill.
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return !errors.Is(err, os.ErrNotExist)
	}
	if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) {
		return stat[i+2] != 'Z' && stat[i+2] != 'X'
	}
	return true
}

// Cleanup removes the segment files a job left in dir (/dev/shm when
// empty), for a launcher to call after the job ends: a process that crashed
// never removed its own.
func Cleanup(dir, jobID string) error {
	if dir == "" {
		dir = "/dev/shm"
	}
	if jobID == "" || strings.ContainsAny(jobID, "/\x00") {
		return fmt.Errorf("shm: bad job id %q", jobID)
	}
	files, err := filepath.Glob(filepath.Join(dir, "gompi-"+globEscape(jobID)+"-*.shm"))
	if err != nil {
		return fmt.Errorf("shm: %w", err)
	}
	pipes, _ := filepath.Glob(filepath.Join(dir, "gompi-"+globEscape(jobID)+"-*.wake"))
	files = append(files, pipes...)
	var first error
	for _, f := range files {
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) && first == nil {
			first = fmt.Errorf("shm: %w", err)
		}
	}
	return first
}

// RemoveProcess removes what process proc of job made in dir (/dev/shm
// when empty), its segment file and its wake-up pipe, for a launcher whose
// process was killed before it could.
func RemoveProcess(dir, job string, proc int) {
	if dir == "" {
		dir = "/dev/shm"
	}
	p := segmentPath(dir, job, proc)
	os.Remove(p)
	os.Remove(wakePath(p))
}

// staleAge is how long a segment file without a header may have existed
// before RemoveStale takes its creator for dead: creating one takes
// microseconds.
const staleAge = time.Minute

// RemoveStale removes the segment files in dir (/dev/shm when empty) whose
// owner process is gone, with their wake-up pipes: left by jobs killed
// while they started, before every process had mapped them (Join unlinks
// them then). Files of other
// users' live jobs stay, and so do those it cannot read or remove. It
// returns how many it removed.
func RemoveStale(dir string) int {
	if dir == "" {
		dir = "/dev/shm"
	}
	files, _ := filepath.Glob(filepath.Join(dir, "gompi-*.shm"))
	removed := 0
	for _, f := range files {
		if staleSegment(f) && os.Remove(f) == nil {
			removed++
			os.Remove(wakePath(f))
		}
	}
	// A pipe whose segment is gone: its creator died between the two.
	pipes, _ := filepath.Glob(filepath.Join(dir, "gompi-*.wake"))
	for _, p := range pipes {
		if stalePipe(p) && os.Remove(p) == nil {
			removed++
		}
	}
	return removed
}

// stalePipe reports whether the wake-up pipe at path is one of this
// user's with no segment beside it, older than staleAge.
func stalePipe(path string) bool {
	var st unix.Stat_t
	if unix.Lstat(path, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFIFO || int(st.Uid) != os.Getuid() {
		return false
	}
	if _, err := os.Lstat(strings.TrimSuffix(path, ".wake") + ".shm"); !errors.Is(err, os.ErrNotExist) {
		return false
	}
	return time.Since(time.Unix(st.Mtim.Unix())) > staleAge
}

// staleSegment reports whether the segment file at path belongs to a dead
// process: its header names a process that no longer exists, or it has no
// header and is older than staleAge.
func staleSegment(path string) bool {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || int(st.Uid) != os.Getuid() {
		return false
	}
	var hdr [offPid + 4]byte
	n, _ := unix.Pread(fd, hdr[:], 0)
	if m := binary.LittleEndian.Uint64(hdr[offMagic:]); n < len(hdr) || m != magic && !slices.Contains(oldMagics, m) {
		return time.Since(time.Unix(st.Mtim.Unix())) > staleAge
	}
	pid := int(binary.LittleEndian.Uint32(hdr[offPid:]))
	return pid > 0 && unix.Kill(pid, 0) == unix.ESRCH
}

// oldMagics are the headers of earlier layouts ("gompism2" to
// "gompism5"), whose files RemoveStale recognises too (the pid sits at
// the same place).
var oldMagics = []uint64{0x326d7369706d6f67, 0x336d7369706d6f67, 0x346d7369706d6f67, 0x356d7369706d6f67}

// globEscape quotes the pattern characters a job id might contain.
func globEscape(s string) string {
	var b strings.Builder
	for _, c := range s {
		if strings.ContainsRune(`*?[\`, c) {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	return b.String()
}
