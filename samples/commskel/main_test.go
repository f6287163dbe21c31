package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/gompi/gompi/mpi"
)

func TestSkeleton(t *testing.T) {
	for _, n := range []int{1, 2, 5, 16} {
		var out bytes.Buffer
		err := mpi.Run(n, func(c *mpi.Comm) error {
			var w io.Writer = io.Discard
			if c.Rank() == 0 {
				w = &out
			}
			return skeleton(c, 3, 100, w)
		})
		if err != nil {
			t.Fatalf("%d ranks: %v", n, err)
		}
		if !bytes.HasPrefix(out.Bytes(), []byte("commskel: ")) {
			t.Errorf("%d ranks: output %q", n, out.String())
		}
	}
}

// TestPredictionAgreesWithSMPI runs scripts/smpi-vs-gompi.sh at 16 ranks:
// gompi's prediction of the skeleton and SimGrid SMPI's, on one target
// machine written for both, must differ by less than 0.5% (docs/model.md,
// "gompi and SMPI"). It needs SimGrid's smpicc and smpirun.
func TestPredictionAgreesWithSMPI(t *testing.T) {
	for _, tool := range []string{"smpicc", "smpirun", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("needs %s (Debian: simgrid): %v", tool, err)
		}
	}
	if testing.Short() {
		t.Skip("builds gompirun and runs SMPI")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "../../scripts/smpi-vs-gompi.sh", "3")
	cmd.Env = append(os.Environ(), "SMPI_P=16")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var p, msgs int
	var gompi, smpi float64
	for _, line := range strings.Split(string(out), "\n") {
		if n, _ := fmt.Sscanf(line, "%d %d %g %g", &p, &msgs, &gompi, &smpi); n == 4 && p == 16 {
			break
		}
	}
	if p != 16 || gompi <= 0 || smpi <= 0 {
		t.Fatalf("no row for 16 ranks in:\n%s", out)
	}
	t.Logf("16 ranks, %d messages: gompi %.9f s, SMPI %.9f s", msgs, gompi, smpi)
	if d := math.Abs(gompi-smpi) / smpi; d >= 0.005 {
		t.Errorf("gompi predicts %.9f s and SMPI %.9f s: %.2f%% apart", gompi, smpi, 100*d)
	}
}
