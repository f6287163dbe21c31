package mpi

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"testing"

	"github.com/gompi/gompi/vtime"
)

// jsonRecords are records whose every field is set (each to its own
// value), or zero where omitempty leaves it out, with floats in and out of
// encoding/json's exponent range.
func jsonRecords() []RankRecord {
	var rs []RankRecord
	for i, f := range []float64{0, 1.5, 1e-7, 2.5e-6, 1e21, 123456789.123, -3e-9, 0.1} {
		r := RankRecord{
			RankResult: vtime.RankResult{
				Rank: i, End: f, Finished: i%2 == 0, Computation: f * 2, Communication: f / 3,
				Waiting: -f, Waits: i + 1, HistoryMisses: i % 3, HistoryKept: i % 2,
				Contention: f * 7, NodeRanks: i % 4, HostConcurrency: i % 5,
			},
			EngineCounts: EngineCounts{
				Sent: int64(i * 11), SentBytes: 1 << 40, Recvd: int64(-i), RecvBytes: 13,
				Temporal: 14, TemporalExact: 15, Stalls: 16, SpeculativeStalls: int64(i), Gated: int64(3 * i),
			},
		}
		rs = append(rs, r)
	}
	return rs
}

// TestRecordJSONAsEncodingJSON: a per-rank record is written as
// encoding/json writes it, byte for byte, so the fast writer cannot drift
// from the struct's tags; a value JSON cannot hold is an error.
func TestRecordJSONAsEncodingJSON(t *testing.T) {
	for _, r := range jsonRecords() {
		want, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		got, err := appendRecordJSON(nil, &r)
		if err != nil || string(got) != string(want) {
			t.Errorf("rank %d:\n got %s, %v\nwant %s", r.Rank, got, err, want)
		}
	}
	r := jsonRecords()[1]
	r.Waiting = math.NaN()
	if _, err := appendRecordJSON(nil, &r); err == nil {
		t.Error("NaN written without error")
	}
}

// TestReportJSON: WriteJSON's report reads back as the one encoding/json
// writes of the same Report, with records and without. Every field of the
// summary is set (omitempty ones too), so a field WriteJSON's head leaves
// out fails.
func TestReportJSON(t *testing.T) {
	for _, rs := range [][]RankRecord{jsonRecords(), nil} {
		rep := Summarize("m", 1, rs, 2)
		fillSummary(t, reflect.ValueOf(&rep).Elem())
		var fast bytes.Buffer
		if err := rep.WriteJSON(&fast); err != nil {
			t.Fatal(err)
		}
		slow, err := json.Marshal(&rep)
		if err != nil {
			t.Fatal(err)
		}
		var a, b any
		if err := json.Unmarshal(fast.Bytes(), &a); err != nil {
			t.Fatalf("%v:\n%s", err, fast.Bytes())
		}
		if err := json.Unmarshal(slow, &b); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(a, b) {
			t.Errorf("WriteJSON:\n%s\nencoding/json:\n%s", fast.Bytes(), slow)
		}
		var back Report
		if err := json.Unmarshal(fast.Bytes(), &back); err != nil || len(back.PerRank) != len(rs) {
			t.Errorf("read back %d records, %v; want %d", len(back.PerRank), err, len(rs))
		}
	}
}

// fillSummary sets every field of v that is still zero, except the
// per-rank records, to a value of its own.
func fillSummary(t *testing.T, v reflect.Value) {
	for i := range v.NumField() {
		f, name := v.Field(i), v.Type().Field(i).Name
		if name == "PerRank" || !f.IsZero() && f.Kind() != reflect.Struct {
			continue
		}
		switch f.Kind() {
		case reflect.Struct:
			fillSummary(t, f)
		case reflect.Pointer:
			f.Set(reflect.New(f.Type().Elem()))
			fillSummary(t, f.Elem())
		case reflect.Slice:
			f.Set(reflect.MakeSlice(f.Type(), 1, 1))
			f.Index(0).SetInt(int64(i + 7))
		case reflect.String:
			f.SetString(name)
		case reflect.Int, reflect.Int64:
			f.SetInt(int64(i + 3))
		case reflect.Float64:
			f.SetFloat(float64(i) + 0.5)
		case reflect.Bool:
			f.SetBool(true)
		default:
			t.Fatalf("field %s of kind %v: teach the test its values", name, f.Kind())
		}
	}
}
