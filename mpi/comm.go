package mpi

import (
	"encoding/binary"
	"math/bits"
	"runtime"
	"sort"
	"time"

	"github.com/gompi/gompi/internal/record"
)

// Comm is a communicator (MPI_Comm) as held by one rank: a group, the rank's
// place in it, and a context id that keeps its traffic apart from every
// other communicator's. Each rank has its own *Comm values; use a Comm only
// from the goroutine of the rank it belongs to (MPI_THREAD_FUNNELED). A nil
// *Comm is MPI_COMM_NULL.
//
// Every virtual rank holds its COMM_WORLD, so the fields are ordered to
// leave no padding, and what few communicators have is apart
// (TestCommSize).
type Comm struct {
	r     *rank
	group *Group
	rank  int
	extra *commExtra // nil until a topology or a name
	ctx   uint32     // point-to-point context; ctx+1 is the collective context
	nbcN  uint32     // nonblocking collectives started on c: their tag sequence (schedule.go)
	freed bool
	world bool
	idup  bool // made by Idup, whose request has not completed (comm_idup.go)
}

// commExtra is what a communicator has only once made with a topology or
// named. Each communicator has its own.
type commExtra struct {
	topo  topology // Cartesian or distributed-graph topology; nil for none (topo.go)
	name  string   // SetName (comm_extra.go)
	named bool
}

// topology is c's topology, nil for none.
func (c *Comm) topology() topology {
	if c.extra == nil {
		return nil
	}
	return c.extra.topo
}

// withTopology sets c's topology (t nil: none) and returns c.
func (c *Comm) withTopology(t topology) *Comm {
	if t == nil && c.extra == nil {
		return c
	}
	if c.extra == nil {
		c.extra = new(commExtra)
	}
	c.extra.topo = t
	return c
}

// The accessors have no error result, so on a nil communicator (which Split
// and Create return to the ranks they leave out) they answer as for no
// communicator at all: Rank Undefined, Size 0, Group nil (the null group).

// Rank is the calling rank's rank in the communicator (MPI_Comm_rank);
// Undefined for a nil communicator.
func (c *Comm) Rank() int {
	if c == nil {
		return Undefined
	}
	return c.rank
}

// Size is the number of ranks in the communicator (MPI_Comm_size); 0 for a
// nil communicator.
func (c *Comm) Size() int {
	if c == nil {
		return 0
	}
	return c.group.n
}

// Group returns the communicator's group (MPI_Comm_group); nil for a nil
// communicator.
func (c *Comm) Group() *Group {
	if c == nil {
		return nil
	}
	g := *c.group
	g.me = int32(c.r.id)
	return &g
}

// WorldRank is the world rank of rank i of this communicator, or Undefined
// when i is not a rank of it.
func (c *Comm) WorldRank(i int) int {
	if i < 0 || i >= c.Size() {
		return Undefined
	}
	return c.group.worldRank(i)
}

func (c *Comm) rankOfWorld(w int) int {
	if c == nil {
		return w
	}
	return c.group.rankOf(w)
}

// Wtime is the rank's clock in seconds (MPI_Wtime): virtual time in a
// virtual run, host time since the job started otherwise. Applications must
// time themselves with it, not time.Now, so that predictions report
// predicted times. A nil communicator has no clock: 0.
func (c *Comm) Wtime() float64 {
	if c == nil {
		return 0
	}
	if t, ok := c.r.clock.Now(); ok {
		return t
	}
	return time.Since(c.r.w.start).Seconds()
}

// Wtick is the resolution of Wtime in seconds.
func (c *Comm) Wtick() float64 { return 1e-9 }

// Elapse accounts d of computation on this rank without doing it (mu-pi's
// MPI_Elapse_time, for skeleton programs). In a virtual run it advances the
// rank's virtual clock by d and costs no host CPU; in a real run it takes d
// of wall time: it sleeps for all but the last elapseSpin of it and spins
// (yielding) through the rest, as the computation it stands for would
// keep its core. On a nil communicator it does nothing: there is no rank
// to charge.
func (c *Comm) Elapse(d time.Duration) {
	if c == nil || d <= 0 {
		return
	}
	if c.r.rec != nil {
		c.r.rec.event(record.Elapse, int64(d))
	}
	if c.r.virtual {
		c.r.clock.Elapse(d.Seconds())
		return
	}
	elapseFor(d)
}

// elapseSpin is the tail of a real Elapse that spins rather than sleeps: a
// Go sleep lasts at least about a millisecond when the process has nothing
// else to run (its timers wait in the network poller, whose timeout is in
// milliseconds), so a short Elapse that slept took far longer than asked
// (BenchmarkElapseReal; docs/mpi.md has the figures).
const elapseSpin = 2 * time.Millisecond

func elapseFor(d time.Duration) {
	end := time.Now().Add(d)
	if d > elapseSpin {
		time.Sleep(d - elapseSpin)
	}
	for time.Now().Before(end) {
		runtime.Gosched()
	}
}

// Abort ends the whole job with the given exit code (MPI_Abort). It does not
// return. In an in-process world the other ranks leave their next MPI call
// and Run returns an *AbortError. c must be a communicator of the calling
// rank: with nil there is no job to end, and Abort panics saying so (it
// cannot return an error, and must not return).
func (c *Comm) Abort(code int) {
	if c == nil {
		panic("mpi: Abort on a nil communicator")
	}
	r := c.r
	r.w.fail(&AbortError{Rank: r.id, Code: code})
	r.checkAbort()
}

func (c *Comm) check() error {
	if c == nil {
		return errorf(ClassComm, "null communicator")
	}
	if c.freed {
		return errorf(ClassComm, "communicator was freed")
	}
	if c.idup {
		return errorf(ClassComm, "communicator from Idup used before its request completed")
	}
	return nil
}

// Compare compares two communicators (MPI_Comm_compare): Ident for the same
// communicator, Congruent for the same group in the same order, Similar for
// the same members in another order, Unequal otherwise.
func (c *Comm) Compare(o *Comm) (Comparison, error) {
	if err := c.check(); err != nil {
		return Unequal, err
	}
	if err := o.check(); err != nil {
		return Unequal, err
	}
	if c.ctx == o.ctx && c.r == o.r {
		return Ident, nil
	}
	switch c.group.Compare(o.group) {
	case Ident:
		return Congruent, nil
	case Similar:
		return Similar, nil
	}
	return Unequal, nil
}

// Free releases the communicator (MPI_Comm_free). The world communicator
// cannot be freed.
func (c *Comm) Free() error {
	if err := c.check(); err != nil {
		return err
	}
	if c.world {
		return errorf(ClassComm, "the world communicator cannot be freed")
	}
	if c.r.rec != nil {
		c.r.rec.event(record.Free, int64(c.ctx))
	}
	c.r.ctxUsed.clear(int(c.ctx / 2))
	c.freed = true
	c.withTopology(nil)
	return nil
}

// Dup duplicates the communicator with a new context (MPI_Comm_dup).
// Collective over c.
func (c *Comm) Dup() (nc *Comm, err error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	c.enter(callDup, 0, 0)
	defer c.leave()
	if c.recording() != nil {
		defer c.noteComm(&nc)
	}
	id, err := c.agreeContext()
	if err != nil {
		return nil, err
	}
	// MPI copies the topology with the communicator, not the name; the
	// topology is immutable, so the copy shares it.
	nc = &Comm{r: c.r, ctx: uint32(id) * 2, group: c.group, rank: c.rank}
	return nc.withTopology(c.topology()), nil
}

// Create makes a communicator of the members of g, which must be a subset
// of c's group and the same on every rank of c (MPI_Comm_create). Collective
// over c; ranks not in g get nil.
func (c *Comm) Create(g *Group) (nc *Comm, err error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	if g == nil {
		return nil, errorf(ClassGroup, "Create: nil group")
	}
	c.enter(callCreate, 0, 0)
	defer c.leave()
	if rc := c.recording(); rc != nil {
		rc.note(int64(g.n))
		for i := 0; i < g.n; i++ {
			rc.note(int64(g.worldRank(i)))
		}
		defer c.noteComm(&nc)
	}
	for i := 0; i < g.n; i++ {
		if c.group.rankOf(g.worldRank(i)) == Undefined {
			return nil, errorf(ClassGroup, "Create: group member %d (world rank %d) is not in the communicator", i, g.worldRank(i))
		}
	}
	id, err := c.agreeContext()
	if err != nil {
		return nil, err
	}
	me := g.rankOf(c.r.id)
	if me == Undefined {
		c.r.ctxUsed.clear(id)
		return nil, nil
	}
	ng := g
	if g.ranks != nil {
		ng = newGroup(g.ranks, int32(c.r.id))
	}
	return &Comm{r: c.r, ctx: uint32(id) * 2, group: ng, rank: me}, nil
}

// Split partitions c by color; within a color ranks are ordered by key, ties
// broken by rank in c (MPI_Comm_split). A rank passing Undefined as color
// gets nil. Collective over c.
func (c *Comm) Split(color, key int) (nc *Comm, err error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	c.enter(callSplit, 0, 0)
	defer c.leave()
	if rc := c.recording(); rc != nil {
		rc.note(int64(color), int64(key))
		defer c.noteComm(&nc)
	}
	if color < 0 && color != Undefined {
		return nil, errorf(ClassArg, "Split: color %d must be non-negative or Undefined", color)
	}
	// Rank 0 of c gathers every (color, key), orders each color's members
	// and sends every rank its new group; then all agree on a context id.
	// Each rank ends with only its own group: memory O(new size), as in MPI.
	var mine [8]byte
	binary.LittleEndian.PutUint32(mine[0:], uint32(int32(color)))
	binary.LittleEndian.PutUint32(mine[4:], uint32(int32(key)))
	// A failed step does not end the rank's part (see schedErr): it goes on
	// to the end, so that the others are not left waiting, and then fails.
	var failed schedErr
	all, err := c.gatherBytes(mine[:], tagSplit)
	failed.keep(err)
	var members []byte
	if c.rank == 0 {
		members, err = c.splitRoot(all)
	} else {
		members, err = c.recvAlloc(0, tagSplit)
	}
	failed.keep(err)
	id, err := c.agreeContext()
	if err != nil {
		return nil, err
	}
	if failed.err != nil {
		c.r.ctxUsed.clear(id)
		return nil, failed.err
	}
	if color == Undefined {
		c.r.ctxUsed.clear(id)
		return nil, nil
	}
	ranks := make([]int32, len(members)/4)
	me := -1
	for i := range ranks {
		w := int32(binary.LittleEndian.Uint32(members[4*i:]))
		ranks[i] = w
		if int(w) == c.r.id {
			me = i
		}
	}
	if me < 0 {
		return nil, errorf(ClassIntern, "Split: rank missing from its own group")
	}
	return &Comm{r: c.r, ctx: uint32(id) * 2, group: newGroup(ranks, int32(c.r.id)), rank: me}, nil
}

// splitRoot orders the members of each color and sends every rank the world
// ranks of its new group; it returns rank 0's own.
func (c *Comm) splitRoot(all []byte) ([]byte, error) {
	n := c.Size()
	type ent struct{ color, key, rank int32 }
	ents := make([]ent, n)
	for i := range ents {
		ents[i] = ent{
			int32(binary.LittleEndian.Uint32(all[8*i:])),
			int32(binary.LittleEndian.Uint32(all[8*i+4:])),
			int32(i),
		}
	}
	sort.SliceStable(ents, func(i, j int) bool {
		a, b := ents[i], ents[j]
		if a.color != b.color {
			return a.color < b.color
		}
		if a.key != b.key {
			return a.key < b.key
		}
		return a.rank < b.rank
	})
	var mine []byte
	var reqs []*Request
	for lo := 0; lo < n; {
		hi := lo
		for hi < n && ents[hi].color == ents[lo].color {
			hi++
		}
		var enc []byte
		if ents[lo].color != Undefined {
			enc = make([]byte, 4*(hi-lo))
			for i := lo; i < hi; i++ {
				binary.LittleEndian.PutUint32(enc[4*(i-lo):], uint32(c.group.worldRank(int(ents[i].rank))))
			}
		}
		for i := lo; i < hi; i++ {
			if ents[i].rank == 0 {
				mine = enc
				continue
			}
			reqs = append(reqs, c.r.isend(c, enc, c.group.worldRank(int(ents[i].rank)), tagSplit, c.ctx+1, false))
		}
		lo = hi
	}
	return mine, c.waitColl(reqs...)
}

// --- context ids -------------------------------------------------------

// ctxMask records which context ids a rank uses. 2048 ids, as MPICH has
// about as many; id k gives point-to-point context 2k and collective 2k+1.
// The first 64 ids live in the rank and the rest are allocated when one of
// them is first used: every rank has a mask, and a million virtual ranks
// that make a few communicators would otherwise keep 256 bytes each for it.
const ctxWords = 32

type ctxMask struct {
	low  uint64                // ids 0-63
	high *[ctxWords - 1]uint64 // ids 64 on; nil while none was used
}

// word is the mask's i-th 64 ids.
func (m *ctxMask) word(i int) uint64 {
	if i == 0 {
		return m.low
	}
	if m.high == nil {
		return 0
	}
	return m.high[i-1]
}

func (m *ctxMask) set(id int) {
	if id < 64 {
		m.low |= 1 << id
		return
	}
	if m.high == nil {
		m.high = new([ctxWords - 1]uint64)
	}
	m.high[id/64-1] |= 1 << (id % 64)
}

func (m *ctxMask) clear(id int) {
	if id < 64 {
		m.low &^= 1 << id
	} else if m.high != nil {
		m.high[id/64-1] &^= 1 << (id % 64)
	}
}

// agreeContext finds the lowest context id free on every rank of c (an
// all-reduce of the free masks with bitwise and, as MPICH does) and marks it
// used. Collective over c.
func (c *Comm) agreeContext() (int, error) {
	c.r.nbc.agreeing++ // no Idup confirms an id meanwhile (comm_idup.go)
	buf, err := c.agreeFree()
	c.r.nbc.agreeing--
	if err != nil {
		return 0, err
	}
	id, err := lowestFree(buf)
	if err != nil {
		return 0, err
	}
	c.r.nbc.takeHeld(id)
	c.r.ctxUsed.set(id)
	return id, nil
}

// agreeFree returns the context ids free on every rank of c, as a mask.
func (c *Comm) agreeFree() ([]byte, error) {
	buf := make([]byte, 8*ctxWords)
	for i := 0; i < ctxWords; i++ {
		binary.LittleEndian.PutUint64(buf[8*i:], ^c.r.ctxUsed.word(i))
	}
	err := c.allreduceBytes(buf, tagContext, func(acc, in []byte) {
		for i := range acc {
			acc[i] &= in[i]
		}
	})
	return buf, err
}

// lowestFree is the lowest id of a mask from agreeFree.
func lowestFree(buf []byte) (int, error) {
	for i := 0; i < ctxWords; i++ {
		if w := binary.LittleEndian.Uint64(buf[8*i:]); w != 0 {
			return 64*i + bits.TrailingZeros64(w), nil
		}
	}
	return 0, errorf(ClassOther, "out of communicator context ids (%d in use)", 64*ctxWords)
}
