package mpi

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"math"

	"github.com/vmihailenco/msgpack/v5"
)

// The per-rank records a process of a virtual job hands gompirun
// (publishVirtual, partialPublisher) travel in a compact binary form of
// their own: a million ranks' records as JSON took seconds to write and
// read, and as msgpack (reflection over every field) still more than a
// second each way (docs/model.md, "Virtual ranks on one host"). The forms
// earlier versions published, a msgpack array of arrays or a JSON list,
// are still read.
//
// The form: recordsMagic, recordsVersion, the count (uvarint), then per
// record its integers as varints and its floats as their 8 IEEE 754 bytes,
// little-endian, in the order appendRankRecord writes them.
const (
	recordsMagic = 0xc1 // a byte that begins neither msgpack (where it is "never used") nor JSON
	// recordsVersion 2 added EngineCounts.Gated (version 1 records, which
	// have not, are still read).
	recordsVersion = 2
	// minRecordBytes is the smallest a record can be: five floats of 8
	// bytes and fifteen integers of at least a byte (sixteen in version 2).
	minRecordBytes = 5*8 + 15
	// maxRecordBytes is the largest: sixteen integers of at most
	// binary.MaxVarintLen64 bytes.
	maxRecordBytes = 5*8 + 16*binary.MaxVarintLen64
)

// rankRecordsSize is the length of what writeRankRecords(w, n, rs) writes.
func rankRecordsSize(n int, rs iter.Seq[RankRecord]) int64 {
	var scratch [maxRecordBytes]byte
	size := int64(2 + len(binary.AppendUvarint(scratch[:0], uint64(n))))
	for r := range rs {
		size += int64(len(appendRankRecord(scratch[:0], &r)))
	}
	return size
}

// writeRankRecords writes the n records rs yields to w in the compact
// form, the one a process hands gompirun (putRankRecords), a record at a
// time: a process holds neither its ranks' records as a slice nor their
// encoding (tens of megabytes at a million ranks).
func writeRankRecords(w io.Writer, n int, rs iter.Seq[RankRecord]) error {
	var scratch [maxRecordBytes]byte
	b := append(scratch[:0], recordsMagic, recordsVersion)
	if _, err := w.Write(binary.AppendUvarint(b, uint64(n))); err != nil {
		return err
	}
	for r := range rs {
		if _, err := w.Write(appendRankRecord(scratch[:0], &r)); err != nil {
			return err
		}
	}
	return nil
}

func appendRankRecord(b []byte, r *RankRecord) []byte {
	finished := int64(0)
	if r.Finished {
		finished = 1
	}
	for _, n := range [...]int64{
		int64(r.Rank), finished,
		int64(r.Waits), int64(r.HistoryMisses), int64(r.HistoryKept),
		int64(r.NodeRanks), int64(r.HostConcurrency),
		r.Sent, r.SentBytes, r.Recvd, r.RecvBytes,
		r.Temporal, r.TemporalExact, r.Stalls, r.SpeculativeStalls, r.Gated,
	} {
		b = binary.AppendVarint(b, n)
	}
	for _, f := range [...]float64{r.End, r.Computation, r.Communication, r.Waiting, r.Contention} {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(f))
	}
	return b
}

// recordReader reads the compact form; the first error sticks.
type recordReader struct {
	b   []byte
	err error
}

func (rd *recordReader) int() int64 {
	if rd.err != nil {
		return 0
	}
	n, k := binary.Varint(rd.b)
	if k <= 0 {
		rd.err = errors.New("truncated or overlong integer")
		return 0
	}
	rd.b = rd.b[k:]
	return n
}

// count is an int that must fit an int and be 0 or more.
func (rd *recordReader) count() int {
	n := rd.int()
	if rd.err == nil && (n < 0 || n > math.MaxInt32) {
		rd.err = fmt.Errorf("count %d out of range", n)
	}
	return int(n)
}

func (rd *recordReader) float() float64 {
	if rd.err != nil {
		return 0
	}
	if len(rd.b) < 8 {
		rd.err = errors.New("truncated number")
		return 0
	}
	f := math.Float64frombits(binary.LittleEndian.Uint64(rd.b))
	rd.b = rd.b[8:]
	return f
}

func (rd *recordReader) record(r *RankRecord, version byte) {
	r.Rank = rd.count()
	switch rd.int() {
	case 0:
	case 1:
		r.Finished = true
	default:
		if rd.err == nil {
			rd.err = errors.New("bad finished flag")
		}
	}
	r.Waits, r.HistoryMisses, r.HistoryKept = rd.count(), rd.count(), rd.count()
	r.NodeRanks, r.HostConcurrency = rd.count(), rd.count()
	r.Sent, r.SentBytes, r.Recvd, r.RecvBytes = rd.int(), rd.int(), rd.int(), rd.int()
	r.Temporal, r.TemporalExact, r.Stalls, r.SpeculativeStalls = rd.int(), rd.int(), rd.int(), rd.int()
	if version >= 2 {
		r.Gated = rd.int()
	}
	r.End, r.Computation, r.Communication, r.Waiting, r.Contention = rd.float(), rd.float(), rd.float(), rd.float(), rd.float()
}

func decodeCompactRecords(b []byte) ([]RankRecord, error) {
	if len(b) < 2 || b[1] < 1 || b[1] > recordsVersion {
		return nil, errors.New("virtual-time records: unknown version")
	}
	rd := recordReader{b: b[2:]}
	n, k := binary.Uvarint(rd.b)
	if k <= 0 || n > uint64(len(rd.b)/minRecordBytes) {
		return nil, errors.New("virtual-time records: bad count")
	}
	rd.b = rd.b[k:]
	rs := make([]RankRecord, n)
	for i := range rs {
		rd.record(&rs[i], b[1])
		if rd.err != nil {
			return nil, fmt.Errorf("virtual-time records: record %d: %v", i, rd.err)
		}
	}
	if len(rd.b) != 0 {
		return nil, fmt.Errorf("virtual-time records: %d bytes after the last record", len(rd.b))
	}
	return rs, nil
}

// DecodeRankRecords reads the records a process of a virtual job
// published: the compact form (writeRankRecords), or the msgpack or JSON
// list of earlier versions.
func DecodeRankRecords(b []byte) ([]RankRecord, error) {
	var rs []RankRecord
	if len(b) == 0 {
		return nil, errors.New("virtual-time records: empty")
	}
	switch b[0] {
	case recordsMagic:
		return decodeCompactRecords(b)
	case '[', 'n':
		if err := json.Unmarshal(b, &rs); err != nil {
			return nil, err
		}
		return rs, nil
	}
	if err := msgpack.Unmarshal(b, &rs); err != nil {
		return nil, fmt.Errorf("virtual-time records: %v", err)
	}
	return rs, nil
}
