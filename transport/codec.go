package transport

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// MaxPayload bounds the payload a decoded header may announce, so that a
// corrupt or hostile length cannot make a receiver allocate without limit.
const MaxPayload = 1 << 40

// EncodeHeader writes h into b, which must be at least HeaderSize bytes,
// little-endian. Wire transports (shm, tcp) use it; inproc passes headers by
// value.
func EncodeHeader(b []byte, h *Header) {
	_ = b[HeaderSize-1]
	b[0] = byte(h.Kind)
	b[1] = h.Flags
	b[2], b[3] = 0, 0
	le := binary.LittleEndian
	le.PutUint32(b[4:], h.Context)
	le.PutUint32(b[8:], uint32(h.Src))
	le.PutUint32(b[12:], uint32(h.Dst))
	le.PutUint32(b[16:], uint32(h.Tag))
	le.PutUint64(b[20:], h.SendID)
	le.PutUint64(b[28:], h.RecvID)
	le.PutUint64(b[36:], uint64(h.Size))
	le.PutUint64(b[44:], math.Float64bits(h.Arrival))
}

// ErrShortHeader is returned when fewer than HeaderSize bytes are given.
var ErrShortHeader = errors.New("transport: short frame header")

// DecodeHeader parses and validates a header. It never panics on any input.
func DecodeHeader(b []byte) (Header, error) {
	var h Header
	err := h.Decode(b)
	return h, err
}

// Decode is DecodeHeader into h, which it overwrites: a receiver decodes
// straight into the frame it delivers. (Returned by value and copied on,
// the 56-byte header was read back in 16-byte loads just after decoding
// had stored it field by field, which the processor cannot forward from
// its store buffer; docs/transports-shm.md has what that cost.)
func (h *Header) Decode(b []byte) error {
	if len(b) < HeaderSize {
		*h = Header{}
		return ErrShortHeader
	}
	le := binary.LittleEndian
	h.Kind = Kind(b[0])
	h.Flags = b[1]
	h.Context = le.Uint32(b[4:])
	h.Src = int32(le.Uint32(b[8:]))
	h.Dst = int32(le.Uint32(b[12:]))
	h.Tag = int32(le.Uint32(b[16:]))
	h.SendID = le.Uint64(b[20:])
	h.RecvID = le.Uint64(b[28:])
	h.Size = int64(le.Uint64(b[36:]))
	h.Arrival = math.Float64frombits(le.Uint64(b[44:]))
	switch {
	case h.Kind < Data || h.Kind > Ctrl:
		return fmt.Errorf("transport: bad frame kind %d", b[0])
	case b[2] != 0 || b[3] != 0:
		return errors.New("transport: reserved header bytes set")
	case h.Src < 0 || h.Dst < 0:
		return fmt.Errorf("transport: negative rank in header (%d -> %d)", h.Src, h.Dst)
	case h.Size < 0 || h.Size > MaxPayload:
		return fmt.Errorf("transport: bad frame size %d", h.Size)
	case math.IsNaN(h.Arrival) || math.IsInf(h.Arrival, 0):
		return errors.New("transport: non-finite arrival time")
	}
	return nil
}

// EncodedPayloadLen is the PayloadLen of the header encoded at the start
// of b (at least HeaderSize bytes), read without decoding the rest: a
// receiver sizing a record before it decodes the header.
func EncodedPayloadLen(b []byte) int64 {
	_ = b[HeaderSize-1]
	h := Header{Kind: Kind(b[0]), Size: int64(binary.LittleEndian.Uint64(b[36:]))}
	return h.PayloadLen()
}

// PayloadLen is the number of payload bytes that follow a header on the
// wire: REQ frames announce a size but carry nothing.
func (h *Header) PayloadLen() int64 {
	if h.Kind == Req || h.Kind == Ack {
		return 0
	}
	return h.Size
}
