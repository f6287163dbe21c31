// Package record is the on-disk format of gompi's trace-driven replay
// (gompirun -record DIR, gompirun -replay DIR): one file per rank holding
// the rank's stream of user-level MPI calls with the arguments a replay
// needs, and the computation bursts measured between and inside them.
//
// A rank file is the magic "GOMPIREC", then a gzip stream of
//
//	header:  uvarint format version (1, or 2 in a compacted record's
//	         member file, which holds its stretch sums), uvarint rank,
//	         uvarint ranks,
//	         uvarint host concurrency (k_h, for the contention factor)
//	events:  byte op (never 0), uvarint n, n zigzag varints
//	trailer: byte 0, uvarint events, uvarint timing-dependent calls,
//	         uvarint largest buffer (bytes)
//
// What an event's integers mean depends on its op, which the writer (the
// mpi package) defines; this package only frames them. A burst is an
// event of op BurstNS (whole nanoseconds) or Burst (the float64's bits
// otherwise). The largest buffer bounds what a replay allocates for a
// corrupt size. The decoder
// reports corruption and truncation as "FILE: offset N: what", N counting
// bytes of the decompressed stream, and never allocates more than the data
// it has read justifies.
package record

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sync"
	"time"
)

// Magic opens every rank file. Version is the newest format version this
// package reads: 1 is a record as gompirun -record writes it (its rank
// files and manifest carry 1, which gompi before version 2 reads too); 2
// is a record compacted with members' stretch sums (Compact): its
// manifest and its members' files carry 2.
const (
	Magic   = "GOMPIREC"
	Version = 2
	// Recorded is the version a recording writes.
	Recorded = 1
)

// Ops of the events this package itself gives a meaning to; the mpi
// package's call ops are below them.
const (
	Burst  uint8 = 255 // one measured computation burst: [float64 bits of its seconds]
	Elapse uint8 = 254 // Comm.Elapse: [nanoseconds]
	Free   uint8 = 253 // Comm.Free: [context]
	// BurstNS is a burst of whole nanoseconds, [nanoseconds], whose
	// seconds are exactly time.Duration(ns).Seconds(): what the thread
	// CPU meter measures, in 3 or 4 bytes rather than 10.
	BurstNS uint8 = 252
	// Unsupported marks a call the recorder cannot record for replay,
	// [the index of its name in the mpi package's table]: a replay stops
	// there with an error naming it.
	Unsupported uint8 = 251
)

// maxArgs bounds an event's integer count: the largest call (a v-variant
// collective on a huge communicator) stays far below it, and a corrupt
// count is refused before the decoder reads on.
const maxArgs = 1 << 26

// Header is what a rank file says about its rank.
type Header struct {
	Rank, Ranks     int
	HostConcurrency int // k_h of the recording (vtime.Rank.SetHostConcurrency)
}

// Event is one entry of a rank's stream.
type Event struct {
	Op   uint8
	Args []int64
}

// Writer accumulates a rank's events in memory (uncompressed varints: a
// few bytes per call) until Flush compresses them into the rank's file.
type Writer struct {
	version   int // of the file: Recorded, or 2 once it holds stretch sums
	buf       []byte
	events    int64
	sensitive int64
	maxBytes  int64
}

// Event appends one event.
func (w *Writer) Event(op uint8, args []int64) {
	if isScale(op) {
		w.version = 2
	}
	w.buf = append(w.buf, op)
	w.buf = binary.AppendUvarint(w.buf, uint64(len(args)))
	for _, a := range args {
		w.buf = binary.AppendVarint(w.buf, a)
	}
	w.events++
}

// Burst appends a computation burst of d seconds, as whole nanoseconds
// when that gives back d exactly.
func (w *Writer) Burst(d float64) {
	if ns := math.Round(d * 1e9); ns >= 0 && ns < 1<<62 && time.Duration(ns).Seconds() == d {
		w.Event(BurstNS, []int64{int64(ns)})
		return
	}
	w.Event(Burst, []int64{int64(math.Float64bits(d))})
}

// Sensitive counts a call whose outcome depended on timing (AnySource,
// probes, tests): the trailer says how many there were.
func (w *Writer) Sensitive() { w.sensitive++ }

// Buffer notes a buffer of n bytes the rank used: the trailer keeps the
// largest.
func (w *Writer) Buffer(n int64) { w.maxBytes = max(w.maxBytes, n) }

// Len is the number of events so far.
func (w *Writer) Len() int64 { return w.events }

var gzPool = sync.Pool{New: func() any { return gzip.NewWriter(nil) }}

// WriteFile writes the rank file at path: magic, header, events, trailer.
func (w *Writer) WriteFile(path string, h Header) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(f)
	bw.WriteString(Magic)
	z := gzPool.Get().(*gzip.Writer)
	defer gzPool.Put(z)
	z.Reset(bw)
	var hd []byte
	for _, v := range []int{max(Recorded, w.version), h.Rank, h.Ranks, h.HostConcurrency} {
		hd = binary.AppendUvarint(hd, uint64(v))
	}
	z.Write(hd)
	z.Write(w.buf)
	tr := binary.AppendUvarint([]byte{0}, uint64(w.events))
	tr = binary.AppendUvarint(tr, uint64(w.sensitive))
	tr = binary.AppendUvarint(tr, uint64(w.maxBytes))
	z.Write(tr)
	err = z.Close()
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	return nil
}

// Reader decodes one rank file.
type Reader struct {
	name      string
	version   int
	r         *bufio.Reader
	off       int64 // bytes of the decompressed stream consumed
	header    Header
	events    int64
	sensitive int64
	maxBytes  int64
	done      bool
}

// NewReader reads the magic and the header of the rank file named name
// from r.
func NewReader(name string, r io.Reader) (*Reader, error) {
	var magic [len(Magic)]byte
	n, err := io.ReadFull(r, magic[:])
	if err != nil && n > 0 && string(magic[:n]) == Magic[:n] {
		return nil, fmt.Errorf("%s: offset %d: truncated in the magic", name, n)
	}
	if err != nil || string(magic[:]) != Magic {
		return nil, fmt.Errorf("%s: offset 0: not a gompi record (no %q magic)", name, Magic)
	}
	z, err := gzip.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("%s: offset %d of the file: compressed stream: %v", name, len(Magic), err)
	}
	d := &Reader{name: name, r: bufio.NewReader(z)}
	var hd [4]uint64
	for i := range hd {
		if hd[i], err = d.uvarint("header"); err != nil {
			return nil, err
		}
	}
	if hd[0] < Recorded || hd[0] > Version {
		return nil, d.errorf("format version %d; this gompi reads versions %d to %d", hd[0], Recorded, Version)
	}
	d.version = int(hd[0])
	if hd[2] < 1 || hd[2] > math.MaxInt32 || hd[1] >= hd[2] || hd[3] > math.MaxInt32 {
		return nil, d.errorf("header: rank %d of %d ranks, host concurrency %d", hd[1], hd[2], hd[3])
	}
	d.header = Header{Rank: int(hd[1]), Ranks: int(hd[2]), HostConcurrency: int(hd[3])}
	return d, nil
}

// Header is the file's header.
func (d *Reader) Header() Header { return d.header }

// Sensitive is the trailer's count of timing-dependent calls (valid once
// Next has returned io.EOF).
func (d *Reader) Sensitive() int64 { return d.sensitive }

func (d *Reader) errorf(format string, a ...any) error {
	return d.errorAt(d.off, format, a...)
}

func (d *Reader) errorAt(off int64, format string, a ...any) error {
	return fmt.Errorf("%s: offset %d: %s", d.name, off, fmt.Sprintf(format, a...))
}

// Offset is how many bytes of the decompressed stream have been read: an
// event's offset is Offset before the Next that returns it.
func (d *Reader) Offset() int64 { return d.off }

// fail names a read error: the end of the data is a truncated file.
func (d *Reader) fail(what string, err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return d.errorf("truncated in %s", what)
	}
	return d.errorf("%s: %v", what, err)
}

func (d *Reader) byte(what string) (byte, error) {
	b, err := d.r.ReadByte()
	if err != nil {
		return 0, d.fail(what, err)
	}
	d.off++
	return b, nil
}

func (d *Reader) uvarint(what string) (uint64, error) {
	var x uint64
	for s := uint(0); ; s += 7 {
		b, err := d.byte(what)
		if err != nil {
			return 0, err
		}
		if s == 63 && b > 1 {
			return 0, d.errorf("%s: varint overflows 64 bits", what)
		}
		x |= uint64(b&0x7f) << s
		if b < 0x80 {
			return x, nil
		}
	}
}

// Next returns the next event, or io.EOF after the trailer (which must
// count the events read and end the stream).
func (d *Reader) Next() (Event, error) {
	if d.done {
		return Event{}, io.EOF
	}
	start := d.off
	op, err := d.byte("event")
	if err != nil {
		return Event{}, err
	}
	if op == 0 {
		return Event{}, d.trailer()
	}
	n, err := d.uvarint("argument count")
	if err != nil {
		return Event{}, err
	}
	if n > maxArgs {
		return Event{}, d.errorf("event of op %d claims %d arguments", op, n)
	}
	// Grown as read, never sized by the claimed count: a corrupt count
	// ends in a truncation error, not a huge allocation.
	var args []int64
	for i := uint64(0); i < n; i++ {
		u, err := d.uvarint("argument")
		if err != nil {
			return Event{}, err
		}
		args = append(args, int64(u>>1)^-int64(u&1))
	}
	if isScale(op) {
		if err := d.checkScale(start, op, args); err != nil {
			return Event{}, err
		}
	}
	d.events++
	return Event{Op: op, Args: args}, nil
}

func (d *Reader) trailer() error {
	n, err := d.uvarint("trailer")
	if err != nil {
		return err
	}
	s, err := d.uvarint("trailer")
	if err != nil {
		return err
	}
	mb, err := d.uvarint("trailer")
	if err != nil {
		return err
	}
	if mb > math.MaxInt64 {
		return d.errorf("trailer: largest buffer %d", mb)
	}
	if int64(n) != d.events {
		return d.errorf("trailer counts %d events, the file has %d", n, d.events)
	}
	if _, err := d.r.ReadByte(); err == nil {
		return d.errorf("data after the trailer")
	} else if !errors.Is(err, io.EOF) {
		return d.fail("end of file", err)
	}
	d.sensitive, d.maxBytes, d.done = int64(s), int64(mb), true
	return io.EOF
}

// Stream is a rank file decoded whole, its events packed: the op of
// event i, and its integers Args(i).
type Stream struct {
	Header
	Sensitive int64 // the trailer's count of timing-dependent calls
	MaxBytes  int64 // the trailer's largest buffer
	// StretchSums, in a compacted record's member file, are the
	// member's own computation per stretch (its BurstScale or
	// BurstScaleNS event); nil
	// otherwise.
	StretchSums []float64
	ops         []uint8
	ends        []int // Args(i) is args[ends[i-1]:ends[i]]
	args        []int64
}

// Len is the number of events.
func (s *Stream) Len() int { return len(s.ops) }

// Op is event i's op.
func (s *Stream) Op(i int) uint8 { return s.ops[i] }

// Args are event i's integers (shared: do not modify).
func (s *Stream) Args(i int) []int64 {
	lo := 0
	if i > 0 {
		lo = s.ends[i-1]
	}
	return s.args[lo:s.ends[i]]
}

// ReadFile decodes the rank file at path whole; a corrupt or truncated
// file is an error naming it and the offset.
func ReadFile(path string) (*Stream, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Decode(path, bufio.NewReader(f))
}

// Decode decodes a rank file named name from r.
func Decode(name string, r io.Reader) (*Stream, error) {
	d, err := NewReader(name, r)
	if err != nil {
		return nil, err
	}
	s := &Stream{Header: d.Header()}
	scaleAt, refs := int64(-1), 0
	for {
		off := d.Offset()
		e, err := d.Next()
		if err == io.EOF {
			s.Sensitive, s.MaxBytes = d.Sensitive(), d.maxBytes
			if scaleAt >= 0 && len(s.StretchSums) > refs {
				return nil, d.errorAt(scaleAt, "%d stretch sums for %d burst references; want at most %d", len(s.StretchSums), refs, refs)
			}
			return s, nil
		}
		if err != nil {
			return nil, err
		}
		switch e.Op {
		case BurstRef:
			refs++
		case BurstScale, BurstScaleNS:
			if scaleAt >= 0 {
				return nil, d.errorAt(off, "a second stretch-sum event (the first at offset %d)", scaleAt)
			}
			scaleAt = off
			s.StretchSums = make([]float64, len(e.Args))
			for i, a := range e.Args {
				s.StretchSums[i] = scaleSeconds(e.Op, a)
			}
		}
		s.ops = append(s.ops, e.Op)
		s.args = append(s.args, e.Args...)
		s.ends = append(s.ends, len(s.args))
	}
}

// RankFile is the name of rank r's file in a record directory.
func RankFile(r int) string { return fmt.Sprintf("rank-%05d.rec", r) }

// BurstSeconds is the length of a Burst (or BurstNS) event whose integer
// is a.
func BurstSeconds(op uint8, a int64) float64 {
	if op == BurstNS {
		return time.Duration(max(a, 0)).Seconds()
	}
	d := math.Float64frombits(uint64(a))
	if !(d >= 0) || math.IsInf(d, 1) {
		return 0 // a corrupt burst counts as none rather than poisoning the clock
	}
	return d
}
