package mpi

import (
	"reflect"
	"testing"
)

// reset must clear every field of a reused request: a field added later and
// forgotten there would leak state from one blocking call into the next.
func TestRequestResetClearsEveryField(t *testing.T) {
	var q Request
	v := reflect.ValueOf(&q).Elem()
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		switch v.Type().Field(i).Name {
		case "done":
			continue // atomic: set below
		case "persist", "freed":
			continue // a persistent request's own state, which Start's reset must keep (persistent.go)
		case "parts", "whole":
			continue // set on new requests only, never on one reset (isendrecv.go)
		}
		f = reflect.NewAt(f.Type(), f.Addr().UnsafePointer()).Elem()
		switch f.Kind() {
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Int32, reflect.Int64, reflect.Int:
			f.SetInt(7)
		case reflect.Uint8, reflect.Uint32, reflect.Uint64:
			f.SetUint(7)
		case reflect.Float64:
			f.SetFloat(7)
		case reflect.Pointer, reflect.Slice, reflect.Func, reflect.Interface, reflect.Struct:
			// set below through typed code
		default:
			t.Fatalf("field %s of kind %v: teach this test about it", v.Type().Field(i).Name, f.Kind())
		}
	}
	q.done.Store(true)
	q.status = Status{Source: 3, Tag: 4, Bytes: 5, Cancelled: true, Err: ErrOther}
	q.err, q.onDone = ErrOther, func(*Request) {}
	q.comm = &Comm{}
	q.buf = []byte{1}

	r := &rank{}
	q.reset(r, nil, reqRecv, nil, 1, 2, 3, false)
	want := Request{r: r, kind: reqRecv, ctx: 1, peer: 2, tag: 3}
	if q.done.Load() {
		t.Fatal("done not cleared")
	}
	// done is equal (false) on both; DeepEqual compares every other field.
	if !reflect.DeepEqual(&q, &want) || q.onDone != nil {
		t.Fatalf("after reset:\n got %+v\nwant %+v", &q, &want)
	}
}
