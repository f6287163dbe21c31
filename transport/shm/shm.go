//go:build linux

package shm

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gompi/gompi/transport"
)

// RingEnv names the environment variable that sets the bytes per ring of the
// segments this process creates (a power of two, 1 KiB to 1 GiB). Each
// receiver chooses its own; senders read it from the receiver's segment.
// Set, it overrides the bound on a segment's size (SegmentBytes).
const RingEnv = "GOMPI_SHM_RING"

// Ring sizing. A ring has maxRingAuto bytes while a segment's rings fit
// segmentData and the host's all fit hostData; beyond either bound rings
// halve, down to minRing, so that a segment holds at most segmentData bytes
// of rings: whatever the number of processes sending, at most 32 MiB a
// process, and 1 GiB a host while rings can still shrink. The segment of a host of
// MaxLocal processes holds 1 KiB rings, 32 MiB in all. More processes than
// that would make the footprint grow as their square: they do not share
// memory (Open refuses, and MaxLocal says so to launchers).
const (
	maxRingAuto = 512 << 10
	segmentData = 32 << 20
	hostData    = 1 << 30
	MaxLocal    = segmentData / minRing
)

var (
	errClosed   = errors.New("shm: transport closed")
	errPeerGone = errors.New("shm: peer process exited or closed its segment")
)

// Transport reaches the ranks of the other processes of this host through
// their segments, and this process's own ranks directly.
type Transport struct {
	cfg   Config
	base  int // first world rank of this process
	own   *segment
	in    []*inRing // by sending process; nil for this process
	peers []atomic.Pointer[peer]

	cma    bool // this process may read others with process_vm_readv
	cmaWhy string
	// cmaWrite: this process may write others' receive buffers with
	// process_vm_writev (landing.go), until the kernel refuses once.
	cmaWrite atomic.Bool
	// splitCopy: in a real run, this process may write others' memory,
	// so it copies half of a large rendezvous payload itself (split.go).
	splitCopy atomic.Bool
	splits    splits
	splitsOut atomic.Uint64 // split transfers sent (tests)

	landMu sync.Mutex
	lands  map[landKey]remoteBuf // receive buffers named by ACKs, until their DATA is sent
	// spinFor is how long a rank polls before it sleeps (SpinBeforeSleep),
	// zero when the process hosts more ranks than processors.
	spinFor time.Duration
	// pinned: the process hosts more ranks than processors, and its
	// segment's sleepers count stays raised instead of counting (wake.go).
	pinned bool

	// closing is set first thing by Close, which then retires the
	// mappings (segment.retire): operations check it before they touch
	// one, and errors found once it is set are dropped (keepErr).
	closing atomic.Bool
	// attachMu serializes peer attachments, and Close with them: no
	// segment is mapped after Close retired the others.
	attachMu sync.Mutex

	pendMu  sync.Mutex
	pending map[uint64]*transport.Frame // borrowed frames a peer is reading
	nextTok uint64

	ctrlQueued atomic.Int32 // control records waiting for room, all peers
	// Senders parked for room in a peer's ring (awaitRoom); how many such
	// waits parked, and how many ended because the consumer said it freed
	// some.
	roomWaiters atomic.Int32
	roomParks   atomic.Uint64
	roomSignals atomic.Uint64

	// Completion records owed to peers and handled from them, for the
	// job-wide stall detection of virtual runs (Completions).
	donesOwed, donesHandled atomic.Int64

	waiterDone chan struct{}
	wakeIn     *os.File      // the read end of this process's wake-up pipe, the waiter's (wake.go)
	wakeups    atomic.Uint64 // times the waiter woke: what sleeping cost senders

	errMu sync.Mutex
	err   error
}

// peer is this process's view of another local process's segment.
type peer struct {
	proc    int
	seg     *segment
	out     outRing // our ring in its segment
	ctrlMu  sync.Mutex
	ctrl    []ctrlRec
	nctrl   atomic.Int32
	flusher atomic.Bool
}

// ctrlRec is a completion owed to a peer. It is queued because whoever
// produces it (a rank freeing a received frame) must never wait for room in
// a ring: the peer may be waiting for room in ours.
type ctrlRec struct {
	typ   byte
	token uint64
}

// partialFrame is a frame whose payload continues in chunk records: got of
// its due bytes have come.
type partialFrame struct {
	f        *transport.Frame
	ib       *transport.Inbox
	got, due int
}

// Open creates this process's receive segment and registers the transport
// as a poller of cfg.Inboxes. Every process of cfg.Procs calls it before a
// barrier they all meet at, then Join; without Join (tests), peers'
// segments are attached on first use and the files stay until Close.
func Open(cfg Config) (*Transport, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	if cfg.Dir == "" {
		cfg.Dir = "/dev/shm"
	}
	// Our own copies: the caller may reuse its slices.
	cfg.Procs = append([]Proc(nil), cfg.Procs...)
	cfg.Inboxes = append([]*transport.Inbox(nil), cfg.Inboxes...)
	nlocal := len(cfg.Procs)
	ringSize, err := ringSizeFor(nlocal)
	if err != nil {
		return nil, err
	}
	t := &Transport{
		cfg:        cfg,
		base:       cfg.Procs[cfg.LocalProc].Base,
		in:         make([]*inRing, nlocal),
		peers:      make([]atomic.Pointer[peer], nlocal),
		pending:    map[uint64]*transport.Frame{},
		waiterDone: make(chan struct{}),
	}
	// Spin only when every rank of the host can have a processor: with
	// more ranks than cores, a polling rank holds a core its peer needs for
	// a whole scheduler time slice (docs/transports-shm.md, "Receiving and
	// waking", has the measurement).
	if len(cfg.Inboxes)*nlocal <= runtime.NumCPU() && len(cfg.Inboxes) <= runtime.GOMAXPROCS(0) {
		t.spinFor = SpinBeforeSleep
		if d, set, err := spinSetting(); err != nil {
			return nil, err
		} else if set {
			t.spinFor = d
		}
	}
	t.cma, t.cmaWhy = probeCMA()
	t.cmaWrite.Store(t.cma && cfg.LendCopies && probeCMAWrite())
	t.splitCopy.Store(t.cma && !cfg.LendCopies && os.Getenv(SplitEnv) != "0" && probeCMAWrite())
	t.pinned = len(cfg.Inboxes) > runtime.GOMAXPROCS(0)
	path := t.segmentPath(cfg.LocalProc)
	// The pipe first: a peer that finds the segment's header opens it.
	var wakeOut *sharedFd
	if mayWaitOnPipe(t.spinFor, t.pinned, nlocal) {
		if t.wakeIn, wakeOut, err = createWakePipe(wakePath(path)); err != nil {
			return nil, err
		}
	}
	t.own, err = createSegment(path, nlocal, ringSize, segmentFlags{cma: t.cma, pinned: t.pinned, wakePipe: t.wakeIn != nil})
	if err != nil {
		if t.wakeIn != nil {
			t.wakeIn.Close()
			wakeOut.close()
			os.Remove(wakePath(path))
		}
		return nil, err
	}
	t.own.wakePipe = wakeOut
	for i := range t.in {
		if i != cfg.LocalProc {
			t.in[i] = &inRing{ringView: t.own.ring(i), from: i}
			t.own.prefaultRing(i) // best effort: an old kernel faults on first use
		}
	}
	for _, ib := range cfg.Inboxes {
		ib.AddPoller(t)
	}
	go t.waiter()
	return t, nil
}

func (c *Config) check() error {
	switch {
	case c.JobID == "" || strings.ContainsAny(c.JobID, "/\x00"):
		return fmt.Errorf("shm: bad job id %q", c.JobID)
	case len(c.Procs) < 1 || c.LocalProc < 0 || c.LocalProc >= len(c.Procs):
		return fmt.Errorf("shm: local process %d of %d", c.LocalProc, len(c.Procs))
	case len(c.Procs) > MaxLocal:
		return fmt.Errorf("shm: %d processes on one host; at most %d share memory", len(c.Procs), MaxLocal)
	}
	end := 0
	for i, p := range c.Procs {
		if p.ID < 0 || p.Base < end || p.N < 1 || i > 0 && p.ID == c.Procs[i-1].ID {
			return fmt.Errorf("shm: Procs %v: want distinct processes hosting ascending, disjoint blocks of ranks", c.Procs)
		}
		end = p.Base + p.N
	}
	if n := c.Procs[c.LocalProc].N; len(c.Inboxes) != n {
		return fmt.Errorf("shm: %d inboxes for the %d ranks of local process %d", len(c.Inboxes), n, c.LocalProc)
	}
	for i, ib := range c.Inboxes {
		if ib == nil {
			return fmt.Errorf("shm: inbox %d is nil", i)
		}
	}
	return nil
}

// ringSizeFor picks the ring size of a segment for nlocal processes (see
// maxRingAuto), or RingEnv's.
func ringSizeFor(nlocal int) (uint64, error) {
	if n, set, err := ringSetting(); set || err != nil {
		return n, err
	}
	n := uint64(nlocal)
	size := uint64(maxRingAuto)
	for size > minRing && (n*size > segmentData || n*n*size > hostData) {
		size /= 2
	}
	return size, nil
}

// SegmentBytes is the shared memory one process's segment takes on a host
// where nlocal processes share memory: what a launcher multiplies by the
// processes of a host to see whether they fit. It honours RingEnv, as Open
// does.
func SegmentBytes(nlocal int) (int64, error) {
	if nlocal < 1 || nlocal > MaxLocal {
		return 0, fmt.Errorf("shm: %d processes on one host; at most %d share memory", nlocal, MaxLocal)
	}
	ring, err := ringSizeFor(nlocal)
	if err != nil {
		return 0, err
	}
	return int64(segmentSize(nlocal, ring)), nil
}

// segmentPath names local process p's segment file by its index in the
// job.
func (t *Transport) segmentPath(p int) string {
	return segmentPath(t.cfg.Dir, t.cfg.JobID, t.cfg.Procs[p].ID)
}

// Path says how large (rendezvous) payloads travel from this process.
func (t *Transport) Path() string {
	if t.cmaWrite.Load() {
		return "single copy (process_vm_writev into the receive buffer)"
	}
	if t.cma && t.cfg.LendCopies {
		return "single copy (process_vm_readv) of a copy the sender lends"
	}
	if t.cma && t.splitCopy.Load() {
		return "single copy (process_vm_readv; a large payload's tail written by its sender with process_vm_writev)"
	}
	if t.cma {
		return "single copy (process_vm_readv)"
	}
	return "copy through the ring (" + t.cmaWhy + ")"
}

// Err returns the first fault found in an incoming ring (a corrupt record or
// a failed read), after which that ring is no longer read.
func (t *Transport) Err() error {
	t.errMu.Lock()
	defer t.errMu.Unlock()
	return t.err
}

func (t *Transport) fail(r *inRing, err error) {
	r.broken = err
	t.keepErr(err)
}

// keepErr records err as the transport's fault unless one is recorded or
// the transport is closing: what a ring seems to hold then may be the zero
// pages Close left (segment.retire).
func (t *Transport) keepErr(err error) {
	if t.closing.Load() {
		return
	}
	t.errMu.Lock()
	if t.err == nil {
		t.err = err
	}
	t.errMu.Unlock()
}

// procOf returns the local process hosting world rank d, or -1.
func (t *Transport) procOf(d int) int {
	ps := t.cfg.Procs
	// sort.Search's, without its function value: every send asks.
	i, j := 0, len(ps)
	for i < j {
		if m := int(uint(i+j) >> 1); ps[m].Base+ps[m].N > d {
			j = m
		} else {
			i = m + 1
		}
	}
	if i == len(ps) || d < ps[i].Base {
		return -1
	}
	return i
}

func (t *Transport) inboxOf(d int32) (*transport.Inbox, error) {
	i := int(d) - t.base
	if i < 0 || i >= len(t.cfg.Inboxes) {
		return nil, fmt.Errorf("shm: frame for rank %d, which process %d does not host", d, t.cfg.LocalProc)
	}
	return t.cfg.Inboxes[i], nil
}

// peer returns the attached peer p, attaching on first use.
func (t *Transport) peer(p int) (*peer, error) {
	if pr := t.peers[p].Load(); pr != nil {
		return pr, nil
	}
	t.attachMu.Lock()
	defer t.attachMu.Unlock()
	if pr := t.peers[p].Load(); pr != nil {
		return pr, nil
	}
	if t.closing.Load() {
		return nil, errClosed
	}
	seg, err := attachSegment(t.segmentPath(p), len(t.cfg.Procs))
	if err != nil {
		return nil, err
	}
	pr := &peer{proc: p, seg: seg}
	pr.out.ringView = seg.ring(t.cfg.LocalProc)
	pr.out.room = make(chan struct{}, 1)
	seg.prefaultRing(t.cfg.LocalProc) // best effort, as in Open
	pr.out.pos = pr.out.tail.Load()
	pr.out.seenHead = pr.out.head.Load()
	t.peers[p].Store(pr)
	return pr, nil
}

// Join maps the segment of every other local process that opened one
// (opened, by local process; the caller learns it at a barrier that follows
// every local process's Open), and unlinks each segment file once every
// process that will map it has: from then on the memory lives exactly as
// long as the processes that map it, whatever ends them. A segment counts
// its mappers: the owner counts itself and the peers that will never map
// it, each peer counts itself, and whoever completes the count unlinks.
func (t *Transport) Join(opened []bool) error {
	if len(opened) != len(t.cfg.Procs) {
		return fmt.Errorf("shm: Join with %d processes, want %d", len(opened), len(t.cfg.Procs))
	}
	if t.closing.Load() {
		return errClosed
	}
	nlocal := uint32(len(opened))
	absent := uint32(0)
	for p, ok := range opened {
		if !ok && p != t.cfg.LocalProc {
			absent++
		}
	}
	var first error
	mapped := func(seg *segment) {
		if seg.u32(offMapped).Add(1) == nlocal {
			for _, f := range []string{seg.path, wakePath(seg.path)} {
				if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) && first == nil {
					first = fmt.Errorf("shm: unlinking mapped segment: %w", err)
				}
			}
		}
	}
	t.own.u32(offMapped).Add(absent)
	mapped(t.own)
	for p, ok := range opened {
		if !ok || p == t.cfg.LocalProc {
			continue
		}
		pr, err := t.peer(p)
		if err != nil {
			return err
		}
		mapped(pr.seg)
	}
	return first
}

// Close stops the waiter, retires every mapping (segment.retire) and
// removes this process's segment files. Senders blocked on a full ring
// return an error. Operations that began before Close and are still under
// way finish against zero pages, which fault nothing but carry nothing: a
// message sent then may be lost, a receive completed then may hold zeros.
// A process whose ranks may still run when it ends (a failed job) calls
// Abandon instead.
func (t *Transport) Close() error {
	if !t.closing.CompareAndSwap(false, true) {
		return nil
	}
	t.own.u32(offClosed).Store(1)
	wake(t.own)
	<-t.waiterDone
	t.attachMu.Lock()
	for i := range t.peers {
		if pr := t.peers[i].Load(); pr != nil {
			pr.seg.close()
		}
	}
	t.attachMu.Unlock()
	t.own.close()
	return t.removeFiles()
}

// Abandon is Close for a process about to exit while its ranks may still
// run: operations from then on return errClosed or find nothing, the
// peers' senders stop waiting for room, and this process's segment files
// are removed, but the mappings are left to the exit, so that nothing
// under way reads zeros.
func (t *Transport) Abandon() {
	if !t.closing.CompareAndSwap(false, true) {
		return
	}
	t.own.u32(offClosed).Store(1)
	t.removeFiles()
}

func (t *Transport) removeFiles() error {
	if t.wakeIn != nil {
		t.wakeIn.Close()
		os.Remove(wakePath(t.own.path))
	}
	if err := os.Remove(t.own.path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("shm: removing segment: %w", err)
	}
	return nil
}
