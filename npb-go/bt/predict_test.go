package main

import (
	"io"
	"testing"

	"github.com/gompi/gompi/mpi"
	"github.com/gompi/gompi/npb-go/internal/npbtest"
)

// TestPredictInProcess is class S's prediction made in one process, which
// npb-go/launch_test.go can compare with gompirun's.
func TestPredictInProcess(t *testing.T) {
	npbtest.PredictInProcess(t, func(c *mpi.Comm) error {
		_, err := Run(c, 'S', io.Discard, Options{})
		return err
	})
}
