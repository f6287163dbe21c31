//go:build linux

package shm

import (
	"encoding/binary"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/gompi/gompi/transport"
)

// A ring is a single-producer single-consumer byte queue in shared memory.
// head and tail are byte counts that only grow; the position in the data is
// count & mask. The producer owns tail and the data between tail and
// head+size; the consumer owns head and the data between head and tail.
// Publishing a record is one atomic store of tail after its bytes are
// written, consuming it one atomic store of head after they are read.
//
// Records are 16-byte aligned and never wrap: when one does not fit before
// the end of the data, the producer fills the rest with a pad record.
// Record header (recHdr bytes): length of the whole record (multiple of
// recAlign), length of the body, type, zeros, and at recCells the number
// of fastbox cells filled before the record (fastbox.go).
const (
	recHdr   = 16
	recAlign = 16

	recPad   = 1 // skip to the start of the data
	recFrame = 2 // frame header + the first (maybe only) part of the payload
	recChunk = 3 // the next part of a frame's payload
	recRdv   = 4 // frame header + address, length, token: read it with process_vm_readv
	recDone  = 5 // token: the receiver is done with the sender's buffer
	// An ACK + the address and length of the receive buffer it is for
	// (virtual-time runs; see landing.go).
	recLand = 6
	// A rendezvous DATA's header: its payload is already in the receive
	// buffer its ACK named (landing.go).
	recLanded = 7
	// A rendezvous DATA whose payload both ends copy (split.go): frame
	// header + address, length, token, offset of the sender's part; then
	// the token and a status once the sender's part is written.
	recSplit     = 8
	recSplitDone = 9
	recLast      = recSplitDone
	// A frame taken from a fastbox cell (nextInOrder), never a ring
	// record: its header may be a cell's short one (fastbox.go).
	recCell = recLast + 1

	minRing = 1 << 10 // a frame record carries up to a quarter of the ring in payload
	maxRing = 1 << 30
)

type ringView struct {
	head, tail *atomic.Uint64
	roomWait   *atomic.Uint32
	data       []byte
	mask       uint64
	cells      fastboxView
}

func (s *segment) ring(i int) ringView {
	b := s.ringBase(i)
	ncells := fastboxCells(s.ringSize)
	d := b + ringCtl + ncells*cellSize
	return ringView{
		head:     s.u64(b),
		tail:     s.u64(b + ringTail),
		roomWait: s.u32(b + ringRoomWait),
		data:     s.mem[d : d+int(s.ringSize) : d+int(s.ringSize)],
		mask:     s.ringSize - 1,
		cells: fastboxView{
			head: s.u64(b + ringCellHead),
			mem:  s.mem[b+ringCtl : d : d],
			last: uint64(ncells - 1),
		},
	}
}

func alignUp(n int) int { return (n + recAlign - 1) &^ (recAlign - 1) }

// outRing is this process's producer side of its ring in a peer's segment.
// Goroutines of this process serialise on mu; tail is private to the holder.
type outRing struct {
	ringView
	mu       sync.Mutex
	pos      uint64 // next tail
	seenHead uint64 // the consumer's head when last read: avoids touching its cache line
	cellNext uint64 // fastbox cells filled
	cellSeen uint64 // the consumer's cell head when last read
	// cut is why a frame's chunks stopped before its end (sendFrame): no
	// frame may follow in this ring, where the consumer would take it
	// for a protocol fault.
	cut error
	// A goroutine of this process waits for room (awaitRoom): the waiter
	// goroutine tells it on room when the consumer says it freed some.
	waiting atomic.Bool
	room    chan struct{}
}

// reserve returns room for a record of n bytes (n aligned, at most half the
// ring) or nil when the ring is too full now. It may publish a pad record.
func (r *outRing) reserve(n int) []byte {
	size := uint64(len(r.data))
	for {
		idx := r.pos & r.mask
		need := uint64(n)
		if rest := size - idx; rest < need {
			need = rest // pad first
		}
		if size-(r.pos-r.seenHead) < need {
			r.seenHead = r.head.Load()
			if size-(r.pos-r.seenHead) < need {
				return nil
			}
		}
		if need == uint64(n) {
			return r.data[idx : idx+need]
		}
		putRecHdr(r.data[idx:], int(need), 0, recPad)
		r.publish(int(need))
	}
}

// publish makes the record just written in the reserved room visible,
// after the fastbox cells filled before it (fastbox.go).
func (r *outRing) publish(n int) {
	binary.LittleEndian.PutUint32(r.data[r.pos&r.mask+recCells:], uint32(r.cellNext))
	r.pos += uint64(n)
	r.tail.Store(r.pos)
}

func putRecHdr(b []byte, recLen, bodyLen int, typ byte) {
	binary.LittleEndian.PutUint32(b[0:], uint32(recLen))
	binary.LittleEndian.PutUint32(b[4:], uint32(bodyLen))
	b[8] = typ
	clear(b[9:recHdr])
}

// inRing is the consumer side of one ring of this process's segment. Any
// goroutine of this process may consume, one at a time: busy is a try-lock,
// so a rank polling its inbox never waits behind another.
type inRing struct {
	ringView
	from int // sending local process
	busy atomic.Bool
	pos  uint64 // head, private to the lock holder
	// Fastbox cells taken, private to the lock holder (the cells' head
	// tells the producer).
	cellPos uint64
	// The producer's tail when last read, and the head and cell head last
	// stored: the consumer reads the producer's line only once it has
	// taken every record it saw published, and stores its own only now
	// and then (publish), so that a producer running ahead and a consumer
	// catching up do not pass the two lines back and forth per record.
	seenTail, headShown, cellsShown uint64
	// A frame whose payload arrives in several records, being assembled.
	partial *partialFrame
	broken  error // set on a corrupt record: the ring is not read again
	// The header of a frame offered to a rank straight from the ring
	// (handleFrameDirect).
	offered transport.Header
}

func (r *inRing) tryLock() bool { return r.busy.CompareAndSwap(false, true) }
func (r *inRing) unlock()       { releaseBool(&r.busy, false) }

// next returns the type and body of the next record, or ok=false when the
// ring is empty. It never trusts the bytes: a record that does not fit what
// the producer published is an error.
func (r *inRing) next() (typ byte, body []byte, recLen int, cells uint32, ok bool, err error) {
	if r.seenTail == r.pos {
		if r.seenTail = r.tail.Load(); r.seenTail == r.pos {
			return 0, nil, 0, 0, false, nil
		}
	}
	tail := r.seenTail
	avail := tail - r.pos
	idx := r.pos & r.mask
	size := uint64(len(r.data))
	if avail > size || avail < recHdr || size-idx < recHdr {
		return 0, nil, 0, 0, false, fmt.Errorf("shm: ring from process %d: bad positions head=%d tail=%d", r.from, r.pos, tail)
	}
	h := r.data[idx : idx+recHdr]
	n := uint64(binary.LittleEndian.Uint32(h[0:]))
	blen := uint64(binary.LittleEndian.Uint32(h[4:]))
	typ = h[8]
	cells = binary.LittleEndian.Uint32(h[recCells:])
	switch {
	case n < recHdr || n%recAlign != 0 || n > avail || idx+n > size:
		err = fmt.Errorf("shm: ring from process %d: bad record length %d", r.from, n)
	case blen > n-recHdr:
		err = fmt.Errorf("shm: ring from process %d: record body %d exceeds record %d", r.from, blen, n)
	case typ < recPad || typ > recLast:
		err = fmt.Errorf("shm: ring from process %d: bad record type %d", r.from, typ)
	}
	if err != nil {
		return 0, nil, 0, 0, false, err
	}
	return typ, r.data[idx+recHdr : idx+recHdr+blen], int(n), cells, true, nil
}

// publish shows the producer the records and cells taken since it last
// did and reports whether it freed room in the ring.
func (r *inRing) publish() (freed bool) {
	if r.cellPos != r.cellsShown {
		// Release order is enough: no producer waits for cells (putCell
		// falls back to the ring). The head below is read by one that
		// waits for room, after it raised its flag, which showTaken
		// reads after this store: that one stays a full fence.
		r.cellsShown = r.cellPos
		releaseUint64(r.cells.head, r.cellPos)
	}
	if r.pos == r.headShown {
		return false
	}
	r.headShown = r.pos
	r.head.Store(r.pos)
	return true
}
