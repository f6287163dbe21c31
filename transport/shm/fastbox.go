//go:build linux

package shm

import (
	"encoding/binary"
	"fmt"
	"sync/atomic"
	"unsafe"

	"github.com/gompi/gompi/transport"
)

// A ring's fastbox carries small frames in fixed cells, so that the
// consumer finds a small message by polling one cache line: the cell's
// stamp, the frame header and up to 8 payload bytes share its first line.
// Through the ring the consumer reads the tail and then the record, two
// lines written by the producer one after the other (docs/transports-shm.md,
// "Small messages", has what that costs).
//
// Cell layout: a 4-byte stamp, the frame header, the payload. An eager
// DATA of real mode, whose header has neither a receive id nor an arrival
// time, gets a short header instead (shortHeader bytes: kind with
// shortKind set, flags, payload length, a zero, context, source,
// destination, tag, send id), so that the stamp, the header and 32
// payload bytes share the cell's first line, and up to 96 bytes fit a
// cell. The producer
// fills cell n%cells with its n-th small frame and stores the stamp n+1
// last; the consumer takes cell n%cells once its stamp reads n+1. A stamp
// is never cleared: the one a cell holds until it is refilled, n+1-cells,
// cannot be mistaken for the next, so no line is written by both sides
// per message (MPICH's fastbox flag, cleared by the consumer, is). The
// consumer publishes how many cells it took in the ring's cell head; the
// producer reads it only when every cell looks full.
//
// Order with the ring: a frame goes into a cell only when the producer
// knows the ring empty (every record it published was consumed), and
// every ring record carries the number of cells published before it
// (recCells): the consumer takes those first. So frames reach the
// consumer in the order they were sent, whichever way each went.
const (
	cellSize    = 128
	cellStamp   = 4
	cellPayload = cellSize - cellStamp - transport.HeaderSize // 72 bytes
	shortHeader = 28
	shortKind   = 0x80                               // in a short header's kind byte
	shortMax    = cellSize - cellStamp - shortHeader // 96 payload bytes
	maxCells    = 8
	// recCells is where a record header holds the cells published before
	// the record (the low 32 bits).
	recCells = 12
)

// fastboxCells is how many cells a ring of ringSize data bytes has: one
// per 64 KiB, at most 8 (rings of 512 KiB), at least one: the cells take a
// 512th of a ring of 64 KiB or more, and a 64th of one of 8 KiB. Ring
// sizes are powers of two, and so is the count of cells.
func fastboxCells(ringSize uint64) int {
	return int(min(maxCells, max(1, ringSize/(64<<10))))
}

// fastboxView is a ring's cells as mapped.
type fastboxView struct {
	head *atomic.Uint64 // cells the consumer took
	mem  []byte
	last uint64 // the count of cells less one: a mask, as the count is a power of two
}

func (v *fastboxView) n() uint64 { return v.last + 1 }

// cell returns cell i modulo the count, by the mask: every poll of an
// idle ring asks, and a division is the slowest arithmetic there is.
func (v *fastboxView) cell(i uint64) []byte {
	off := (i & v.last) * cellSize
	return v.mem[off : off+cellSize : off+cellSize]
}

func stampOf(cell []byte) *atomic.Uint32 { return (*atomic.Uint32)(unsafe.Pointer(&cell[0])) }

// putCell writes f into the next cell if f fits one, the ring is empty and
// a cell is free, and reports whether it did. The caller holds r.mu.
func (r *outRing) putCell(f *transport.Frame) bool {
	if shortFits(&f.Header, len(f.Payload)) {
		return r.putShortCell(&f.Header, f.Payload)
	}
	if len(f.Payload) > cellPayload || !r.cellFree() {
		return false
	}
	c := r.cells.cell(r.cellNext)
	transport.EncodeHeader(c[cellStamp:], &f.Header)
	copy(c[cellStamp+transport.HeaderSize:], f.Payload)
	r.stamp(c)
	return true
}

// putShortCell is putCell for an eager DATA with header h and payload p
// that shortFits: it goes with a short header. The caller holds r.mu.
func (r *outRing) putShortCell(h *transport.Header, p []byte) bool {
	if !r.cellFree() {
		return false
	}
	c := r.cells.cell(r.cellNext)
	putShortHeader(c[cellStamp:], h, len(p))
	copy(c[cellStamp+shortHeader:], p)
	r.stamp(c)
	return true
}

// cellFree reports whether a frame may go into the next cell: the ring is
// empty (every record published was consumed) and a cell is free.
func (r *outRing) cellFree() bool {
	if r.pos != r.seenHead {
		if r.seenHead = r.head.Load(); r.pos != r.seenHead {
			return false
		}
	}
	if r.cellNext-r.cellSeen >= r.cells.n() {
		if r.cellSeen = r.cells.head.Load(); r.cellNext-r.cellSeen >= r.cells.n() {
			return false
		}
	}
	return true
}

// stamp publishes filled cell c, the next one.
func (r *outRing) stamp(c []byte) {
	r.cellNext++
	stampOf(c).Store(uint32(r.cellNext))
}

// shortFits reports whether an eager DATA with header h and n payload
// bytes goes into a cell with a short header: its header says nothing a
// short one drops.
func shortFits(h *transport.Header, n int) bool {
	return h.Kind == transport.Data && h.Flags == 0 && h.RecvID == 0 && h.Arrival == 0 &&
		h.Size == int64(n) && n <= shortMax
}

// putShortHeader writes the short header of h, for n payload bytes.
func putShortHeader(b []byte, h *transport.Header, n int) {
	_ = b[shortHeader-1]
	le := binary.LittleEndian
	b[0] = byte(h.Kind) | shortKind
	b[1] = h.Flags
	b[2] = byte(n)
	b[3] = 0
	le.PutUint32(b[4:], h.Context)
	le.PutUint32(b[8:], uint32(h.Src))
	le.PutUint32(b[12:], uint32(h.Dst))
	le.PutUint32(b[16:], uint32(h.Tag))
	le.PutUint64(b[20:], h.SendID)
}

// decodeShortHeader decodes a cell's short header into h and returns the
// payload after it; on an error h is left as it was. It never trusts the
// bytes. It checks the fields in registers and stores them one by one:
// a Header literal is built on the stack with narrow stores and copied
// with wide loads, which cannot take their bytes from those stores and
// wait until they have reached the cache (docs/transports-shm.md, "Small
// messages").
func decodeShortHeader(b []byte, h *transport.Header) ([]byte, error) {
	if len(b) < shortHeader {
		return nil, transport.ErrShortHeader
	}
	le := binary.LittleEndian
	kind, flags, n := transport.Kind(b[0]&^shortKind), b[1], int(b[2])
	src, dst := int32(le.Uint32(b[8:])), int32(le.Uint32(b[12:]))
	switch {
	case kind != transport.Data || flags != 0 || b[3] != 0:
		return nil, fmt.Errorf("bad short header (kind %d, flags %d)", b[0], b[1])
	case src < 0 || dst < 0:
		return nil, fmt.Errorf("negative rank in short header (%d -> %d)", src, dst)
	case len(b) != shortHeader+n:
		return nil, fmt.Errorf("short header for %d payload bytes, %d there", n, len(b)-shortHeader)
	}
	h.Kind, h.Flags = kind, flags
	h.Context = le.Uint32(b[4:])
	h.Src, h.Dst = src, dst
	h.Tag = int32(le.Uint32(b[16:]))
	h.SendID, h.RecvID = le.Uint64(b[20:]), 0
	h.Size, h.Arrival = int64(n), 0
	return b[shortHeader:], nil
}

// nextCell returns the body (frame header and payload) of the next filled
// cell, or nil when the producer has not filled it yet. It never trusts
// the bytes: a payload longer than a cell holds is an error.
func (r *inRing) nextCell() ([]byte, error) {
	c := r.cells.cell(r.cellPos)
	if stampOf(c).Load() != uint32(r.cellPos+1) {
		return nil, nil
	}
	body := c[cellStamp:]
	hdr, plen, most := transport.HeaderSize, transport.EncodedPayloadLen(body), int64(cellPayload)
	if body[0]&shortKind != 0 {
		hdr, plen, most = shortHeader, int64(body[2]), shortMax
	}
	if plen < 0 || plen > most {
		return nil, fmt.Errorf("shm: ring from process %d: %d payload bytes in a fastbox cell", r.from, plen)
	}
	return body[:hdr+int(plen)], nil
}

// cellReady reports, without the ring's lock, whether the next cell looks
// filled: a hint for skipping idle rings, as their tail is.
func (r *inRing) cellReady() bool {
	n := r.cells.head.Load()
	return stampOf(r.cells.cell(n)).Load() == uint32(n+1)
}

// nextInOrder returns the next record in the order the producer sent
// them, from the cells or the ring (recLen 0 for a cell), or ok=false
// when there is none.
func (r *inRing) nextInOrder() (typ byte, body []byte, recLen int, ok bool, err error) {
	if body, err = r.nextCell(); body != nil || err != nil {
		return recCell, body, 0, body != nil, err
	}
	typ, body, recLen, cells, ok, err := r.next()
	if !ok || err != nil || int32(cells-uint32(r.cellPos)) <= 0 {
		return typ, body, recLen, ok, err
	}
	// The record follows cells we have not taken. They were filled
	// before the record's tail was published, so they are visible now.
	if body, err = r.nextCell(); body != nil || err != nil {
		return recCell, body, 0, body != nil, err
	}
	return 0, nil, 0, false, fmt.Errorf("shm: ring from process %d: a record follows fastbox cell %d, which is empty", r.from, r.cellPos)
}

// release takes the record nextInOrder returned: the producer may reuse
// its room once publish says so.
func (r *inRing) release(recLen int) {
	if recLen > 0 {
		r.pos += uint64(recLen)
		return
	}
	r.cellPos++
}
