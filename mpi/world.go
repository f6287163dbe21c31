package mpi

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gompi/gompi/internal/wireup"
	"github.com/gompi/gompi/transport"
	"github.com/gompi/gompi/transport/inproc"
)

// DefaultEagerLimit is the largest message, in bytes, sent eagerly (DATA at
// once); larger ones use the rendezvous handshake. Chosen by measurement
// (go test -bench EagerLimit ./mpi): in-process, eager beats the single-copy
// rendezvous up to about 128 KiB, where the extra copy through a pooled
// buffer starts to cost more than the REQ/ACK round trip. 64 KiB keeps a
// margin and bounds what unexpected messages can pin at a receiver.
const DefaultEagerLimit = 64 << 10

// DefaultRemoteEagerLimit is the eager limit for messages to ranks of other
// processes. Between processes an eager payload is copied into and out of a
// shared-memory ring (or a socket) on top of the engine's own copy, while
// the rendezvous DATA of 64 KiB and more is copied once, half by each end
// (transport/shm's split copies), after a REQ/ACK round trip. Measured by
// scripts/osu-settings.sh (docs/mpi.md, "The protocol engine"): up to 128
// KiB the eager message wins, in ping-pongs, streams and the collectives
// whose pieces are that large, since the ring's copies use REP MOVSB; at
// 256 KiB it no longer does. Ranks reached over TCP get
// DefaultNetEagerLimit instead.
const DefaultRemoteEagerLimit = 128 << 10

// DefaultNetEagerLimit is the eager limit for messages to ranks reached
// over TCP (other hosts, or GOMPI_TRANSPORT=tcp), as MPICH's and Open
// MPI's TCP paths send up to 64 KiB eagerly: there a rendezvous costs a
// network round trip before the payload moves, and no single-copy read
// saves a copy. Measured by scripts/osu-settings.sh with
// GOMPI_TRANSPORT=tcp (docs/mpi.md, "The protocol engine").
const DefaultNetEagerLimit = 64 << 10

// EagerLimitEnv names the environment variable that overrides the eager
// limit (bytes, decimal) for every world the process creates.
const EagerLimitEnv = "GOMPI_EAGER_LIMIT"

// Option configures a world made by Run.
type Option func(*config)

type config struct {
	eagerLimit  int // to ranks of this process
	eagerRemote int // to ranks of other processes, over shared memory
	eagerNet    int // to ranks of other processes, over TCP
	clocks      func(worldRank int) eventClock
	// targetEager is the target machine's eager limit for a message from
	// src to dst (virtual mode; nil in real mode). It replaces eagerLimit
	// and eagerRemote for ranks with a virtual clock.
	targetEager func(src, dst int) int
	// traced says which world ranks record a timeline (trace.go), and
	// traceMax how many events each may keep; nil: none.
	traced     func(worldRank int) bool
	traceMax   int
	traceEpoch time.Time // host times count from here
	// recordDir: the ranks with a virtual clock record their calls there
	// (record.go); "" when not recording.
	recordDir string
	// messageColls: virtual collectives always run by messages, never at
	// the bulk gate (coll_bulk.go); tests compare the two.
	messageColls bool
}

// WithEagerLimit sets the eager limit in bytes, for every destination
// (empty messages are always eager, so 0 sends every other message by
// rendezvous).
func WithEagerLimit(n int) Option {
	return func(c *config) { c.eagerLimit, c.eagerRemote, c.eagerNet = n, n, n }
}

// WithClocks installs a virtual-time clock per rank (the virtual-time
// runtime uses it; nil means real mode).
func withClocks(f func(worldRank int) eventClock) Option { return func(c *config) { c.clocks = f } }

func newConfig(opts []Option) (*config, error) {
	c := &config{eagerLimit: DefaultEagerLimit, eagerRemote: DefaultRemoteEagerLimit, eagerNet: DefaultNetEagerLimit}
	if s := os.Getenv(EagerLimitEnv); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("mpi: %s=%q: want a non-negative byte count", EagerLimitEnv, s)
		}
		c.eagerLimit, c.eagerRemote, c.eagerNet = n, n, n
	}
	for _, o := range opts {
		o(c)
	}
	if c.eagerLimit < 0 || c.eagerRemote < 0 || c.eagerNet < 0 {
		return nil, fmt.Errorf("mpi: eager limit %d is negative", c.eagerLimit)
	}
	return c, nil
}

// world is one job as seen from one process: its size, the ranks this
// process hosts, and how the job ends.
type world struct {
	partial *partialPublisher // a gompirun job's partial records (virtual_partial.go); nil otherwise
	size    int
	base    int     // world rank of ranks[0]
	ranks   []*rank // hosted ranks
	out     transport.Transport
	// copier says which routes copy an eager payload before Send returns,
	// so that the engine lends them the user's buffer (nil: none do).
	copier transport.SendCopier
	// small holds, by world rank, the route that takes a real rank's
	// small blocking Send without a request or a frame (p2p_small.go):
	// nil where none does, and nil for a virtual run. smallMax is the
	// longest payload any of them takes.
	small    []transport.SmallSender
	smallMax int
	local    bool // every rank of the job is in this process (deadlock detection is sound)
	// overTCP reports whether a rank of another process is reached over
	// TCP, whose sends use eagerNet; nil when none is (Run, or a job of
	// one host over shared memory).
	overTCP func(worldRank int) bool

	// The eager limits: to ranks hosted by this process, to ranks of
	// other processes over shared memory and over TCP; in virtual mode
	// targetEager, the target machine's limit for a message from src to
	// dst, replaces them for ranks with a clock (nil in real mode).
	eagerLimit, eagerRemote, eagerNet int
	targetEager                       func(src, dst int) int
	pollCost                          float64 // virtual time a poll takes (virtual_sensitive.go)

	start  time.Time
	exitFn func(code int) // process-level abort (Main); nil for Run

	aborted  atomic.Bool
	failOnce sync.Once
	failure  error

	alive   atomic.Int64         // hosted ranks whose function has not returned
	running sync.WaitGroup       // hosted ranks' goroutines that have not ended (run)
	spin    *transport.SpinGroup // awake hosted ranks, to decide whether waiting ranks spin
	stalls  atomic.Int64         // virtual mode: parked ranks holding early messages others wait for (virtual_stall.go)
	// settledAt is the float64 bits of the latest time at which every rank
	// was seen parked with no pending event before it (resolveStall): no
	// message still to come arrives before it (forgetSettled).
	settledAt atomic.Uint64
	agent     *quiesceAgent // virtual mode over several processes: job-wide stall detection; nil otherwise
	// countCross: the ranks count the frames they take from other
	// processes (rank.arrived), for the agent or the gate across processes.
	countCross bool
	bulk       *bulkGate // virtual mode: where collectives computed without messages meet (coll_bulk.go); nil otherwise
	lastAwake  int       // the rank the deadlock watcher last found awake (allAsleep)
}

// rank is one MPI process: its engine state. All fields but the atomics are
// touched only by the rank's goroutine.
//
// A virtual run may host a million ranks in one process, so the fields are
// ordered to leave no padding and what few ranks use is in rare, allocated
// on first use: the struct is 448 bytes, a size class of Go's allocator
// (TestRankSize; docs/model.md, "Fewer bytes per rank").
type rank struct {
	w       *world
	id      int
	inbox   *transport.Inbox
	clock   eventClock
	virtual bool

	// What every message touches, sender and receiver, together on the
	// line after the one above (collectives at the bulk gate touch little
	// else of a rank).
	settled     bool        // the current poll's answer is final
	settleGuess bool        // ... speculatively (no confirmed quiescence)
	polling     bool        // a poll waits for the job to settle (virtual_sensitive.go)
	returned    bool        // the user's function returned (main)
	finished    atomic.Bool // the rank has left the world (exit); other goroutines read it
	call        userCall    // the user-level call the rank is in (calls.go)
	nextID      uint64      // the last request id given
	waitEpoch   uint64      // the current waiting phase's mark on its requests
	window      float64     // no message can reach any rank before this time until this rank sends (virtual_window.go)
	stats       rankStats

	posted     []*Request         // posted receives, in posting order
	unexpected []*transport.Frame // eager DATA and REQ not matched yet, arrival order
	early      []earlyMsg         // Algorithm 2's early queue (virtual mode), arrival order
	probe      *Request           // the pattern a Probe's waiting phase looks for (nil otherwise)
	deferrals  int32              // deferred receives and Probes not yet decided
	anyCursor  int32
	trace      *tracer   // the rank's timeline (trace.go); nil when not traced
	rec        *recorder // the rank's record (record.go); nil when not recording
	rare       *rankRare // nil until the first use (rareState)
	bulkSeq    uint64    // collectives that went to the bulk gate (coll_bulk.go)

	blockReq *Request   // reused by blocking Send and Recv, which finish with it before returning; nil until the first (blockRequest)
	spare    *collSpare // reused by blocking collectives (coll.go); nil until the first needs it

	ctxUsed   ctxMask
	worldComm *Comm
	blockedIn atomic.Uint64 // call.packed() while parked, 0 otherwise
	nbc       nbcState      // outstanding nonblocking collectives (schedule.go)
	stallState
}

// rankRare is the state of a rank that only some programs use:
// rendezvous messages, buffered sends, temporally sensitive calls and, in
// virtual mode, stalls.
type rankRare struct {
	sends    map[uint64]*Request // rendezvous sends waiting for their ACK; nil until the first
	recvs    map[uint64]*Request // matched receives waiting for rendezvous DATA; nil until the first
	bsend    *bsendBuffer        // the attached buffer of buffered sends (bsend.go); nil when none
	probeHit *transport.Frame    // the frame a deferred Probe was decided for (virtual_sensitive.go)
	pick     *pickState          // a Waitany or Waitsome choosing in virtual time (virtual_waitany.go)
	pollAt   float64             // the virtual time a poll answers for (polling)
	sensitiveCounts
	smallHdr transport.Header // sendSmall's header, written in place for SendSmall to read (p2p_small.go)
}

// sensitiveCounts counts a rank's temporally sensitive calls and stalls
// for the virtual-time report (rankStats has the rest): a rank that makes
// none has none, and most ranks of a large world make none.
type sensitiveCounts struct {
	temporal      int64 // temporally sensitive calls (Test*, Iprobe, Waitany, Waitsome, AnySource)
	temporalExact int64 // of which answered in virtual time (virtual_sensitive.go)
	stalls        int64 // Algorithm 2 stalls resolved in blocking waits exactly (virtual_stall.go)
	speculative   int64 // ... and speculatively
}

// sensitive returns r's counts of temporally sensitive calls and stalls,
// zero for a rank that has made none.
func (r *rank) sensitive() sensitiveCounts {
	if r.rare == nil {
		return sensitiveCounts{}
	}
	return r.rare.sensitiveCounts
}

// rareState returns r.rare, made on first use.
func (r *rank) rareState() *rankRare {
	if r.rare == nil {
		r.rare = new(rankRare)
	}
	return r.rare
}

// rankStats counts a rank's traffic; the virtual-time report uses it.
type rankStats struct {
	sent, recvd           int64
	sentBytes, recvdBytes int64
	dropped               int32
	gated                 int32 // collectives computed at the gate (coll_bulk.go)
}

func newWorld(size, base, nlocal int, cfg *config) *world {
	w := &world{
		size: size, base: base, start: time.Now(),
		eagerLimit: cfg.eagerLimit, eagerRemote: cfg.eagerRemote, eagerNet: cfg.eagerNet,
		targetEager: cfg.targetEager,
	}
	if cfg.clocks != nil {
		prepareVirtualHeap(nlocal) // before the ranks' state and stacks
		if !cfg.messageColls {
			w.bulk = newBulkGate(w)
		}
	}
	group := worldGroup(size) // immutable: the ranks share it
	w.ranks = make([]*rank, nlocal)
	inboxes := make([]*transport.Inbox, nlocal)
	w.spin = transport.NewSpinGroup(nlocal, runtime.GOMAXPROCS(0))
	for i := range w.ranks {
		inboxes[i] = transport.NewInbox()
		inboxes[i].SetSpinGroup(w.spin)
	}
	for i := range w.ranks {
		r := &rank{w: w, id: base + i, inbox: inboxes[i], clock: nopClock{}}
		if cfg.clocks != nil {
			if c := cfg.clocks(r.id); c != nil {
				r.clock, r.virtual = c, true
				if a, ok := c.(interface{ attach(*rank) }); ok {
					a.attach(r) // the virtual-time report reads r.stats
				}
			}
		}
		if cfg.traced != nil && cfg.traced(r.id) {
			r.trace = &tracer{max: cfg.traceMax, real: cfg.traceEpoch, traced: cfg.traced}
		}
		if !r.virtual {
			// Small messages straight from a transport to a posted
			// receive (transport.Inbox.SetDirect); a virtual rank's
			// clock must see every frame (dispatch).
			r.inbox.SetDirect(r.takeDirect)
		}
		r.startRecord(cfg)
		r.ctxUsed.set(0) // MPI_COMM_WORLD
		r.worldComm = &Comm{r: r, ctx: 0, group: group, rank: r.id, world: true}
		w.ranks[i] = r
	}
	return w
}

// Run runs fn on n ranks that are goroutines of this process, over the
// in-process transport, and returns when every rank has returned. It is the
// in-process world for tests and tools: the first failure (a rank returning
// an error, panicking or calling Abort) aborts the others, which leave their
// next MPI call, and Run returns that failure. A deadlock (every unfinished
// rank blocked with nothing in flight) is reported as a *DeadlockError.
func Run(n int, fn func(c *Comm) error, opts ...Option) error {
	if n < 1 {
		return fmt.Errorf("mpi: Run needs at least one rank, got %d", n)
	}
	if fn == nil {
		return errors.New("mpi: Run needs a function to run, got nil")
	}
	cfg, err := newConfig(opts)
	if err != nil {
		return err
	}
	w := newWorld(n, 0, n, cfg)
	w.local = true
	if v := os.Getenv(SpinEnv); v != "" { // as in a launched job
		spin, err := wireup.ParseSpin(v)
		if err != nil {
			return fmt.Errorf("%s=%q: %v", SpinEnv, v, err)
		}
		for _, r := range w.ranks {
			r.inbox.SetSpin(spin)
		}
	}
	inboxes := make([]*transport.Inbox, n)
	for i, r := range w.ranks {
		inboxes[i] = r.inbox
	}
	w.out = inproc.New(0, inboxes)
	return w.run(fn)
}

// run starts a goroutine per hosted rank and waits for them.
func (w *world) run(fn func(c *Comm) error) error {
	w.alive.Store(int64(len(w.ranks)))
	stop := make(chan struct{})
	if w.local {
		go w.watchDeadlock(stop)
	}
	w.running.Add(len(w.ranks))
	for _, r := range w.ranks {
		go r.main(fn)
	}
	w.running.Wait()
	close(stop)
	return w.failure
}

// main is one rank's life: E_Start, the user's function, E_End. Its
// frame is under every frame of the rank's calls, so what it does before
// and after the user's function is out of line (coll_bulk.go, meet, says
// why frames matter).
func (r *rank) main(fn func(c *Comm) error) {
	defer r.exit()
	r.start()
	r.finish(fn(r.worldComm))
	r.returned = true
}

// start is the rank's E_Start.
//
//go:noinline
func (r *rank) start() {
	r.clock.SimStart()
	if r.trace != nil {
		r.trace.last = r.traceNow()
	}
}

// finish ends a rank whose function returned err: buffered sends
// delivered, E_End, its record.
//
//go:noinline
func (r *rank) finish(err error) {
	if err == nil {
		// Buffered messages are delivered before the rank ends, as
		// MPICH's MPI_Finalize delivers them (bsend.go).
		err = r.drainBsend()
	}
	if err != nil {
		r.w.fail(&RankError{Rank: r.id, Err: err})
	}
	if r.trace != nil {
		r.traceEnd()
	}
	r.clock.SimEnd()
	if err == nil {
		r.endRecord() // after E_End, which ends the last burst
	}
}

// exit is deferred by main: the rank leaves the world, and one that did
// not return (a panic, runtime.Goexit) fails the job.
func (r *rank) exit() {
	defer r.w.running.Done()
	r.finished.Store(true)
	r.w.alive.Add(-1)
	r.w.spin.Leave()
	if r.virtual && r.w.local {
		r.w.resolveStall(nil, false) // the last rank awake may leave a stall behind (virtual_stall.go)
	} else if q := r.w.agent; q != nil {
		q.poke()
	}
	if a, ok := r.clock.(interface{ abandon() }); ok {
		// A rank dying mid-burst gives back its CPU slot, as a pinned
		// one does after its last (virtualClock.pin).
		a.abandon()
	}
	if r.returned {
		return
	}
	if p := recover(); p != nil {
		r.w.fail(&RankError{Rank: r.id, Err: fmt.Errorf("%v\n%s", p, debug.Stack()), Panic: true})
	} else if !r.w.aborted.Load() {
		// runtime.Goexit from user code (t.FailNow, say).
		r.w.fail(&RankError{Rank: r.id, Err: errors.New("rank goroutine exited without returning")})
	}
}

// fail records the job's first failure and aborts it.
func (w *world) fail(err error) {
	w.failOnce.Do(func() {
		w.failure = err
		w.aborted.Store(true)
		if w.exitFn != nil {
			// Before the kicks: woken ranks would leave, and Run return
			// the failure and end the process, before the report reached
			// gompirun (a deadlock then read "exited with status 1").
			w.exitFn(exitCodeFor(err))
		}
		for _, r := range w.ranks {
			r.inbox.Kick()
		}
	})
}

func exitCodeFor(err error) int {
	var ae *AbortError
	if errors.As(err, &ae) {
		return ae.Code
	}
	return 1
}

// checkAbort ends the calling rank's goroutine once the job is aborted: the
// in-process analogue of the process being killed.
func (r *rank) checkAbort() {
	if r.w.aborted.Load() {
		runtime.Goexit()
	}
}

// control handles a Ctrl frame that reaches a rank. None does today: job
// control goes through gompirun's exchange (failure reports, barriers) and
// transports keep their own control records (shm's completions), so such a
// frame is dropped rather than matched as a message.
func (w *world) control(r *rank, f *transport.Frame) {
	f.Release()
}

// watchDeadlock reports a deadlock when, three times in a row 100 ms apart
// and in the same naps, every unfinished rank is asleep with an empty inbox
// and no wake-up pending. In a world
// whose ranks are all in this process nothing else can wake them, so the
// report is certain, not a guess.
func (w *world) watchDeadlock(stop <-chan struct{}) {
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	strikes := 0
	// Two buffers of naps, the last scan's and this one's, swapped: the
	// watcher allocates nothing per tick (a million-rank world would
	// allocate 8 MB ten times a second).
	naps, now := make([]uint64, len(w.ranks)), make([]uint64, len(w.ranks))
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		if w.aborted.Load() {
			return
		}
		ok := w.allAsleep(now)
		if ok && w.resolveStall(nil, false) != nil {
			ok = false // a stall of Algorithm 2, not a deadlock: resolved
		} else if !ok && w.stalls.Load() > 0 {
			// Ranks that compute may have passed the earliest pending
			// event since the last rank parked (computingBound).
			w.resolveStall(nil, false)
		}
		if ok && (strikes == 0 || equalU64(now, naps)) {
			strikes++
		} else if ok {
			strikes = 1
		} else {
			strikes = 0
		}
		naps, now = now, naps
		if strikes >= 3 {
			var blocked []string // w.ranks is in rank order, and so is the report
			for _, r := range w.ranks {
				if r.finished.Load() {
					continue
				}
				blocked = append(blocked, r.state())
			}
			w.fail(&DeadlockError{Blocked: blocked})
			return
		}
	}
}

// allAsleep samples every unfinished rank; ok is true when all are asleep.
// It fills naps (one per rank) with the naps they are in (finished ranks
// count as 0). It looks first at the rank the last scan found awake, which
// is usually still awake: most scans then cost one rank, not a pass over
// every rank up to the first awake one, which at a million ranks parked
// at the bulk gate cost the run much of its processor time (docs/model.md,
// "Collectives computed at the gate"). Only the watcher calls it.
func (w *world) allAsleep(naps []uint64) (ok bool) {
	if w.bulk.computing() {
		return false // a rank computes a collective for the others (coll_bulk.go)
	}
	if i := w.lastAwake; i < len(w.ranks) && !w.ranks[i].sleepingInCall() {
		return false
	}
	n := 0
	for i, r := range w.ranks {
		if r.finished.Load() {
			naps[i] = 0
			continue
		}
		asleep, nap := r.inbox.Asleep()
		if !asleep || r.blockedIn.Load() == 0 {
			w.lastAwake = i
			return false
		}
		naps[i] = nap
		n++
	}
	return n > 0
}

// sleepingInCall reports whether the rank is finished or asleep in an MPI
// call, as allAsleep counts it.
func (r *rank) sleepingInCall() bool {
	if r.finished.Load() {
		return true
	}
	asleep, _ := r.inbox.Asleep()
	return asleep && r.blockedIn.Load() != 0
}

func equalU64(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
