package jsonnum

import (
	"encoding/json"
	"math"
	"testing"
)

// TestAppendFloatAsEncodingJSON: every number is written as encoding/json
// writes it, on both sides of its switches to exponent form.
func TestAppendFloatAsEncodingJSON(t *testing.T) {
	for _, f := range []float64{
		0, math.Copysign(0, -1), 1, -1.5, 0.1, 1e-6, 9.99e-7, 1e-7, -3e-9, 1.25e-300,
		1e20, 1e21, -1e21, 123456789.123, math.MaxFloat64, math.SmallestNonzeroFloat64,
	} {
		want, err := json.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		if got := AppendFloat(nil, f); string(got) != string(want) {
			t.Errorf("%g: got %s, want %s", f, got, want)
		}
	}
}
