// Package jsonnum writes numbers as encoding/json writes them, for the
// writers that emit large JSON documents without reflection (gompirun's
// timelines, the per-rank records of a virtual run's report) and must read
// back exactly as encoding/json's output would.
package jsonnum

import (
	"math"
	"strconv"
)

// AppendFloat appends f as encoding/json writes a float64: the shortest
// decimal that reads back as f, in exponent form below 1e-6 and from 1e21
// on, with the exponent's leading zero dropped (1e-07 -> 1e-7). f must be
// finite; encoding/json refuses NaN and infinities, and callers check.
func AppendFloat(b []byte, f float64) []byte {
	format := byte('f')
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}
