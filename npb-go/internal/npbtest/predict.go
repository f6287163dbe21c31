package npbtest

import (
	"os"
	"strconv"
	"testing"

	"github.com/gompi/gompi/mpi"
	"github.com/gompi/gompi/vtime"
)

// The environment that makes PredictInProcess run: npb-go/launch_test.go
// sets it to compare gompirun's prediction of a kernel with the one made
// in a single process, without gompirun.
const (
	PredictRanksEnv  = "NPB_PREDICT_RANKS"  // virtual ranks
	PredictReportEnv = "NPB_PREDICT_REPORT" // the file the report is written to, as gompirun -report writes it
)

// PredictInProcess runs a kernel (run, on every rank) as $NPB_PREDICT_RANKS
// virtual ranks of this process on gompirun's default machine with
// cpu-scale 0, and writes the prediction report as JSON to
// $NPB_PREDICT_REPORT. It skips the test when they are not set.
func PredictInProcess(t *testing.T, run func(c *mpi.Comm) error) {
	file := os.Getenv(PredictReportEnv)
	if file == "" {
		t.Skipf("%s is not set: npb-go/launch_test.go runs this test to compare gompirun's prediction with it", PredictReportEnv)
	}
	ranks, err := strconv.Atoi(os.Getenv(PredictRanksEnv))
	if err != nil || ranks < 1 {
		t.Fatalf("%s=%q: want a rank count", PredictRanksEnv, os.Getenv(PredictRanksEnv))
	}
	m, err := vtime.LoadMachine("") // gompirun's default
	if err != nil {
		t.Fatal(err)
	}
	v, err := mpi.NewVirtual(m, ranks, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Run(run); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	rep := v.Report()
	if err := rep.WriteJSON(f); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}
