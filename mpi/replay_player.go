package mpi

import (
	"fmt"
	"reflect"
	"unsafe"

	"github.com/gompi/gompi/internal/record"
)

// player re-issues one rank's recorded calls (replay.go).
type player struct {
	world *Comm
	s     *record.Stream
	name  string
	comms map[int64]*Comm    // by context: the world's and those the replay made
	reqs  map[int64]*Request // by recorded identity
	// anySrc is the source each AnySource Irecv matched, by request.
	anySrc map[int64]int64
	// Payload-free buffers: every send reads the one zeroed send buffer,
	// every receive writes the one receive buffer, each grown to the
	// largest message; nothing is allocated per message.
	send, recv []byte
	ev         int // the event being played
	args       []int64
	bad        error // an argument list that does not fit its op
}

// argErr is an event whose arguments do not fit its op.
func (pl *player) argErr(what string) {
	if pl.bad == nil {
		pl.bad = fmt.Errorf("%s: event %d (%s): %s", pl.name, pl.ev, opName(pl.s.Op(pl.ev)), what)
	}
}

func opName(op uint8) string {
	switch op {
	case record.Burst, record.BurstNS, record.BurstRef:
		return "burst"
	case record.BurstScale, record.BurstScaleNS:
		return "stretch sums"
	case record.Elapse:
		return "Elapse"
	case record.Unsupported:
		return "unsupported call"
	case record.Free:
		return "Comm.Free"
	}
	if op > 0 && int(op) < int(callsEnd) {
		return callNames[op]
	}
	return fmt.Sprintf("op %d", op)
}

// int takes the next argument.
func (pl *player) int() int64 {
	if len(pl.args) == 0 {
		pl.argErr("too few arguments")
		return 0
	}
	v := pl.args[0]
	pl.args = pl.args[1:]
	return v
}

// n takes an argument that is a size, count or rank: non-negative and an
// int32 (a corrupt record must not ask for a huge buffer unnoticed).
func (pl *player) n() int {
	v := pl.int()
	if v < 0 || v > 1<<40 {
		pl.argErr(fmt.Sprintf("size %d out of range", v))
		return 0
	}
	return int(v)
}

// rank takes a peer, root or tag argument (AnySource, ProcNull allowed:
// the call itself checks the range).
func (pl *player) rank() int {
	v := pl.int()
	if v < -1<<31 || v >= 1<<31 {
		pl.argErr(fmt.Sprintf("rank or tag %d out of range", v))
		return 0
	}
	return int(v)
}

// list takes a count then that many sizes.
func (pl *player) list() []int {
	k := pl.n()
	if k > len(pl.args) {
		pl.argErr(fmt.Sprintf("list of %d, %d arguments left", k, len(pl.args)))
		return nil
	}
	out := make([]int, k)
	for i := range out {
		out[i] = pl.rank()
	}
	return out
}

func (pl *player) comm() *Comm {
	ctx := pl.int()
	c, ok := pl.comms[ctx]
	if !ok {
		pl.argErr(fmt.Sprintf("no communicator of context %d", ctx))
	}
	return c
}

// size takes a buffer size, which the record's largest buffer bounds.
func (pl *player) size() int {
	n := pl.n()
	if int64(n) > pl.s.MaxBytes {
		pl.argErr(fmt.Sprintf("buffer of %d bytes; the record's largest is %d", n, pl.s.MaxBytes))
		return 0
	}
	return n
}

// sendBuf and recvBuf are the scratch buffers cut to n bytes.
func (pl *player) sendBuf(n int) []byte {
	if n > len(pl.send) {
		pl.send = make([]byte, n)
	}
	return pl.send[:n]
}

func (pl *player) recvBuf(n int) []byte {
	if n > len(pl.recv) {
		pl.recv = make([]byte, n)
	}
	return pl.recv[:n]
}

// play re-issues the rank's calls in order.
func (pl *player) play() error {
	pl.comms = map[int64]*Comm{int64(pl.world.ctx): pl.world}
	pl.reqs, pl.anySrc = map[int64]*Request{}, map[int64]int64{}
	pl.matched()
	for pl.ev = 0; pl.ev < pl.s.Len(); pl.ev++ {
		op := pl.s.Op(pl.ev)
		if op == record.Burst || op == record.BurstNS || op == record.BurstRef || op == record.BurstScale || op == record.BurstScaleNS {
			continue // the meter's (scriptMeter, Recording.memberBursts)
		}
		pl.args = pl.s.Args(pl.ev)
		err := pl.call(op)
		if pl.bad != nil {
			return pl.bad
		}
		if err != nil && !tolerated(err) {
			return fmt.Errorf("%s: event %d (%s): %w", pl.name, pl.ev, opName(op), err)
		}
	}
	return nil
}

// tolerated are the errors a program may have met and gone on from:
// a receive truncated, and the Waitall reporting it.
func tolerated(err error) bool {
	c := ClassOf(err)
	return c == ClassTruncate || c == ClassInStatus
}

// matched reads ahead the sources AnySource Irecvs matched: the Wait or
// Test that completed each says (recorder.completions).
func (pl *player) matched() {
	for i := 0; i < pl.s.Len(); i++ {
		switch callOp(pl.s.Op(i)) {
		case callWait, callWaitall, callWaitany, callWaitsome, callTest, callTestany, callTestsome, callTestall:
		default:
			continue
		}
		a := pl.s.Args(i)
		if len(a) == 0 || a[0] < 0 || a[0] >= int64(len(a)) {
			continue // play reports it
		}
		a = a[1+a[0]:]
		if len(a) == 0 || a[0] < 0 || 2*a[0] > int64(len(a)-1) {
			continue
		}
		for k := int64(0); k < a[0]; k++ {
			pl.anySrc[a[1+2*k]] = a[2+2*k]
		}
	}
}

// requests takes a Wait's or Test's list of request identities.
func (pl *player) requests() []*Request {
	ids := pl.list()
	reqs := make([]*Request, len(ids))
	for i, id := range ids {
		reqs[i] = pl.reqs[int64(id)] // unknown or 0: the null request
	}
	return reqs
}

// track keeps a request the replay made under its recorded identity.
func (pl *player) track(q *Request) {
	if id := pl.int(); id > 0 && q != nil {
		pl.reqs[id] = q
	}
}

func (pl *player) call(op uint8) error {
	switch op {
	case record.Elapse:
		pl.world.Elapse(durationOf(pl.int()))
		return nil
	case record.Unsupported:
		what := "a call this gompi's record does not know"
		if f := pl.int(); f >= 0 && f < int64(len(unrecordable)) {
			what = unrecordable[f]
		}
		return fmt.Errorf("the recorded program made %s, which a record cannot replay yet: it was recorded up to there (docs/replay.md)", what)
	case record.Free:
		c := pl.comm()
		if pl.bad != nil {
			return nil
		}
		delete(pl.comms, int64(c.ctx))
		return c.Free()
	}
	switch o := callOp(op); o {
	case callWait, callWaitall, callWaitany, callWaitsome, callTest, callTestany, callTestsome, callTestall:
		return pl.wait(o)
	}
	c := pl.comm()
	a, b := pl.rank(), pl.rank()
	if pl.bad != nil {
		return nil
	}
	switch o := callOp(op); o {
	case callSend, callSsend, callIsend, callIssend:
		buf := pl.sendBuf(pl.size())
		switch o {
		case callSend:
			return Send(c, buf, a, b)
		case callSsend:
			return Ssend(c, buf, a, b)
		}
		var q *Request
		var err error
		if o == callIsend {
			q, err = Isend(c, buf, a, b)
		} else {
			q, err = Issend(c, buf, a, b)
		}
		pl.track(q)
		return err
	case callIrecv:
		buf := pl.recvBuf(pl.size())
		id := pl.int()
		if a == AnySource {
			if src, ok := pl.anySrc[id]; ok && src >= 0 {
				a = int(src) // the recorded matching
			}
		}
		q, err := Irecv(c, buf, a, b)
		if id > 0 && q != nil {
			pl.reqs[id] = q
		}
		return err
	case callRecv:
		buf := pl.recvBuf(pl.size())
		if src := pl.rank(); a == AnySource && src >= 0 {
			a = src
		}
		_, err := Recv(c, buf, a, b)
		return err
	case callSendrecv:
		stag, sbuf := pl.rank(), pl.sendBuf(pl.size())
		rtag, rbuf := pl.rank(), pl.recvBuf(pl.size())
		if src := pl.rank(); b == AnySource && src >= 0 {
			b = src
		}
		if pl.bad != nil {
			return nil
		}
		_, err := Sendrecv(c, sbuf, a, stag, rbuf, b, rtag)
		return err
	case callProbe:
		if src := pl.rank(); a == AnySource && src >= 0 {
			a = src
		}
		_, err := c.Probe(a, b)
		return err
	case callIprobe:
		_, _, err := c.Iprobe(a, b) // its answer is the record's
		return err
	case callBarrier:
		return c.Barrier()
	case callBcast:
		return Bcast(c, pl.recvBuf(pl.size()), a)
	case callReduce, callAllreduce, callScan, callExscan, callReduceScatter, callReduceScatterBlock:
		return pl.reduction(c, o, a)
	case callGather, callScatter, callAllgather, callAlltoall,
		callGatherv, callScatterv, callAllgatherv, callAlltoallv:
		return pl.collective(c, o, a)
	case callDup, callCreate, callSplit:
		return pl.newComm(c, o)
	}
	pl.argErr("not a call a record holds")
	return nil
}

func (pl *player) wait(o callOp) error {
	reqs := pl.requests()
	if pl.bad != nil {
		return nil
	}
	var err error
	switch o {
	case callWait:
		if len(reqs) != 1 {
			pl.argErr("Wait of other than one request")
			return nil
		}
		_, err = reqs[0].Wait()
	case callTest:
		if len(reqs) != 1 {
			pl.argErr("Test of other than one request")
			return nil
		}
		_, _, err = reqs[0].Test()
	case callWaitall:
		_, err = Waitall(reqs)
	case callWaitany:
		_, _, err = Waitany(reqs)
	case callWaitsome:
		_, _, err = Waitsome(reqs)
	case callTestany:
		_, _, _, err = Testany(reqs)
	case callTestsome:
		_, _, err = Testsome(reqs)
	case callTestall:
		_, _, err = Testall(reqs)
	}
	return err
}

func (pl *player) newComm(c *Comm, o callOp) error {
	var nc *Comm
	var err error
	switch o {
	case callDup:
		nc, err = c.Dup()
	case callSplit:
		color, key := pl.rank(), pl.rank()
		if pl.bad != nil {
			return nil
		}
		nc, err = c.Split(color, key)
	case callCreate:
		members := pl.list()
		if pl.bad != nil {
			return nil
		}
		ranks := make([]int, len(members))
		for i, w := range members {
			if ranks[i] = c.group.rankOf(w); ranks[i] == Undefined {
				pl.argErr(fmt.Sprintf("world rank %d is not in the communicator", w))
				return nil
			}
		}
		g, gerr := c.Group().Incl(ranks)
		if gerr != nil {
			return gerr
		}
		nc, err = c.Create(g)
	}
	ctx := pl.int()
	if nc != nil && ctx >= 0 {
		pl.comms[ctx] = nc
	}
	return err
}

// collective replays the data collectives without a reduction, on bytes:
// only sizes matter, and counts and displacements were recorded in bytes.
func (pl *player) collective(c *Comm, o callOp, root int) error {
	inPlace := pl.int() != 0
	sn, rn := pl.size(), pl.size()
	if pl.bad != nil {
		return nil
	}
	send, recv := pl.sendBuf(sn), pl.recvBuf(rn)
	if inPlace {
		send = pl.recvBuf(sn) // the one buffer, written in place
	}
	switch o {
	case callGather:
		if inPlace {
			return GatherInPlace(c, send, root)
		}
		return Gather(c, send, recv, root)
	case callScatter:
		if inPlace {
			return ScatterInPlace(c, send, root)
		}
		return Scatter(c, send, recv, root)
	case callAllgather:
		if inPlace {
			return AllgatherInPlace(c, send)
		}
		return Allgather(c, send, recv)
	case callAlltoall:
		if inPlace {
			return AlltoallInPlace(c, send)
		}
		return Alltoall(c, send, recv)
	}
	counts, displs := pl.list(), pl.list()
	if pl.bad != nil {
		return nil
	}
	switch o {
	case callGatherv:
		if inPlace {
			return GathervInPlace(c, send, counts, displs, root)
		}
		return Gatherv(c, send, recv, counts, displs, root)
	case callScatterv:
		if inPlace {
			return ScattervInPlace(c, send, counts, displs, root)
		}
		return Scatterv(c, send, counts, displs, recv, root)
	case callAllgatherv:
		if inPlace {
			return AllgathervInPlace(c, send, counts, displs)
		}
		return Allgatherv(c, send, recv, counts, displs)
	}
	if inPlace {
		return AlltoallvInPlace(c, send, counts, displs)
	}
	rcounts, rdispls := pl.list(), pl.list()
	if pl.bad != nil {
		return nil
	}
	return Alltoallv(c, send, counts, displs, recv, rcounts, rdispls)
}

// kindOf is T's kind: the record names a reduction's element type by it.
func kindOf[T Numeric]() reflect.Kind { return reflect.TypeFor[T]().Kind() }

// reduction replays a reduction with the recorded element type and
// operation (its commutativity, and whether it is predefined, choose the
// algorithm).
func (pl *player) reduction(c *Comm, o callOp, root int) error {
	switch k := reflect.Kind(pl.int()); k {
	case reflect.Int:
		return replayRed[int](pl, c, o, root)
	case reflect.Int8:
		return replayRed[int8](pl, c, o, root)
	case reflect.Int16:
		return replayRed[int16](pl, c, o, root)
	case reflect.Int32:
		return replayRed[int32](pl, c, o, root)
	case reflect.Int64:
		return replayRed[int64](pl, c, o, root)
	case reflect.Uint:
		return replayRed[uint](pl, c, o, root)
	case reflect.Uint8:
		return replayRed[uint8](pl, c, o, root)
	case reflect.Uint16:
		return replayRed[uint16](pl, c, o, root)
	case reflect.Uint32:
		return replayRed[uint32](pl, c, o, root)
	case reflect.Uint64:
		return replayRed[uint64](pl, c, o, root)
	case reflect.Uintptr:
		return replayRed[uintptr](pl, c, o, root)
	case reflect.Float32:
		return replayRed[float32](pl, c, o, root)
	case reflect.Float64:
		return replayRed[float64](pl, c, o, root)
	case reflect.Complex64:
		return replayRed[complex64](pl, c, o, root)
	case reflect.Complex128:
		return replayRed[complex128](pl, c, o, root)
	default:
		pl.argErr(fmt.Sprintf("element kind %d", k))
		return nil
	}
}

// builtinOps are the predefined operations by code.
var builtinOps = map[opCode]Op{
	opSum: Sum, opProd: Prod, opMin: Min, opMax: Max, opLAnd: LAnd, opLOr: LOr, opLXor: LXor,
	opBAnd: BAnd, opBOr: BOr, opBXor: BXor, opMaxLoc: MaxLoc, opMinLoc: MinLoc,
}

func replayRed[T Numeric](pl *player, c *Comm, o callOp, root int) error {
	code, commute := opCode(pl.int()), pl.int() != 0
	inPlace, loc := pl.int() != 0, pl.int() != 0
	count := pl.n()
	if int64(count)*int64(sizeOf[T]()) > pl.s.MaxBytes || loc && int64(count)*int64(unsafe.Sizeof(ValIdx[T]{})) > pl.s.MaxBytes {
		pl.argErr(fmt.Sprintf("%d elements; the record's largest buffer is %d bytes", count, pl.s.MaxBytes))
	}
	var counts []int
	if o == callReduceScatter {
		counts = pl.list()
	}
	if pl.bad != nil {
		return nil
	}
	op, ok := builtinOps[code]
	if code == opUser {
		// A user operation's result does not matter here; its
		// commutativity chooses the algorithm.
		op = NewOp(func(in, inout []T) {}, commute)
	} else if !ok {
		op = Op{} // the recorded call failed on it too
	}
	if loc {
		return replayLoc[T](pl, c, o, op, root, inPlace, count)
	}
	n := sizeOf[T]()
	send, recv := view[T](pl.sendBuf(count*n)), view[T](pl.recvBuf(count*n))
	if inPlace {
		send = recv
	}
	switch o {
	case callReduce:
		if inPlace {
			return ReduceInPlace(c, send, op, root)
		}
		return Reduce(c, send, recv, op, root)
	case callAllreduce:
		if inPlace {
			return AllreduceInPlace(c, send, op)
		}
		return Allreduce(c, send, recv, op)
	case callScan:
		if inPlace {
			return ScanInPlace(c, send, op)
		}
		return Scan(c, send, recv, op)
	case callExscan:
		if inPlace {
			return ExscanInPlace(c, send, op)
		}
		return Exscan(c, send, recv, op)
	case callReduceScatter:
		if inPlace {
			return ReduceScatterInPlace(c, send, counts, op)
		}
		return ReduceScatter(c, send, recv, counts, op)
	}
	if inPlace {
		return ReduceScatterBlockInPlace(c, send, op)
	}
	return ReduceScatterBlock(c, send, recv[:count/max(c.Size(), 1)], op)
}

func replayLoc[T Numeric](pl *player, c *Comm, o callOp, op Op, root int, inPlace bool, count int) error {
	n := int(unsafe.Sizeof(ValIdx[T]{}))
	send, recv := view[ValIdx[T]](pl.sendBuf(count*n)), view[ValIdx[T]](pl.recvBuf(count*n))
	switch {
	case o == callReduce:
		return ReduceLoc(c, send, recv, op, root)
	case o == callAllreduce && inPlace:
		return AllreduceLocInPlace(c, recv, op)
	case o == callAllreduce:
		return AllreduceLoc(c, send, recv, op)
	}
	pl.argErr("a pair reduction other than ReduceLoc and AllreduceLoc")
	return nil
}
