package adi

import (
	"io"
	"testing"

	"github.com/gompi/gompi/mpi"
	"github.com/gompi/gompi/vtime"
)

// predictS runs class S on 4 virtual ranks of gompirun's default machine
// with cpu-scale 0 (communication only) and returns rank 0's result and
// the prediction.
func predictS(t *testing.T, b *Benchmark) (Result, mpi.Report) {
	t.Helper()
	m, err := vtime.LoadMachine("")
	if err != nil {
		t.Fatal(err)
	}
	v, err := mpi.NewVirtual(m, 4, 0)
	if err != nil {
		t.Fatal(err)
	}
	var res Result
	err = v.Run(func(c *mpi.Comm) error {
		r, err := Run(b, c, 'S', io.Discard, Options{})
		if c.Rank() == 0 {
			res = r
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return res, v.Report()
}

// In virtual time BT and SP compute as in a real run and verifies; its reported
// time is the ranks' virtual time, which with cpu-scale 0 is the
// communication alone: positive, no more than the whole predicted job, and
// the same in every run.
func TestVirtualClassS(t *testing.T) {
	for _, b := range both {
		t.Run(b.name, func(t *testing.T) { testVirtualClassS(t, b) })
	}
}

func testVirtualClassS(t *testing.T, b *Benchmark) {
	res, rep := predictS(t, b)
	if !res.Verified {
		t.Fatal("class S did not verify in virtual time")
	}
	if !(res.Time > 0) || res.Time > rep.Predicted {
		t.Errorf("timed section %g s, predicted job %g s", res.Time, rep.Predicted)
	}
	res2, rep2 := predictS(t, b)
	if rep2.Predicted != rep.Predicted || res2.Time != res.Time {
		t.Errorf("predictions differ: %g and %g s (timed %g and %g s)", rep.Predicted, rep2.Predicted, res.Time, res2.Time)
	}
	if res2.Xcr != res.Xcr || res2.Xce != res.Xce {
		t.Errorf("norms differ between runs")
	}
	t.Logf("predicted %.6g s, timed section %.6g s", rep.Predicted, res.Time)
}
