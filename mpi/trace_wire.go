package mpi

import (
	"encoding/binary"
	"errors"
	"fmt"
	"iter"
	"math"
)

// A process hands its trace record to gompirun (launch.TraceKey) in a
// binary form: a trace can hold tens of millions of events, and as JSON
// each cost gompirun microseconds to decode. The form: the magic
// traceMagic; the dropped count (uvarint); a table of the strings the
// events name (kinds, call names, algorithms: uvarint count, then each as
// uvarint length and bytes; entry 0 is ""); the event count (uvarint); then
// per event the rank (uvarint), the kind, name and algorithm as table
// indices (uvarints), Start and End (8 bytes each, IEEE 754 little-endian),
// a flags byte (bit 0: A and B follow, as varints), the message ID
// (uvarint) and Bytes (uvarint).

const traceMagic = "GTR1"

// traceEventMin is the fewest bytes an event takes: what the event count
// is checked against before anything is allocated.
const traceEventMin = 1 + 3 + 16 + 1 + 1 + 1

// encodeTraceRecord is the wire form of a record of count events (events
// yields them, and may be called twice) and dropped.
func encodeTraceRecord(dropped int64, count int, events iter.Seq[TraceEvent]) []byte {
	index := map[string]uint64{"": 0}
	table := []string{""}
	intern := func(s string) {
		if _, ok := index[s]; !ok {
			index[s] = uint64(len(table))
			table = append(table, s)
		}
	}
	for e := range events {
		intern(e.Kind)
		intern(e.Name)
		intern(e.Algo)
	}
	b := make([]byte, 0, 64+count*28)
	b = append(b, traceMagic...)
	b = binary.AppendUvarint(b, uint64(max(dropped, 0)))
	b = binary.AppendUvarint(b, uint64(len(table)))
	for _, s := range table {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	b = binary.AppendUvarint(b, uint64(count))
	for e := range events {
		b = binary.AppendUvarint(b, uint64(max(e.Rank, 0)))
		b = binary.AppendUvarint(b, index[e.Kind])
		b = binary.AppendUvarint(b, index[e.Name])
		b = binary.AppendUvarint(b, index[e.Algo])
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(e.Start))
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(e.End))
		if e.HasArgs {
			b = append(b, 1)
			b = binary.AppendVarint(b, int64(e.A))
			b = binary.AppendVarint(b, int64(e.B))
		} else {
			b = append(b, 0)
		}
		b = binary.AppendUvarint(b, e.ID)
		b = binary.AppendUvarint(b, uint64(max(e.Bytes, 0)))
	}
	return b
}

// errTraceRecord is the error of a record that is not one.
var errTraceRecord = errors.New("not a gompi trace record")

// DecodeTraceRecord reads the trace record a process of a gompirun job
// published (gompirun -trace). A record that is truncated or not one is
// an error naming the byte offset where decoding stopped.
func DecodeTraceRecord(b []byte) (TraceRecord, error) {
	d := traceDecoder{b: b}
	if len(b) < len(traceMagic) || string(b[:len(traceMagic)]) != traceMagic {
		return TraceRecord{}, errTraceRecord
	}
	d.off = len(traceMagic)
	var rec TraceRecord
	rec.Dropped = int64(d.uvarint(math.MaxInt64))
	n := d.uvarint(uint64(len(b)))
	table := make([]string, 0, n)
	for range n {
		l := d.uvarint(uint64(len(b)))
		if d.err != nil || uint64(len(b)-d.off) < l {
			d.fail()
			break
		}
		table = append(table, string(b[d.off:d.off+int(l)]))
		d.off += int(l)
	}
	str := func() string {
		i := d.uvarint(uint64(len(table)))
		if d.err != nil || i >= uint64(len(table)) {
			d.fail()
			return ""
		}
		return table[i]
	}
	count := d.uvarint(uint64(len(b)) / traceEventMin)
	if d.err == nil {
		rec.Events = make([]TraceEvent, 0, count)
	}
	for i := uint64(0); i < count && d.err == nil; i++ {
		var e TraceEvent
		e.Rank = int(d.uvarint(math.MaxInt32))
		e.Kind, e.Name, e.Algo = str(), str(), str()
		e.Start, e.End = d.float(), d.float()
		switch d.byte() {
		case 0:
		case 1:
			e.HasArgs, e.A, e.B = true, d.int32(), d.int32()
		default:
			d.fail()
		}
		e.ID = d.uvarint(math.MaxUint64)
		e.Bytes = int(d.uvarint(math.MaxInt64))
		rec.Events = append(rec.Events, e)
	}
	if d.err == nil && d.off != len(b) {
		d.fail()
	}
	if d.err != nil {
		return TraceRecord{}, d.err
	}
	return rec, nil
}

// traceDecoder reads a record's fields; the first failure sticks.
type traceDecoder struct {
	b   []byte
	off int
	err error
}

func (d *traceDecoder) fail() {
	if d.err == nil {
		d.err = fmt.Errorf("bad gompi trace record at byte %d of %d", d.off, len(d.b))
	}
}

func (d *traceDecoder) uvarint(limit uint64) uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b[d.off:])
	if n <= 0 || v > limit {
		d.fail()
		return 0
	}
	d.off += n
	return v
}

func (d *traceDecoder) int32() int32 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b[d.off:])
	if n <= 0 || v < math.MinInt32 || v > math.MaxInt32 {
		d.fail()
		return 0
	}
	d.off += n
	return int32(v)
}

func (d *traceDecoder) float() float64 {
	if d.err != nil || len(d.b)-d.off < 8 {
		d.fail()
		return 0
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64(d.b[d.off:]))
	d.off += 8
	return v
}

func (d *traceDecoder) byte() byte {
	if d.err != nil || d.off >= len(d.b) {
		d.fail()
		return 0
	}
	d.off++
	return d.b[d.off-1]
}
