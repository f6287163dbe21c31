package main

import (
	"io"
	"testing"

	"github.com/gompi/gompi/mpi"
	"github.com/gompi/gompi/npb-go/internal/npbtest"
)

// BenchmarkClass runs the whole benchmark per class and rank count
// (npbtest.BenchmarkClasses).
// Example: go test -run NONE -bench 'Class/A/np1$' -benchtime 1x ./npb-go/lu
func BenchmarkClass(b *testing.B) {
	npbtest.BenchmarkClasses(b, func(c *mpi.Comm, class byte) (npbtest.Outcome, error) {
		res, err := Run(c, class, io.Discard, Options{})
		return npbtest.Outcome{Seconds: res.Time, Mops: res.Mops, Verified: res.Verified}, err
	})
}
