package npb

import (
	"fmt"
	"strconv"
	"strings"
)

// FortranE formats v like Fortran's Ew.d edit descriptor ("0.ddddE+xx",
// right-aligned in w columns), so that reports read like the reference's.
func FortranE(v float64, w, d int) string {
	// %.{d-1}E yields d significant digits as "m.mmmE±xx"; Fortran writes
	// the same digits as 0.mmmm with the exponent one larger.
	s := strconv.FormatFloat(v, 'E', d-1, 64)
	sign := ""
	if s[0] == '-' {
		sign, s = "-", s[1:]
	}
	mant, exp, ok := strings.Cut(s, "E")
	if !ok { // Inf or NaN
		return fmt.Sprintf("%*s", w, sign+s)
	}
	e, _ := strconv.Atoi(exp)
	digits := strings.Replace(mant, ".", "", 1)
	if v != 0 {
		e++
	}
	es := "+"
	if e < 0 {
		es, e = "-", -e
	}
	return fmt.Sprintf("%*s", w, fmt.Sprintf("%s0.%sE%s%02d", sign, digits, es, e))
}
