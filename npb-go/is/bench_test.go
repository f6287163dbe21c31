package main

import (
	"io"
	"testing"

	"github.com/gompi/gompi/mpi"
	"github.com/gompi/gompi/npb-go/internal/npbtest"
)

// BenchmarkClass runs the whole kernel per class and rank count
// (npbtest.BenchmarkClasses).
// Example: go test -run NONE -bench 'Class/A/np2' -benchtime 1x ./npb-go/is
func BenchmarkClass(b *testing.B) {
	npbtest.BenchmarkClasses(b, func(c *mpi.Comm, class byte) (npbtest.Outcome, error) {
		res, err := Run(c, class, io.Discard)
		return npbtest.Outcome{Seconds: res.Seconds, Mops: res.Mops, Verified: res.Verified}, err
	})
}
