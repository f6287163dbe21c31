package mpi

import (
	"fmt"
	"path/filepath"
	"runtime/debug"
	"unsafe"

	"github.com/gompi/gompi/internal/record"
	"github.com/gompi/gompi/vtime"
)

// Records (gompirun -record DIR): each rank of a virtual run writes the
// stream of its user-level calls (the same calls the timeline shows, with
// the arguments a replay needs: communicator, peers, tags, sizes, element
// types and operations, request identities, the sources AnySource
// receives matched) and the computation bursts its clock measured, into
// DIR/rank-NNNNN.rec when its function returns. The recorder is a reader of
// the stream trace.go reads: it is fed at the same points (Comm.enter,
// leave, the Wait and Test brackets) and adds no event point to the
// engine. Replay (replay.go) re-issues the calls on any machine.
//
// Per rank files rather than the launcher's key-value exchange the
// timeline uses: a record grows with the run (bytes per message, not a
// capped number of events), each process writes its own ranks' files in
// parallel, and nothing travels through gompirun.

// Record makes the run record its ranks' streams into dir (created if
// needed; files of an earlier record there are replaced), and writes the
// record's manifest now. Call it before the world runs. In a launched job
// every process calls it (gompirun -record), each writing its own ranks.
func (v *Virtual) Record(dir string) error {
	if v == nil {
		return errNilVirtual
	}
	if dir == "" {
		return fmt.Errorf("mpi: Record: empty directory name")
	}
	err := record.WriteManifest(dir, record.Manifest{
		Format: record.Recorded, Gompi: moduleVersion(), Ranks: v.target.Ranks(),
		CPUScale: v.cpuScale, Machine: v.target.Machine().JSON(),
	})
	if err != nil {
		return fmt.Errorf("mpi: Record: %v", err)
	}
	v.mu.Lock()
	v.recordDir = dir
	v.mu.Unlock()
	return nil
}

// moduleVersion is gompi's version in this binary, "(devel)" when it is
// the main module built from a checkout.
func moduleVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	if bi.Main.Path == "github.com/gompi/gompi" {
		return bi.Main.Version
	}
	for _, d := range bi.Deps {
		if d.Path == "github.com/gompi/gompi" {
			return d.Version
		}
	}
	return "unknown"
}

// recorder is one rank's record (rank.rec; nil when not recording).
type recorder struct {
	out   record.Writer
	path  string
	ranks int
	k     func() int // the host concurrency of the recording, read at the end
	depth int        // user-level calls in progress: only the outermost is recorded
	op    callOp
	args  []int64 // of the call in progress
	// The calls' events not yet encoded (op, argument count, arguments,
	// per call): leave runs inside the computation burst that follows the
	// call (the engine's bracket has closed), so when the rank's bursts
	// are measured (deferred) it only sets the event aside, and the next
	// burst's end (burstTap.End, after the meter's reading) writes it.
	// What the rank computes is then measured without the recorder's
	// encoding and buffer growth in it.
	deferred bool
	pend     []int64
	// Requests get identities 1, 2, ... in the order the rank made them
	// (0 is the null request), held by the request itself (Request.recID,
	// and Request.recAny for an AnySource receive not yet reported
	// complete): no map of the recorder keeps requests alive, and noting
	// one (inside the caller's computation burst, which the call's own
	// bookkeeping is measured in) costs no map insertion.
	nextReq int64
	waited  []*Request // the requests of the Wait or Test in progress
	// unsupported has bit f set once a call of family f of unrecordable
	// was marked.
	unsupported uint32
}

func newRecorder(dir string, id, ranks int, k func() int) *recorder {
	return &recorder{path: filepath.Join(dir, record.RankFile(id)), ranks: ranks, k: k}
}

// burst is a computation burst the rank's meter measured (burstTap),
// after the call event before it.
func (rc *recorder) burst(d float64) {
	rc.flush()
	rc.out.Burst(d)
}

// flush writes the call events set aside by leave: every other write to
// the record comes after them, which keeps the stream in the order of the
// rank's calls and bursts.
func (rc *recorder) flush() {
	for i := 0; i < len(rc.pend); {
		n := int(rc.pend[i+1])
		rc.out.Event(uint8(rc.pend[i]), rc.pend[i+2:i+2+n])
		i += 2 + n
	}
	rc.pend = rc.pend[:0]
}

// maxPend bounds the events set aside (int64s) between two bursts' ends.
const maxPend = 1 << 12

// enter starts a user-level call: its op and the stream's first
// arguments (the communicator's context and the call's a and b, or
// nothing for the Wait and Test family, which has no communicator).
func (rc *recorder) enter(op callOp, c *Comm, a, b int32) {
	if rc.depth++; rc.depth > 1 {
		return
	}
	rc.op, rc.args, rc.waited = op, rc.args[:0], rc.waited[:0]
	if c != nil {
		rc.args = append(rc.args, int64(c.ctx), int64(a), int64(b))
	}
}

// leave ends a user-level call: the outermost one goes to the record.
func (rc *recorder) leave() {
	if rc.depth == 0 {
		return
	}
	if rc.depth--; rc.depth > 0 {
		return
	}
	if len(rc.waited) > 0 {
		rc.completions()
		clear(rc.waited) // keep no request alive past its call
	}
	switch rc.op {
	case callRecv, callProbe:
		if len(rc.args) > 1 && rc.args[1] == AnySource {
			rc.out.Sensitive()
		}
	case callSendrecv:
		if len(rc.args) > 2 && rc.args[2] == AnySource {
			rc.out.Sensitive()
		}
	case callIprobe, callTest, callTestany, callTestsome, callTestall, callWaitany, callWaitsome:
		rc.out.Sensitive()
	}
	rc.pend = append(rc.pend, int64(rc.op), int64(len(rc.args)))
	rc.pend = append(rc.pend, rc.args...)
	if !rc.deferred || len(rc.pend) > maxPend {
		rc.flush()
	}
}

// completions appends to a Wait or Test the AnySource receives it saw
// complete and the sources they matched: the replay posts them from
// those sources (the recorded matching).
func (rc *recorder) completions() {
	n := len(rc.args)
	rc.args = append(rc.args, 0)
	for _, q := range rc.waited {
		if q != nil && q.recAny && q.done.Load() {
			rc.args = append(rc.args, q.recID, int64(q.status.Source))
			q.recAny = false
		}
	}
	rc.args[n] = int64(len(rc.args)-n-1) / 2
}

// noteSize appends a buffer's size in bytes.
func (rc *recorder) noteSize(n int64) {
	if rc.depth == 1 {
		rc.args = append(rc.args, n)
		rc.out.Buffer(n)
	}
}

// note appends arguments to the call in progress.
func (rc *recorder) note(v ...int64) {
	if rc.depth == 1 {
		rc.args = append(rc.args, v...)
	}
}

// noteReq names a request the call made (0 when it failed).
func (rc *recorder) noteReq(q *Request, anySource bool) {
	if rc.depth != 1 {
		return
	}
	id := int64(0)
	if q != nil {
		rc.nextReq++
		id = rc.nextReq
		q.recID = id
		if anySource {
			q.recAny = true
			rc.out.Sensitive()
		}
	}
	rc.args = append(rc.args, id)
}

// noteReq names a request the call on c made.
func (c *Comm) noteReq(q *Request, anySource bool) {
	if rc := c.recording(); rc != nil {
		rc.noteReq(q, anySource)
	}
}

// noteComm records the context of the communicator a Dup, Create or
// Split made (-1 for none).
func (c *Comm) noteComm(nc **Comm) {
	if rc := c.recording(); rc != nil {
		id := int64(-1)
		if *nc != nil {
			id = int64((*nc).ctx)
		}
		rc.note(id)
	}
}

// noteWait records the requests a Wait or Test call is given.
func (rc *recorder) noteWait(reqs []*Request) {
	if rc.depth != 1 {
		return
	}
	rc.args = append(rc.args, int64(len(reqs)))
	for _, q := range reqs {
		id := int64(0)
		if q != nil {
			id = q.recID
		}
		rc.args = append(rc.args, id)
	}
	rc.waited = append(rc.waited, reqs...)
}

// event records an event outside any call (Elapse, Free).
func (rc *recorder) event(op uint8, v ...int64) {
	if rc.depth == 0 {
		rc.flush()
		rc.out.Event(op, v)
	}
}

// finish writes the rank's file.
func (rc *recorder) finish(id int) error {
	rc.flush()
	return rc.out.WriteFile(rc.path, record.Header{Rank: id, Ranks: rc.ranks, HostConcurrency: rc.k()})
}

// Hooks for the exported calls (nil-safe, and one nil check when not
// recording).

func (c *Comm) recording() *recorder {
	if c == nil || c.r == nil {
		return nil
	}
	return c.r.rec
}

// unrecordable are the call families a record does not hold yet (added to
// gompi after record and replay): a program that makes one is recorded up
// to there, with an event naming it, and its replay stops there with an
// error (player.call). Their index in this table is the event's argument.
var unrecordable = []string{
	"a nonblocking collective (Ibarrier, Ibcast, ..., Ineighbor...)",
	"Comm.Idup",
	"a matched probe (Mprobe, Improbe, Mrecv, Imrecv)",
	"Isendrecv or IsendrecvReplace",
	"a buffered or ready send (Bsend, Ibsend, Rsend, Irsend)",
	"a persistent request (SendInit, SsendInit, RecvInit, Start, Startall)",
	"Comm.SplitType or Comm.CreateGroup",
	"a process topology (CartCreate, CartSub, DistGraphCreateAdjacent)",
	"a neighbour collective",
}

const (
	unrecNonblocking = iota
	unrecIdup
	unrecMprobe
	unrecIsendrecv
	unrecBsend
	unrecPersistent
	unrecSplitType
	unrecTopology
	unrecNeighbor
)

// unrecordable marks a call of family f (unrecordable) in c's rank's
// record, once per family.
func (c *Comm) unrecordable(f int) {
	rc := c.recording()
	if rc == nil || rc.unsupported&(1<<f) != 0 {
		return
	}
	rc.unsupported |= 1 << f
	rc.flush()
	rc.out.Event(record.Unsupported, []int64{int64(f)})
}

// noteBytes records a call's buffer size in bytes.
func noteBytes[T Numeric](c *Comm, buf []T) {
	if rc := c.recording(); rc != nil {
		rc.noteSize(int64(len(buf) * sizeOf[T]()))
	}
}

// noteStatus records the source and tag a receive or probe from source
// matched.
func (c *Comm) noteStatus(st Status) {
	if rc := c.recording(); rc != nil {
		rc.note(int64(st.Source), int64(st.Tag))
	}
}

// noteRed records a reduction's element type and operation, and whether
// it is in place: the replay rebuilds the same reduction (reductionFor).
func noteRed[T Numeric](c *Comm, op Op, inPlace bool, loc bool, count int) {
	if rc := c.recording(); rc != nil {
		code, commute := int64(opNull), int64(0)
		if op.d != nil {
			code = int64(op.d.code)
			if op.d.commute {
				commute = 1
			}
		}
		rc.note(int64(kindOf[T]()), code, commute, b2i(inPlace), b2i(loc), int64(count))
		elem := sizeOf[T]()
		if loc {
			elem = int(unsafe.Sizeof(ValIdx[T]{}))
		}
		rc.out.Buffer(int64(count * elem))
	}
}

// noteColl records a data collective's in-place flag and buffer sizes in
// bytes.
func noteColl[T Numeric](c *Comm, inPlace bool, send, recv []T) {
	if rc := c.recording(); rc != nil {
		rc.note(b2i(inPlace))
		rc.noteSize(int64(len(send) * sizeOf[T]()))
		rc.noteSize(int64(len(recv) * sizeOf[T]()))
	}
}

// noteInts records a list of counts or displacements in units of unit
// bytes.
func noteInts(c *Comm, v []int, unit int) {
	if rc := c.recording(); rc != nil && rc.depth == 1 {
		n := int64(unit)
		rc.args = append(rc.args, int64(len(v)))
		for _, x := range v {
			rc.args = append(rc.args, int64(x)*n)
		}
	}
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// burstTap passes the bursts a rank's meter measures to its recorder as
// well as to its clock. Only bursts that began are recorded: the clock
// also ends a burst at every activity's start, inside the engine where
// none runs, and how many activities a call has depends on the host's
// timing (a message found unexpected is DR, one that arrives later is
// dealt with in WT); the bursts that begin are those between the
// engine's outermost brackets, the same in every run of the same calls.
type burstTap struct {
	vtime.Meter
	rec *recorder
	on  bool
}

func (t *burstTap) Begin() {
	t.on = true
	t.Meter.Begin()
}

func (t *burstTap) End() float64 {
	d := t.Meter.End()
	if t.rec != nil {
		if t.on {
			t.rec.burst(d)
		} else {
			t.rec.flush()
		}
	}
	t.on = false
	return d
}

// recordTo is called by newWorld: the clock's bursts go to rc too.
func (c *virtualClock) recordTo(rc *recorder) {
	if tap, ok := c.m.Meter().(*burstTap); ok {
		tap.rec = rc
		rc.deferred = true
	}
}

// startRecord makes r's recorder when the world records (newWorld).
func (r *rank) startRecord(cfg *config) {
	if cfg.recordDir == "" || !r.virtual {
		return
	}
	vc, ok := r.clock.(*virtualClock)
	if !ok {
		return
	}
	v := vc.v
	r.rec = newRecorder(cfg.recordDir, r.id, v.target.Ranks(), func() int {
		v.mu.Lock()
		defer v.mu.Unlock()
		return v.hostConcurrency
	})
	vc.recordTo(r.rec)
}

// endRecord writes r's record when its function has returned.
func (r *rank) endRecord() {
	if r.rec == nil {
		return
	}
	if err := r.rec.finish(r.id); err != nil {
		r.w.fail(&RankError{Rank: r.id, Err: fmt.Errorf("writing the record: %v", err)})
	}
	r.rec = nil
}
