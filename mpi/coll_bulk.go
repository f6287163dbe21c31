package mpi

import (
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/gompi/gompi/transport"
)

// Collectives computed without their messages (virtual mode).
//
// A collective's messages in a virtual run cost the host far more than the
// model's arithmetic: each wakes its receiver's goroutine and touches
// dozens of cache lines of request, inbox, frame and stack (docs/model.md,
// "What grows with P" has the counts), so at a million ranks the run is
// bound by memory, not by the model. A collective on COMM_WORLD (or on any
// communicator holding every rank in the world's order) needs none of
// that: its ranks meet at a gate, and the last to arrive runs every rank's
// part of the algorithm on their clocks (with the ranks in several
// processes, every rank's of its process, trading what crosses with the
// others: coll_bulk_procs.go), round by round, calling the same
// event points with the same arguments in the same order as the message
// path would (the order in which each message reaches the host after its
// receive is posted and is dealt with in the waiting phase, which
// Algorithm 3 and the DR rule make equal to every other host order). The
// prediction is the same to the last bit, and each rank parks once per
// collective instead of once per round.
//
// The path is taken only where it cannot differ: a rank arriving with
// anything the message path's waits would touch (a frame in its inbox,
// early messages, nonblocking collectives or context agreements in
// progress, undecided receives or probes), or with a timeline or a record
// being written, makes the whole collective fall back to its messages. So
// does a frame reaching a rank that waits at the gate (in a world of one
// process; across processes the agreement decides: coll_bulk_procs.go). Nothing has been
// sent or charged when the fallback is decided, so the message path then
// runs as if the gate had not been there.

// bulkGate is where the ranks of a virtual world hosted by this process
// meet for a collective on COMM_WORLD or a communicator like it
// (bulkGateFor).
// Consecutive collectives alternate between two
// slots: a rank can only arrive at collective k+2 once every rank has
// arrived at k+1, so by then no rank still reads slot k's state, and the
// last rank to arrive at k+1 resets it.
type bulkGate struct {
	slots [2]bulkSlot
	// The last rank's scratch while it computes (one collective at a
	// time: it computes only once every rank has arrived): per world
	// rank, the arrival time of its message in the current round and its
	// receive's posting time.
	arrival, posted []float64
	// Each rank's arguments to the collective being gathered, at its
	// world rank (allocated at the first that needs them).
	argsOnce sync.Once
	accs     [][]byte
	rds      []reduction
	// The workers' own scratch (parallel), one each.
	work []bulkWorker
	// procs is the gate's side in a job of several processes
	// (coll_bulk_procs.go); nil when the world is this process's alone.
	procs *procGate
}

// bulkWorker is what one worker of the computation writes besides the
// ranks' state.
type bulkWorker struct {
	// hdr is the header the event points read: a local would move to
	// the heap (the clock is an interface), an allocation per message.
	hdr transport.Header
	// tmp holds copies of two ranks' partial results in a round.
	tmp [2][]byte
	// least is the earliest clock of the worker's share: at the end
	// (forget), or once its ranks have waited in the current round
	// (roundBound).
	least float64
	_     [64]byte // workers' headers on lines of their own
}

type bulkSlot struct {
	arrived atomic.Int64
	state   atomic.Int32
	// over reports whether a rank waiting at the slot may leave: made
	// once, so that meet does not make a closure on its frame.
	over func() bool
	_    [64 - 24]byte // the two slots' counters on lines of their own
}

func newBulkGate(w *world) *bulkGate {
	g := new(bulkGate)
	for i := range g.slots {
		s := &g.slots[i]
		s.over = func() bool {
			st := s.state.Load()
			return st == gateDone || st == gateFallback || w.aborted.Load()
		}
	}
	return g
}

// A slot's states.
const (
	gateOpen      int32 = iota // ranks are arriving
	gateComputing              // the last rank computes every rank's part
	gateDone                   // computed: the ranks leave
	gateFallback               // the collective runs by messages
)

// testHookBulkComputed, when set (tests only), is called each time the
// gate has computed a collective, with its number (the first a world's
// ranks bring to the gate is 1).
var testHookBulkComputed func(seq uint64)

// testHookBulkRound, when set (tests only), is called at the end of each
// round of a collective the gate computes, with the world's ranks and the
// bound the next round trims before (roundBound).
var testHookBulkRound func(ranks []*rank, bound float64)

// bulkGateFor returns the gate a collective on c may use, or nil: c must
// hold every rank of the world in the world's order (COMM_WORLD, its Dups,
// a Split that keeps it whole), so that the gate's ranks are c's. The
// answer depends only on the world and the communicator, so every rank of
// c gets the same. Collectives on several such communicators share the
// gate's sequence: the ones it computes (Barrier, Allreduce) cannot
// complete anywhere before every rank has started them, so every correct
// program calls them in one order on all ranks.
func (c *Comm) bulkGateFor() *bulkGate {
	w := c.r.w
	if w.bulk == nil || !c.spansWorld() || w.size < 2 || c.r.nbc.cur != nil || testHookCollStep != nil {
		return nil
	}
	if w.bulk.procs == nil && (!w.local || w.base != 0 || len(w.ranks) != w.size) {
		return nil
	}
	return w.bulk
}

// spansWorld reports whether c's group is every world rank in order.
func (c *Comm) spansWorld() bool {
	return c.world || c.group.ranks == nil && c.group.n == c.r.w.size
}

// bulkReady reports whether nothing the message path's waits would act on
// is pending at the rank, so that computing its part of a collective
// without them changes nothing.
func (r *rank) bulkReady() bool {
	return r.virtual && r.trace == nil && r.rec == nil && len(r.early) == 0 && len(r.nbc.active) == 0 &&
		r.nbc.agreeing == 0 && r.deferrals == 0 && r.probe == nil && r.picking() == nil && !r.polling &&
		r.inbox.Empty()
}

// bulkOp is a collective the gate computes.
type bulkOp uint8

const (
	bulkBarrier bulkOp = iota
	bulkAllreduce
)

// meet brings rank r to the gate for its next collective on a
// communicator bulkGateFor admits, op; ready says whether r's part may be computed there (bulkReady and
// what the collective itself needs). The last rank to arrive computes
// every rank's part (computeAll), unless a rank was not ready or the
// ranks' arguments disagree, which makes the collective fall back. It
// reports whether the collective was computed; false means the caller runs
// the message path. The caller has r's clock inside the engine (EnterEngine)
// for the whole collective, the message path too if it falls back, so that
// both charge the same: nothing of the host's work between the
// collective's steps, which on the target is the MPI library's, not the
// program's.
//
// Only for collectives in which no rank can finish before every rank has
// started (Barrier, Allreduce): a rank that falls back may otherwise reach
// its next collective before the last rank has arrived at this one and
// reset the slot that one will use.
//
// Every rank but one sleeps here, so the frames from the rank's goroutine
// down to its sleep are what decides whether its stack stays at the
// runtime's 2 KiB (docs/model.md, "What a virtual rank's bytes are"): meet
// takes no closures, and the last rank's work is in computeAll.
func (g *bulkGate) meet(r *rank, op bulkOp, ready bool) bool {
	s := &g.slots[r.bulkSeq&1]
	r.bulkSeq++
	if !ready || !r.bulkReady() {
		g.fallBack(r.w, s)
	}
	if s.arrived.Add(1) == int64(len(r.w.ranks)) {
		return g.computeAll(r, s, op)
	}
	for {
		switch st := s.state.Load(); {
		case st == gateDone:
			r.stats.gated++
			return true
		case st == gateFallback:
			return false
		case r.w.aborted.Load():
			r.checkAbort()
		case g.procs != nil:
			// Across processes a frame may come from a process already
			// past the collective; the agreement decides (coll_bulk_procs.go).
			r.blockedIn.Store(r.call.packed())
			r.inbox.WaitFor(s.over)
			r.blockedIn.Store(0)
			continue
		case st == gateOpen && !r.inbox.Empty():
			g.fallBack(r.w, s) // a frame the message path would deal with
			continue
		case st == gateComputing && !r.inbox.Empty():
			r.inbox.Yielding()
			runtime.Gosched() // Park would return at once for the frame
			continue
		}
		r.blockedIn.Store(r.call.packed()) // asleep in a call, for the deadlock and stall detection
		r.inbox.Park(s.over)
		r.blockedIn.Store(0)
	}
}

// computeAll is the last rank's part at the gate, in slot s: every rank
// has arrived at collective op, so none still reads the other slot, which
// it resets for the next collective. Unless the collective falls back, it
// computes every rank's part, trims their histories and wakes them.
//
//go:noinline
func (g *bulkGate) computeAll(r *rank, s *bulkSlot, op bulkOp) bool {
	other := &g.slots[r.bulkSeq&1] // r.bulkSeq is already the next collective's
	other.arrived.Store(0)
	other.state.Store(gateOpen)
	if op == bulkAllreduce && s.state.Load() == gateOpen && !g.sameSizes() {
		g.fallBack(r.w, s)
	}
	if g.procs != nil {
		return g.computeAcross(r, s, op)
	}
	if !s.state.CompareAndSwap(gateOpen, gateComputing) {
		return false
	}
	switch op {
	case bulkBarrier:
		g.barrier(r.w.ranks)
	case bulkAllreduce:
		g.allreduce(r.w.ranks)
	}
	g.forget(r.w.ranks)
	return g.computed(r, s, r.bulkSeq)
}

// computed ends collective seq in slot s, which r (the last rank to
// arrive here) has computed: the ranks waiting there leave.
func (g *bulkGate) computed(r *rank, s *bulkSlot, seq uint64) bool {
	if h := testHookBulkComputed; h != nil {
		h(seq)
	}
	r.stats.gated++
	s.state.Store(gateDone)
	for _, o := range r.w.ranks {
		if o != r {
			o.inbox.Kick()
		}
	}
	return true
}

// computing reports whether a rank is computing a collective at the gate
// (false for a nil gate): the ranks waiting there are not deadlocked.
func (g *bulkGate) computing() bool {
	return g != nil && (g.slots[0].state.Load() == gateComputing || g.slots[1].state.Load() == gateComputing)
}

// fallBack makes the collective of slot s run by messages, unless its
// computation has begun, and wakes the ranks waiting at the gate. Out of
// line: its loop would add to meet's frame.
//
//go:noinline
func (g *bulkGate) fallBack(w *world, s *bulkSlot) {
	if s.state.CompareAndSwap(gateOpen, gateFallback) {
		for _, o := range w.ranks {
			o.inbox.Kick()
		}
	}
}

// scratch returns the gate's two per-rank arrays, sized for the world.
func (g *bulkGate) scratch(n int) (arrival, posted []float64) {
	if len(g.arrival) < n {
		g.arrival, g.posted = make([]float64, n), make([]float64, n)
	}
	return g.arrival[:n], g.posted[:n]
}

// minBulkShare is the fewest ranks worth handing a worker of their own:
// below it the computation runs on the arriving rank's goroutine alone.
// (A variable: tests lower it.)
var minBulkShare = 4096

// parallel runs fn over [0, n) cut into contiguous shares, one per worker
// (up to GOMAXPROCS: the other ranks wait at the gate, so the processors
// are free), and returns when all are done. Each share's worker has
// scratch of its own, g.work[w]. fn must not depend on what another
// share's worker does in the same call; calls with the same n cut the same
// shares. It returns how many workers there were.
func (g *bulkGate) parallel(n int, fn func(lo, hi int, w *bulkWorker)) (workers int) {
	workers = min(runtime.GOMAXPROCS(0), max(n/minBulkShare, 1))
	if len(g.work) < workers {
		g.work = make([]bulkWorker, workers)
	}
	if workers == 1 {
		fn(0, n, &g.work[0])
		return workers
	}
	var wg sync.WaitGroup
	for w := 1; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(n*w/workers, n*(w+1)/workers, &g.work[w])
		}()
	}
	fn(0, n/workers, &g.work[0])
	wg.Wait()
	return workers
}

// forget trims every rank's history of waits (Algorithm 3's lookup) to
// what a message can still reach, once a collective has been computed.
// Every rank has taken part and none has run on since, every inbox was
// empty and every early queue too, so each message still to reach a rank
// is sent from now on, at its sender's clock or later: none arrives
// before the earliest clock of all (nor before a frame still unmatched in
// the rank's unexpected queue, counted as forgetSettled counts it). That
// is ForgetBefore's condition, which keeps every answer the lookup can
// still give. So a rank keeps a few spans after each collective, where by
// messages its history grows with every wait, up to historyCap.
func (g *bulkGate) forget(ranks []*rank) {
	workers := g.parallel(len(ranks), func(lo, hi int, w *bulkWorker) {
		w.least = math.Inf(1)
		for _, o := range ranks[lo:hi] {
			t, _ := o.clock.Now()
			w.least = min(w.least, t)
		}
	})
	least := math.Inf(1)
	for _, w := range g.work[:workers] {
		least = min(least, w.least)
	}
	g.parallel(len(ranks), func(lo, hi int, _ *bulkWorker) {
		for _, o := range ranks[lo:hi] {
			forgetBefore(o, least)
		}
	})
}

// forgetBefore trims o's history of waits once no message still to reach
// it arrives before bound, but for the frames still unmatched in its
// unexpected queue.
func forgetBefore(o *rank, bound float64) {
	for _, f := range o.unexpected {
		bound = min(bound, f.Arrival)
	}
	o.clock.ForgetBefore(bound)
}

// The rounds trim the ranks' histories too, not only forget at the end:
// a rank's history grows by a wait each round, and at a million ranks
// its array would double twice within the collective, which every rank
// holds at once. Every message a rank sends in the later rounds, and
// after the collective, leaves at its clock or later, and a clock only
// moves on; so the earliest clock, once every rank that takes part in
// the rounds has waited in one, is a bound on every arrival still to
// come. (A rank that takes no part in the rounds, an Allreduce's folded
// ranks, sends nothing before it has received the result from one that
// did.) That is what forget's argument needs: each rank forgets before
// the previous round's bound as the next round touches it. The earliest
// arrival of a round would do too, but it is never later than that
// clock, so a rank ahead of the others would keep more waits.

// roundBound is the earliest clock the workers saw once their ranks
// had waited in a round of workers shares (each keeps its own in least),
// or -Inf for none. Each round on ranks ends with it.
func (g *bulkGate) roundBound(ranks []*rank, workers int) float64 {
	bound := math.Inf(1)
	for _, w := range g.work[:workers] {
		bound = min(bound, w.least)
	}
	if math.IsInf(bound, 1) {
		bound = math.Inf(-1)
	}
	if h := testHookBulkRound; h != nil {
		h(ranks, bound)
	}
	return bound
}

// barrier is Barrier's dissemination algorithm computed at the gate:
// in each round every rank's exchange as exchange runs it (its receive
// posted, its empty message sent to rank+2^k, then its waiting phase,
// which deals with the message from rank-2^k).
//
// A round touches each rank once, not once to send and once to wait:
// within its share a worker sends and waits rank by rank, in rank order,
// so the message from rank-2^k has been sent when rank's wait deals with
// it, except for messages from another share or from the top of the ring
// (rank-2^k+n). Those come from the last 2^k ranks of a share, which
// every worker sends first, before any waits.
func (g *bulkGate) barrier(ranks []*rank) {
	n := len(ranks)
	arrival, posted := g.scratch(n)
	send := func(i, mask int, w *bulkWorker) {
		posted[i] = ranks[i].bulkPost()
		dst := i + mask
		if dst >= n {
			dst -= n
		}
		arrival[dst] = ranks[i].bulkSend(&w.hdr, dst, 0)
	}
	bound := math.Inf(-1) // the previous round's (roundBound)
	for mask := 1; mask < n; mask <<= 1 {
		g.parallel(n, func(lo, hi int, w *bulkWorker) {
			w.least = math.Inf(1)
			for i := max(lo, hi-mask); i < hi; i++ {
				send(i, mask, w)
			}
		})
		workers := g.parallel(n, func(lo, hi int, w *bulkWorker) {
			for i := lo; i < hi; i++ {
				if i < hi-mask {
					send(i, mask, w)
				}
				src := i - mask
				if src < 0 {
					src += n
				}
				if bound > math.Inf(-1) {
					forgetBefore(ranks[i], bound)
				}
				ranks[i].bulkWait(&w.hdr, src, arrival[i], 0, posted[i])
				t, _ := ranks[i].clock.Now()
				w.least = min(w.least, t)
			}
		})
		bound = g.roundBound(ranks, workers)
	}
}

// bulkPost is the starting phase of a receive that no frame has reached:
// it is posted, and the time is what its waiting phase deals from.
func (r *rank) bulkPost() (posted float64) {
	r.nextID++
	posted, _ = r.clock.Now()
	return posted
}

// bulkSend is the starting phase DS of an eager send of size bytes to
// world rank dst, as startSend runs it, with h as its header; it returns
// the message's arrival time.
func (r *rank) bulkSend(h *transport.Header, dst, size int) (arrival float64) {
	r.nextID++
	r.stats.sent++
	r.stats.sentBytes += int64(size)
	*h = transport.Header{Kind: transport.Data, Src: int32(r.id), Dst: int32(dst), Size: int64(size)}
	r.clock.Begin(actDS)
	r.clock.Stamp(h)
	r.window = min(r.window, h.Arrival) // as sendFrame
	r.clock.End(actDS, size)
	return h.Arrival
}

// bulkWait is the waiting phase of one step whose only pending operation
// is a receive posted at posted, as waitPhase runs it when the eager DATA
// of size bytes from world rank src, arriving at arrival, reaches the
// host during the wait; h is the header it fills in for the clock.
func (r *rank) bulkWait(h *transport.Header, src int, arrival float64, size int, posted float64) {
	r.waitEpoch++
	r.settled, r.settleGuess = false, false
	r.forgetSettled()
	r.clock.Begin(actWT)
	r.clock.WaitStart(false)
	*h = transport.Header{Kind: transport.Data, Src: int32(src), Dst: int32(r.id), Size: int64(size), Arrival: arrival}
	r.clock.Deal(h, true, nil, size, posted)
	r.stats.recvd++
	r.stats.recvdBytes += int64(size)
	r.clock.WaitEnd()
}

// bulkEmptyWait is the waiting activity of a step already complete (an
// eager send's), as emptyWait runs it.
func (r *rank) bulkEmptyWait() {
	r.clock.Begin(actWT)
	r.clock.WaitStart(true)
	r.clock.WaitEnd()
}

// Allreduce at the gate (allreduce, in coll_reduce.go, brings a rank
// there) is allreduceRecDbl computed for every rank, for a builtin
// operation whose messages are all eager on the target: the fold of the
// ranks above the largest power of two, the recursive-doubling exchanges,
// and the fold back, each rank's steps as blockingSend, blockingRecv and
// exchange run them, combining the same bytes in the same order
// (bulkGate.allreduce).

// allreduceArgs leaves the rank's arguments to an Allreduce at the gate,
// acc (its contribution, to receive the result) and rd, and reports
// whether its part may be computed there. The rank takes acc back once it
// leaves the gate (its buffer is not the gate's to keep). Out of line, and
// before the rank arrives: its frame is gone by the time the rank sleeps
// there (meet).
//
//go:noinline
func (g *bulkGate) allreduceArgs(c *Comm, acc []byte, rd *reduction) (ready bool) {
	r := c.r
	g.argsFor(len(r.w.ranks))
	g.accs[c.rank-r.w.base], g.rds[c.rank-r.w.base] = acc, *rd
	return rd.builtin && r.eagerToPartners(c.rank, c.Size(), len(acc))
}

// argsFor makes the per-rank argument arrays, indexed by the rank's place
// in this process (its world rank less the world's base); every rank calls
// it before arriving, the first allocates (under the gate's once).
func (g *bulkGate) argsFor(n int) {
	g.argsOnce.Do(func() {
		g.accs, g.rds = make([][]byte, n), make([]reduction, n)
	})
}

// eagerToPartners reports whether the target sends size bytes eagerly from
// rank me to each rank it exchanges with in allreduceRecDbl on n ranks.
func (r *rank) eagerToPartners(me, n, size int) bool {
	eager := r.w.targetEager
	if !r.virtual || eager == nil {
		return false
	}
	pof2 := pof2Below(n)
	rem := n - pof2
	newrank := me - rem
	if me < 2*rem {
		if size > eager(me, me^1) {
			return false
		}
		if newrank = -1; me%2 == 1 {
			newrank = me / 2
		}
	}
	if newrank < 0 {
		return true
	}
	for mask := 1; mask < pof2; mask <<= 1 {
		if size > eager(me, oldRank(newrank^mask, rem)) {
			return false
		}
	}
	return true
}

// sameSizes reports whether every rank brought a buffer of the same size
// and element size: otherwise the message path reports what the ranks got
// wrong.
func (g *bulkGate) sameSizes() bool {
	for i := range g.accs {
		if len(g.accs[i]) != len(g.accs[0]) || g.rds[i].size != g.rds[0].size {
			return false
		}
	}
	return true
}

// allreduce computes allreduceRecDbl for every rank (the arguments are in
// accs and rds).
func (g *bulkGate) allreduce(ranks []*rank) {
	n := len(ranks)
	size := len(g.accs[0])
	pof2 := pof2Below(n)
	rem := n - pof2
	// foldIn: the even rank of each pair below 2*rem sends its
	// contribution to the odd one, which combines (lower ranks on the
	// left).
	g.parallel(rem, func(lo, hi int, w *bulkWorker) {
		tmp := w.scratch(size)
		for pair := lo; pair < hi; pair++ {
			even, odd := 2*pair, 2*pair+1
			w.oneWay(ranks, even, odd, size)
			copy(tmp[0], g.accs[even])
			g.rds[odd].apply(tmp[0], g.accs[odd])
		}
	})
	// The rounds, a pair of partners at a time: both post and send, then
	// both wait, then both combine, each from the other's partial result
	// before the round (me < peer: me combines acc ∘ peer's, peer
	// combines me's ∘ acc).
	bound := math.Inf(-1) // the previous round's (roundBound)
	for mask := 1; mask < pof2; mask <<= 1 {
		workers := g.parallel(pof2/2, func(lo, hi int, w *bulkWorker) {
			tmp := w.scratch(size)
			w.least = math.Inf(1)
			for k := lo; k < hi; k++ {
				nr := k&(mask-1) | (k&^(mask-1))<<1 // k with a 0 inserted at mask's bit
				me, peer := oldRank(nr, rem), oldRank(nr|mask, rem)
				if bound > math.Inf(-1) {
					forgetBefore(ranks[me], bound)
					forgetBefore(ranks[peer], bound)
				}
				pm, pp := ranks[me].bulkPost(), ranks[peer].bulkPost()
				tm := ranks[me].bulkSend(&w.hdr, peer, size)
				tp := ranks[peer].bulkSend(&w.hdr, me, size)
				ranks[me].bulkWait(&w.hdr, peer, tp, size, pm)
				ranks[peer].bulkWait(&w.hdr, me, tm, size, pp)
				cm, _ := ranks[me].clock.Now()
				cp, _ := ranks[peer].clock.Now()
				w.least = min(w.least, cm, cp)
				copy(tmp[0], g.accs[me])
				copy(tmp[1], g.accs[peer])
				g.rds[me].applyRev(g.accs[me], tmp[1])
				g.rds[peer].apply(tmp[0], g.accs[peer])
			}
		})
		bound = g.roundBound(ranks, workers)
	}
	// foldOut: each odd rank below 2*rem sends the result to the even
	// one below it.
	g.parallel(rem, func(lo, hi int, w *bulkWorker) {
		for pair := lo; pair < hi; pair++ {
			even, odd := 2*pair, 2*pair+1
			w.oneWay(ranks, odd, even, size)
			copy(g.accs[even], g.accs[odd])
		}
	})
}

// oneWay is a message of size bytes from world rank from to world rank to
// as blockingSend and blockingRecv run it: the receive posted, the eager
// send and its (empty) wait, then the receive's wait.
func (w *bulkWorker) oneWay(ranks []*rank, from, to, size int) {
	p := ranks[to].bulkPost()
	ta := ranks[from].bulkSend(&w.hdr, to, size)
	ranks[from].bulkEmptyWait()
	ranks[to].bulkWait(&w.hdr, from, ta, size, p)
}

// scratch returns the worker's two buffers of size bytes.
func (w *bulkWorker) scratch(size int) *[2][]byte {
	for i := range w.tmp {
		if cap(w.tmp[i]) < size {
			w.tmp[i] = make([]byte, size)
		}
		w.tmp[i] = w.tmp[i][:size]
	}
	return &w.tmp
}
