package mpi

import (
	"encoding/binary"
	"fmt"
	"math"
	"sync"
	"sync/atomic"

	"github.com/gompi/gompi/transport"
)

// The gate across processes (virtual mode, a job of several processes).
//
// With the ranks in several processes, each process's last rank to arrive
// at a collective (its leader) computes its own ranks' parts, and the
// leaders trade what crosses between them: first whether each process may
// take part (the agreement), then, round by round, the arrival times of
// the messages that cross. Their frames are Ctrl frames from a process's
// first rank to another's first rank; Inbox.SetControl hands them to this
// gate on the transport's goroutine, so no receive ever matches them.
//
// The agreement. Each leader sends every other process whether all its
// ranks were ready (bulkReady: nothing the message path's waits would act
// on) and its ranks' counts of frames sent to and taken from other
// processes (the counters of job-wide quiescence detection). The
// collective is computed only if every process is ready and the job's
// counts balance: a frame still travelling would otherwise be dealt with
// by nobody inside the collective, where the message path deals with it.
// Every leader decides from the same frames, so all decide alike. A
// process that is not ready says so and runs the message path at once,
// without waiting for the others: its agreement frames from them become
// stale and are skipped. Unlike in one process, a frame that reaches a
// rank waiting at the gate does not make it fall back: it may come from a
// process that has decided and is past the collective (its ranks need
// nothing more from here), so only the agreement decides. A frame that
// was on its way when the ranks arrived shows in the counts.
//
// The rounds. No rank sends while the gate computes, so a round's frames
// are the only traffic; each goes from one process to another in the
// order sent (the transports keep one sender's order to one receiver),
// so a leader takes them from each peer's queue in order.

// procGate is a process's side of the gate across processes.
type procGate struct {
	w     *world
	bases []int // process p hosts world ranks bases[p] .. bases[p+1]-1
	me    int
	// routes[p] carries frames to process p's first rank, past the
	// counting wrapper: gate frames are counted here (sent, recvd), apart
	// from the ranks' frames the agreement compares.
	routes      []transport.Transport
	sent, recvd atomic.Int64

	mu     sync.Mutex
	queue  [][]gateMsg // per process, in arrival order
	waiter *rank       // the leader waiting for a frame; nil when none
	from   int         // the process whose frame it waits for
	// out[p] is the round's frame body for process p being built.
	out [][]byte
}

// gateMsg is a gate frame as received.
type gateMsg struct {
	kind  int32
	seq   uint64
	round uint64
	body  []byte
}

// Gate frame kinds (in the frame's Tag).
const (
	gateAgree int32 = iota + 1
	gateRound
)

// GateRanksEnv names the fewest ranks for which a virtual job of several
// processes computes its collectives at the gate (defaultGateRanks). Set
// above the job's size, the job runs its collectives by messages, as tests
// do to compare the two.
const GateRanksEnv = "GOMPI_GATE_RANKS"

// defaultGateRanks: from 32 ranks over 2 processes the gate took about
// half the time of the messages, at 16 about as long, and with a rank or
// two a process an agreement costs a round trip a collective more than
// the messages (docs/model.md, "The gate across processes").
const defaultGateRanks = 64

// maxGateFrame bounds a gate frame's payload: a round's arrival times and
// bytes for every rank of a process are far less.
const maxGateFrame = 1 << 34

// newProcGate makes process me's side of the gate and takes the gate
// frames its first rank's inbox receives; connect gives it the routes.
func newProcGate(w *world, bases []int, me int) *procGate {
	procs := len(bases) - 1
	pg := &procGate{w: w, bases: bases, me: me, routes: make([]transport.Transport, procs),
		queue: make([][]gateMsg, procs), out: make([][]byte, procs)}
	w.ranks[0].inbox.SetControl(pg.deliver)
	return pg
}

// connect takes the routes to the other processes' first ranks from the
// job's table, leaving out countRoutes's counting if it has wrapped them.
func (pg *procGate) connect(table *transport.Table) {
	for p := range pg.routes {
		if p == pg.me {
			continue
		}
		rt := table.Routes[pg.bases[p]]
		if c, ok := rt.(*countingRoute); ok {
			rt = c.tr
		}
		pg.routes[p] = rt
	}
}

// procOf is the process hosting world rank r.
func (pg *procGate) procOf(r int) int {
	lo, hi := 0, len(pg.bases)-1
	for hi-lo > 1 {
		m := (lo + hi) / 2
		if pg.bases[m] <= r {
			lo = m
		} else {
			hi = m
		}
	}
	return lo
}

// deliver takes a gate frame from a transport (Inbox.SetControl).
func (pg *procGate) deliver(f *transport.Frame) {
	if f.Size < 0 || f.Size > maxGateFrame {
		f.Free()
		pg.w.fail(&Error{Class: ClassOther, Msg: fmt.Sprintf("collective gate: frame of %d bytes from another process", f.Size)})
		return
	}
	body := make([]byte, f.Size)
	n, err := f.ReadPayload(body)
	m := gateMsg{kind: f.Tag, seq: f.SendID, round: f.RecvID, body: body[:n]}
	p := pg.procOf(int(f.Src))
	f.Free()
	if err != nil || p == pg.me || n != len(body) {
		pg.w.fail(&Error{Class: ClassOther, Msg: "collective gate: bad frame from another process", Err: err})
		return
	}
	pg.mu.Lock()
	pg.queue[p] = append(pg.queue[p], m)
	w := pg.waiter
	pg.mu.Unlock()
	// Counted once queued: the agent sees a waiting leader with a frame
	// queued as busy (busy), and a frame no leader waits for is inert.
	pg.recvd.Add(1)
	if w != nil {
		w.inbox.Kick()
	}
}

// busy reports whether the leader waits for a frame that is already
// queued (it is about to run): its process is not quiet. Frames queued
// from other processes than the one it waits for do not count: the
// leader may wait for a process whose ranks are parked in the message
// path, which only the job-wide detection can resolve.
func (pg *procGate) busy() bool {
	if pg == nil {
		return false
	}
	pg.mu.Lock()
	defer pg.mu.Unlock()
	return pg.waiter != nil && len(pg.queue[pg.from]) > 0
}

// send sends process p a gate frame.
func (pg *procGate) send(p int, kind int32, seq, round uint64, body []byte) error {
	f := transport.NewFrame()
	f.Header = transport.Header{Kind: transport.Ctrl, Src: int32(pg.bases[pg.me]), Dst: int32(pg.bases[p]),
		Tag: kind, SendID: seq, RecvID: round, Size: int64(len(body))}
	f.CopyPayload(body)
	pg.sent.Add(1)
	if err := pg.routes[p].Send(f); err != nil {
		return fmt.Errorf("collective gate: to process %d: %w", p, err)
	}
	return nil
}

// await returns the body of the next gate frame from process p of kind
// kind for collective seq (and round), skipping agreement frames of
// earlier collectives that this process fell back from without waiting.
// r (the leader) sleeps until it comes, whatever frames reach its inbox
// meanwhile (from processes already past the collective). A gate frame
// out of order is an error.
func (pg *procGate) await(r *rank, p int, kind int32, seq, round uint64) ([]byte, error) {
	ready := func() bool {
		pg.mu.Lock()
		defer pg.mu.Unlock()
		return len(pg.queue[p]) > 0 || r.w.aborted.Load()
	}
	for {
		pg.mu.Lock()
		for len(pg.queue[p]) > 0 {
			m := pg.queue[p][0]
			pg.queue[p] = pg.queue[p][1:]
			if m.kind == gateAgree && m.seq < seq {
				continue // stale
			}
			pg.waiter = nil
			pg.mu.Unlock()
			if m.kind != kind || m.seq != seq || m.round != round {
				return nil, fmt.Errorf("collective gate: from process %d: frame %d of collective %d round %d, want %d of %d round %d",
					p, m.kind, m.seq, m.round, kind, seq, round)
			}
			return m.body, nil
		}
		if len(pg.queue[p]) == 0 {
			pg.queue[p] = pg.queue[p][:0:0] // drop the array the slicing kept
		}
		pg.waiter, pg.from = r, p
		pg.mu.Unlock()
		r.checkAbort()
		r.blockedIn.Store(r.call.packed())
		r.inbox.WaitFor(ready)
		r.blockedIn.Store(0)
	}
}

// arrivals sums what this process's ranks, all at the gate, sent to and
// took from other processes (virtual_quiesce.go), and finds their
// earliest clock. Only for a process whose ranks all arrived ready: after
// a fallback they run on, and their clocks are theirs.
func (pg *procGate) arrivals() (sent, recvd int64, least float64) {
	least = math.Inf(1)
	for _, r := range pg.w.ranks {
		sent += r.xout.Load()
		recvd += r.xin.Load()
		t, _ := r.clock.Now()
		least = min(least, t)
	}
	return sent, recvd, least
}

// agree is the agreement of collective seq (op) for leader r: ready says
// whether this process may take part, sizes what an Allreduce brings (its
// bytes and element size; zero for a Barrier). It reports whether every
// process computes the collective at the gate: all ready for the same
// collective with the same sizes, nothing in flight; and least, the
// earliest clock of all ranks (trim).
func (pg *procGate) agree(r *rank, op bulkOp, seq uint64, ready bool, sizes [2]uint64) (ok bool, least float64, err error) {
	var b [41]byte // a process not ready sends only that
	var sent, recvd int64
	if ready {
		b[0] = 1 | byte(op)<<1
		sent, recvd, least = pg.arrivals()
	}
	binary.LittleEndian.PutUint64(b[1:], uint64(sent))
	binary.LittleEndian.PutUint64(b[9:], uint64(recvd))
	binary.LittleEndian.PutUint64(b[17:], sizes[0])
	binary.LittleEndian.PutUint64(b[25:], sizes[1])
	binary.LittleEndian.PutUint64(b[33:], math.Float64bits(least))
	for p := range pg.routes {
		if p != pg.me {
			if err := pg.send(p, gateAgree, seq, 0, b[:]); err != nil {
				return false, 0, err
			}
		}
	}
	if !ready {
		return false, 0, nil
	}
	all := true
	for p := range pg.routes {
		if p == pg.me {
			continue
		}
		body, err := pg.await(r, p, gateAgree, seq, 0)
		if err != nil {
			return false, 0, err
		}
		if len(body) != len(b) {
			return false, 0, fmt.Errorf("collective gate: agreement of %d bytes from process %d", len(body), p)
		}
		all = all && body[0] == b[0] && string(body[17:33]) == string(b[17:33])
		sent += int64(binary.LittleEndian.Uint64(body[1:]))
		recvd += int64(binary.LittleEndian.Uint64(body[9:]))
		least = min(least, math.Float64frombits(binary.LittleEndian.Uint64(body[33:])))
	}
	return all && sent == recvd, least, nil
}

// The ranks' histories of waits across processes. The gate in one process
// trims them as it computes (forget, roundBound), from the clocks of
// every rank; here each process sees only its own. But when the processes
// agree to compute a collective, every rank is at the gate and nothing is
// on its way anywhere, so every message still to come arrives no earlier
// than the earliest clock of all ranks. Each process sends its own
// earliest in the agreement, and once they agree each trims its ranks
// before the least of them (forgetBefore): a rank keeps about the waits
// since the previous collective, where by messages its history may grow
// towards historyCap.

// trim forgets, at every rank here, the waits before bound (see above).
func (pg *procGate) trim(bound float64) {
	if math.IsInf(bound, 1) {
		return
	}
	for _, o := range pg.w.ranks {
		forgetBefore(o, bound)
	}
}

// barrierAcross is Barrier's dissemination algorithm (barrier) for this
// process's ranks, its leader trading each round's crossing arrival times
// with the other processes. The ranks' event calls are barrier's, in the
// same order for each rank.
func (g *bulkGate) barrierAcross(r *rank, seq uint64) error {
	pg := g.procs
	w := r.w
	ranks, base, n := w.ranks, w.base, w.size
	nl := len(ranks)
	arrival, posted := g.scratch(nl)
	hdr := &g.work0().hdr
	c := &crossing{pg: pg, from: make([]bool, len(pg.routes))}
	for mask, round := 1, uint64(0); mask < n; mask, round = mask<<1, round+1 {
		for i, o := range ranks {
			posted[i] = o.bulkPost()
			dst := base + i + mask
			if dst >= n {
				dst -= n
			}
			ta := o.bulkSend(hdr, dst, 0)
			if j := dst - base; j >= 0 && j < nl {
				arrival[j] = ta
			} else {
				c.add(pg.procOf(dst), dst, ta, nil)
			}
			if src := (base + i - mask + n) % n; src-base < 0 || src-base >= nl {
				c.expect(src)
			}
		}
		if err := c.trade(r, seq, round, func(j int, ta float64, _ []byte) { arrival[j] = ta }); err != nil {
			return err
		}
		for i, o := range ranks {
			o.bulkWait(hdr, (base+i-mask+n)%n, arrival[i], 0, posted[i])
		}
	}
	return nil
}

// work0 is the first worker's scratch (the leader's, across processes).
func (g *bulkGate) work0() *bulkWorker {
	if len(g.work) == 0 {
		g.work = make([]bulkWorker, 1)
	}
	return &g.work[0]
}

// computeAcross is computeAll in a job of several processes: r is its
// process's last rank to arrive at collective op, in slot s. The slot
// stays open during the agreement; across processes its ranks do not fall
// back on a frame (meet), which may come from a process already past the
// collective: the agreement decides.
//
//go:noinline
func (g *bulkGate) computeAcross(r *rank, s *bulkSlot, op bulkOp) bool {
	seq := r.bulkSeq
	ready := s.state.Load() == gateOpen
	// An Allreduce's bytes and element size, the same everywhere; read
	// only when ready (after a fallback the ranks take their arguments
	// back).
	var sizes [2]uint64
	if ready && op == bulkAllreduce {
		sizes = [2]uint64{uint64(len(g.accs[0])), uint64(g.rds[0].size)}
	}
	ok, least, err := g.procs.agree(r, op, seq, ready, sizes)
	if err == nil && ok && !s.state.CompareAndSwap(gateOpen, gateComputing) {
		// Only a rank arriving not ready makes a process fall back, and
		// this one was ready when its last rank arrived.
		err = fmt.Errorf("collective gate: collective %d fell back after every process agreed to compute it", seq)
	}
	if err == nil && ok {
		g.procs.trim(least)
		switch op {
		case bulkBarrier:
			err = g.barrierAcross(r, seq)
		case bulkAllreduce:
			err = g.allreduceAcross(r, seq)
		}
	}
	if err != nil {
		r.w.fail(&Error{Class: ClassOther, Msg: "virtual collective across processes", Err: err})
		r.checkAbort()
		return false
	}
	if !ok {
		g.fallBack(r.w, s)
		return false
	}
	return g.computed(r, s, seq)
}

// crossing is one phase's trade for allreduceAcross: the messages this
// process's ranks send to ranks of other processes, each its destination,
// arrival time and the sender's bytes before the phase combines them.
type crossing struct {
	pg   *procGate
	size int
	from []bool // the processes a frame comes from in this phase
}

// add notes a message of c.size bytes (acc) from a rank here to world rank
// dst in process p, arriving at ta.
func (c *crossing) add(p, dst int, ta float64, acc []byte) {
	o := c.pg.out[p]
	o = binary.LittleEndian.AppendUint32(o, uint32(dst))
	o = binary.LittleEndian.AppendUint64(o, math.Float64bits(ta))
	c.pg.out[p] = append(o, acc...)
}

// expect notes that a rank here receives from world rank src.
func (c *crossing) expect(src int) { c.from[c.pg.procOf(src)] = true }

// trade sends the phase's frames and hands each message received to
// recv (the local index of its receiver, its arrival time and bytes).
func (c *crossing) trade(r *rank, seq, round uint64, recv func(j int, ta float64, acc []byte)) error {
	pg := c.pg
	for p, b := range pg.out {
		if len(b) > 0 {
			if err := pg.send(p, gateRound, seq, round, b); err != nil {
				return err
			}
		}
		pg.out[p] = b[:0]
	}
	entry := 12 + c.size
	for p, want := range c.from {
		if !want {
			continue
		}
		body, err := pg.await(r, p, gateRound, seq, round)
		if err != nil {
			return err
		}
		if len(body)%entry != 0 {
			return fmt.Errorf("collective gate: round frame of %d bytes from process %d", len(body), p)
		}
		for k := 0; k < len(body); k += entry {
			j := int(binary.LittleEndian.Uint32(body[k:])) - r.w.base
			if j < 0 || j >= len(r.w.ranks) {
				return fmt.Errorf("collective gate: process %d sent a message for rank %d", p, j+r.w.base)
			}
			recv(j, math.Float64frombits(binary.LittleEndian.Uint64(body[k+4:])), body[k+12:k+entry])
		}
	}
	clear(c.from)
	return nil
}

// allreduceAcross is allreduce (allreduceRecDbl at the gate) for this
// process's ranks, its leader trading with the other processes, in each
// phase (the fold in, each round, the fold out), the messages that cross
// with the bytes they carry. A rank whose partner is here runs its whole
// step at once; one whose partner is in another process posts and sends
// first and waits and combines once the phase's frames are in. Each
// rank's event calls and combinations are allreduce's, in the same order.
func (g *bulkGate) allreduceAcross(r *rank, seq uint64) error {
	pg := g.procs
	w := r.w
	ranks, base, n, nl := w.ranks, w.base, w.size, len(w.ranks)
	size := len(g.accs[0])
	pof2 := pof2Below(n)
	rem := n - pof2
	wk := g.work0()
	hdr := &wk.hdr
	tmp := wk.scratch(size)
	_, posted := g.scratch(nl)
	local := func(x int) bool { return x >= base && x < base+nl }
	c := &crossing{pg: pg, size: size, from: make([]bool, len(pg.routes))}
	round := uint64(0)

	// One way, from world rank from to world rank to (the folds); done
	// runs at to once the bytes are in.
	oneWay := func(from, to int, done func(j int, in []byte)) {
		switch {
		case local(from) && local(to):
			p := ranks[to-base].bulkPost()
			ta := ranks[from-base].bulkSend(hdr, to, size)
			ranks[from-base].bulkEmptyWait()
			ranks[to-base].bulkWait(hdr, from, ta, size, p)
			done(to-base, g.accs[from-base])
		case local(from):
			ta := ranks[from-base].bulkSend(hdr, to, size)
			ranks[from-base].bulkEmptyWait()
			c.add(pg.procOf(to), to, ta, g.accs[from-base])
		case local(to):
			posted[to-base] = ranks[to-base].bulkPost()
			c.expect(from)
		}
	}
	phase := func(recv func(j int, ta float64, in []byte)) error {
		err := c.trade(r, seq, round, recv)
		round++
		return err
	}
	foldIn := func(j int, in []byte) {
		copy(tmp[0], in)
		g.rds[j].apply(tmp[0], g.accs[j])
	}
	if rem > 0 {
		for pair := range rem {
			oneWay(2*pair, 2*pair+1, foldIn)
		}
		if err := phase(func(j int, ta float64, in []byte) {
			ranks[j].bulkWait(hdr, base+j-1, ta, size, posted[j])
			foldIn(j, in)
		}); err != nil {
			return err
		}
	}
	// combine is a round's step at local index j with its partner's
	// bytes: the lower rank's on the left.
	combine := func(j, partner int, in []byte) {
		if base+j < partner {
			g.rds[j].applyRev(g.accs[j], in)
		} else {
			g.rds[j].apply(in, g.accs[j])
		}
	}
	for mask := 1; mask < pof2; mask <<= 1 {
		for k := range pof2 / 2 {
			nr := k&(mask-1) | (k&^(mask-1))<<1
			me, peer := oldRank(nr, rem), oldRank(nr|mask, rem)
			switch {
			case local(me) && local(peer):
				a, b := ranks[me-base], ranks[peer-base]
				pm, pp := a.bulkPost(), b.bulkPost()
				tm := a.bulkSend(hdr, peer, size)
				tp := b.bulkSend(hdr, me, size)
				a.bulkWait(hdr, peer, tp, size, pm)
				b.bulkWait(hdr, me, tm, size, pp)
				copy(tmp[0], g.accs[me-base])
				copy(tmp[1], g.accs[peer-base])
				combine(me-base, peer, tmp[1])
				combine(peer-base, me, tmp[0])
			case local(me) || local(peer):
				x, y := me, peer
				if !local(x) {
					x, y = y, x
				}
				o := ranks[x-base]
				posted[x-base] = o.bulkPost()
				c.add(pg.procOf(y), y, o.bulkSend(hdr, y, size), g.accs[x-base])
				c.expect(y)
			}
		}
		if err := phase(func(j int, ta float64, in []byte) {
			partner := oldRank(newRankOf(base+j, rem)^mask, rem)
			ranks[j].bulkWait(hdr, partner, ta, size, posted[j])
			combine(j, partner, in)
		}); err != nil {
			return err
		}
	}
	if rem > 0 {
		for pair := range rem {
			oneWay(2*pair+1, 2*pair, func(j int, in []byte) { copy(g.accs[j], in) })
		}
		if err := phase(func(j int, ta float64, in []byte) {
			ranks[j].bulkWait(hdr, base+j+1, ta, size, posted[j])
			copy(g.accs[j], in)
		}); err != nil {
			return err
		}
	}
	return nil
}

// newRankOf is world rank x's rank in allreduceRecDbl's power-of-two
// rounds (x takes part in them).
func newRankOf(x, rem int) int {
	if x < 2*rem {
		return x / 2
	}
	return x - rem
}
