package main

import (
	"fmt"
	"strings"
)

// fortranD formats v like Fortran's 1PDw.d edit descriptor: one digit
// before the point, d after, exponent letter D, right-aligned in w
// columns, as the reference prints the checksums.
func fortranD(v float64, w, d int) string {
	return fmt.Sprintf("%*s", w, strings.Replace(fmt.Sprintf("%.*e", d, v), "e", "D", 1))
}
