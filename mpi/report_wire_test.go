package mpi

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestRankRecordsTravel: the records a process publishes come back to
// gompirun whole, every field of both parts (each set to a value of its
// own, so a field the encoding dropped or swapped fails), from the msgpack
// form and from the JSON list of earlier versions; bad input is an error.
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
					f.SetBool(true)
				default:
					t.Fatalf("field %s of kind %v: teach the test its values", v.Type().Field(j).Name, f.Kind())
				}
			}
		}
		fill(v)
		rs = append(rs, r)
	}
	b, err := encodeRankRecords(rs)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeRankRecords(b)
	if err != nil || !reflect.DeepEqual(got, rs) {
		t.Fatalf("msgpack: got %+v, %v; want %+v", got, err, rs)
	}
	j, _ := json.Marshal(rs)
	if got, err := DecodeRankRecords(j); err != nil || !reflect.DeepEqual(got, rs) {
		t.Fatalf("JSON: got %+v, %v; want %+v", got, err, rs)
	}
	for _, bad := range [][]byte{nil, b[:len(b)/2], []byte("[{"), {0xc1}} {
		if _, err := DecodeRankRecords(bad); err == nil {
			t.Errorf("%q decoded without error", bad)
		}
	}
}
