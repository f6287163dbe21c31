package mpi

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"io"
	"iter"
	"math"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/gompi/gompi/vtime"
	"github.com/vmihailenco/msgpack/v5"
)

// TestRankRecordsTravel: the records a process publishes come back to
// gompirun whole, every field of both parts (each set to a value of its
// own, so a field the encoding dropped or swapped fails), from the compact
// form and from the msgpack and JSON lists of earlier versions; bad input,
// a cut or a count larger than the bytes can hold, is an error.
func TestRankRecordsTravel(t *testing.T) {
	var rs []RankRecord
	for i := range 3 {
		var r RankRecord
		v := reflect.ValueOf(&r).Elem()
		n := 0
		var fill func(v reflect.Value)
		fill = func(v reflect.Value) {
			for j := range v.NumField() {
				f := v.Field(j)
				n++
				switch f.Kind() {
				case reflect.Struct:
					fill(f)
				case reflect.Int, reflect.Int64:
					f.SetInt(int64(100*i + n))
				case reflect.Float64:
					f.SetFloat(float64(100*i+n) + 0.25)
				case reflect.Bool:
					f.SetBool(i%2 == 0)
				default:
					t.Fatalf("field %s of kind %v: teach the test its values", v.Type().Field(j).Name, f.Kind())
				}
			}
		}
		fill(v)
		rs = append(rs, r)
	}
	j, _ := json.Marshal(rs)
	if got, err := DecodeRankRecords(j); err != nil || !reflect.DeepEqual(got, rs) {
		t.Fatalf("JSON: got %+v, %v; want %+v", got, err, rs)
	}
	rs[1].Sent, rs[2].Waiting = -1, math.Inf(1) // negative and special values travel too
	b := encodeRankRecords(len(rs), slices.Values(rs))
	got, err := DecodeRankRecords(b)
	if err != nil || !reflect.DeepEqual(got, rs) {
		t.Fatalf("compact: got %+v, %v; want %+v", got, err, rs)
	}
	var mp bytes.Buffer
	enc := msgpack.NewEncoder(&mp)
	enc.UseArrayEncodedStructs(true)
	if err := enc.Encode(rs); err != nil {
		t.Fatal(err)
	}
	if got, err := DecodeRankRecords(mp.Bytes()); err != nil || !reflect.DeepEqual(got, rs) {
		t.Fatalf("msgpack: got %+v, %v; want %+v", got, err, rs)
	}
	huge := append([]byte{recordsMagic, recordsVersion}, binary.AppendUvarint(nil, 1<<40)...)
	for _, bad := range [][]byte{
		nil, b[:len(b)/2], b[:len(b)-1], append(b[:len(b):len(b)], 0),
		[]byte("[{"), {0xc1}, {recordsMagic, 99}, huge, mp.Bytes()[:mp.Len()/2],
	} {
		if _, err := DecodeRankRecords(bad); err == nil {
			t.Errorf("%q decoded without error", bad)
		}
	}
}

// BenchmarkRankRecords encodes and decodes the records of 262144 ranks in
// the compact form and in the msgpack form of the previous version, and
// writes them as the -report file's JSON (docs/model.md, "Virtual ranks
// on one host"):
//
//	go test -run NONE -bench RankRecords -benchtime 3x ./mpi
func BenchmarkRankRecords(b *testing.B) {
	rs := make([]RankRecord, 262144)
	for i := range rs {
		rs[i] = jsonRecords()[i%8]
		rs[i].Rank = i
	}
	b.Run("compact", func(b *testing.B) {
		for b.Loop() {
			enc := encodeRankRecords(len(rs), slices.Values(rs))
			if _, err := DecodeRankRecords(enc); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(len(enc)), "bytes")
		}
	})
	b.Run("msgpack", func(b *testing.B) {
		for b.Loop() {
			var buf bytes.Buffer
			enc := msgpack.NewEncoder(&buf)
			enc.UseArrayEncodedStructs(true)
			if err := enc.Encode(rs); err != nil {
				b.Fatal(err)
			}
			if _, err := DecodeRankRecords(buf.Bytes()); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(buf.Len()), "bytes")
		}
	})
	rep := Summarize("m", 1, rs, 1)
	b.Run("json-fast", func(b *testing.B) {
		for b.Loop() {
			if err := rep.WriteJSON(io.Discard); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("json-encoding", func(b *testing.B) {
		for b.Loop() {
			enc := json.NewEncoder(io.Discard)
			enc.SetIndent("", "  ")
			if err := enc.Encode(&rep); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// encodeRankRecords is what writeRankRecords writes, as a slice.
func encodeRankRecords(n int, rs iter.Seq[RankRecord]) []byte {
	var b bytes.Buffer
	writeRankRecords(&b, n, rs) // a bytes.Buffer does not fail
	return b.Bytes()
}

// TestEncodedResultsAreResults: what a process publishes, written rank by
// rank without the slice or the encoding, is as long as it says and
// decodes to Results.
func TestEncodedResultsAreResults(t *testing.T) {
	v, err := NewVirtual(tianhe1a(t), 6, 0)
	if err != nil {
		t.Fatal(err)
	}
	err = runVirtualWithin(t, v, func(c *Comm) error {
		c.Elapse(time.Duration(c.Rank()) * time.Microsecond)
		return c.Barrier()
	})
	if err != nil {
		t.Fatal(err)
	}
	want := v.Results()
	var b bytes.Buffer
	err = v.withRecords(func(n int, rs iter.Seq[RankRecord]) error {
		if err := writeRankRecords(&b, n, rs); err != nil {
			return err
		}
		if size := rankRecordsSize(n, rs); int64(b.Len()) != size {
			t.Errorf("%d bytes written, %d announced", b.Len(), size)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeRankRecords(b.Bytes())
	if err != nil || len(want) != 6 || !reflect.DeepEqual(got, want) {
		t.Fatalf("decoded %+v, %v; Results %+v", got, err, want)
	}
}

// TestRankRecordsVersion1: records in the form before EngineCounts.Gated
// (version 1) are still read, with Gated 0.
func TestRankRecordsVersion1(t *testing.T) {
	want := []RankRecord{{RankResult: vtime.RankResult{Rank: 3, End: 1.5, Finished: true, Waits: 7},
		EngineCounts: EngineCounts{Sent: 4, SentBytes: 32, SpeculativeStalls: 2}}}
	b := []byte{recordsMagic, 1, 1}
	r := &want[0]
	for _, n := range [...]int64{int64(r.Rank), 1, int64(r.Waits), 0, 0, 0, 0, r.Sent, r.SentBytes, 0, 0, 0, 0, 0, r.SpeculativeStalls} {
		b = binary.AppendVarint(b, n)
	}
	for _, f := range [...]float64{r.End, 0, 0, 0, 0} {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(f))
	}
	got, err := DecodeRankRecords(b)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("version 1: got %+v, %v; want %+v", got, err, want)
	}
}
