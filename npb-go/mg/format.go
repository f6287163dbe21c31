package main

import (
	"fmt"
	"strconv"
	"strings"
)

// fortranE formats v like Fortran's Ew.d edit descriptor (no scale
// factor): 0.ddd...E+xx with d digits, right-aligned in w columns, as the
// reference prints the norms.
func fortranE(v float64, w, d int) string {
	if v == 0 {
		return fmt.Sprintf("%*s", w, "0."+strings.Repeat("0", d)+"E+00")
	}
	s := strconv.FormatFloat(v, 'e', d-1, 64) // [-]D.DDDe±XX
	sign := ""
	if s[0] == '-' {
		sign, s = "-", s[1:]
	}
	mant, exp, _ := strings.Cut(s, "e")
	e, _ := strconv.Atoi(exp)
	digits := strings.Replace(mant, ".", "", 1)
	return fmt.Sprintf("%*s", w, fmt.Sprintf("%s0.%sE%+03d", sign, digits, e+1))
}
