package mpi

import (
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func sampleTraceRecord() TraceRecord {
	return TraceRecord{Dropped: 7, Events: []TraceEvent{
		{Rank: 0, Kind: "compute", Start: 0, End: 1.5e-6},
		{Rank: 3, Kind: "call", Name: "Send", Start: 1.5e-6, End: 2e-6, HasArgs: true, A: 1, B: -4},
		{Rank: 3, Kind: "call", Name: "Allreduce", Start: 2e-6, End: 9e-6, Algo: "recursive-doubling", Bytes: 8},
		{Rank: 3, Kind: "wait", Start: 3e-6, End: 8e-6},
		{Rank: 1 << 20, Kind: "send", Start: 1, End: 1, ID: messageID(1<<20, 1<<39)},
		{Rank: 5, Kind: "recv", Start: math.SmallestNonzeroFloat64, End: math.MaxFloat64, ID: 1},
		{Rank: 2, Kind: "call", Name: "Bcast", HasArgs: true, A: math.MinInt32, B: math.MaxInt32, Algo: "binomial", Bytes: 1 << 40},
	}}
}

// TestTraceRecordRoundTrip: a process's trace record decodes in gompirun
// to the events it held, every field; an empty record too.
func TestTraceRecordRoundTrip(t *testing.T) {
	for _, rec := range []TraceRecord{sampleTraceRecord(), {}} {
		got, err := DecodeTraceRecord(encodeRecord(rec))
		if err != nil {
			t.Fatal(err)
		}
		if got.Dropped != rec.Dropped || len(got.Events) != len(rec.Events) || len(rec.Events) > 0 && !reflect.DeepEqual(got.Events, rec.Events) {
			t.Errorf("decoded %+v\nwant %+v", got, rec)
		}
	}
}

// TestTraceRecordErrors: every truncation of a record, and bytes that are
// not one, are errors that say where decoding stopped, never a panic.
func TestTraceRecordErrors(t *testing.T) {
	b := encodeRecord(sampleTraceRecord())
	for n := 0; n < len(b); n++ {
		if _, err := DecodeTraceRecord(b[:n]); err == nil {
			t.Fatalf("truncated to %d of %d bytes: no error", n, len(b))
		} else if n >= len(traceMagic) && !strings.Contains(err.Error(), "at byte") {
			t.Fatalf("truncated to %d bytes: %v", n, err)
		}
	}
	if _, err := DecodeTraceRecord(append(b, 0)); err == nil {
		t.Error("a record with a byte after its end decoded")
	}
	if _, err := DecodeTraceRecord([]byte(`{"events":[]}`)); err == nil {
		t.Error("JSON decoded as a record")
	}
}

func FuzzTraceRecord(f *testing.F) {
	f.Add(encodeRecord(sampleTraceRecord()))
	f.Add([]byte(traceMagic + "\x00\x01\x00\xff\xff\xff\xff\x0f"))
	f.Fuzz(func(t *testing.T, b []byte) {
		rec, err := DecodeTraceRecord(b)
		if err != nil {
			return
		}
		// What decodes encodes back to a record that decodes the same.
		again, err := DecodeTraceRecord(encodeRecord(rec))
		if err != nil || len(again.Events) != len(rec.Events) {
			t.Fatalf("re-encoded record: %v, %d events, want %d", err, len(again.Events), len(rec.Events))
		}
	})
}

func encodeRecord(rec TraceRecord) []byte {
	return encodeTraceRecord(rec.Dropped, len(rec.Events), slices.Values(rec.Events))
}
