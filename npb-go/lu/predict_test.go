package main

import (
	"io"
	"testing"

	"github.com/gompi/gompi/mpi"
	"github.com/gompi/gompi/npb-go/internal/npbtest"
)

// TestPredictInProcess is class S's prediction made in one process, for
// comparison with gompirun's (npbtest.PredictInProcess; it skips unless
// the launcher's test sets its environment).
func TestPredictInProcess(t *testing.T) {
	npbtest.PredictInProcess(t, func(c *mpi.Comm) error {
		_, err := Run(c, 'S', io.Discard, Options{})
		return err
	})
}
