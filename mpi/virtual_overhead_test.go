package mpi

import (
	"math"
	"testing"

	"github.com/gompi/gompi/vtime"
)

// TestVirtualPingPongClosedFormsWithOverhead checks the closed forms that
// gompirun -calibrate fits (vtime/calibrate.go) against the engine: with
// LAPSE's overhead o(s) = a (b = 0) and a star network (hop 2, l = l0),
// one way is a + 3 s/B_mem on a node, 3 a + 3 s/B_mem by rendezvous, and
// between nodes a + l + 2 s/B_mem + s/B_net, 3 (a + l) + 2 s/B_mem +
// s/B_net by rendezvous.
func TestVirtualPingPongClosedFormsWithOverhead(t *testing.T) {
	const a, bmem, l, bnet = 0.5e-6, 8e9, 7e-6, 2e9
	m, err := vtime.ParseMachine([]byte(`{"name": "calibrated", "bmem": 8e9, "cores_per_node": 2, "mapping": "block",
		"levels": [{"topology": "star", "bandwidth": 2e9, "l0": 7e-6, "lh": 0}], "overhead": {"a": 0.5e-6, "b": 0}}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name       string
		peer, size int
		want       float64
	}{
		{"node eager", 1, 1000, a + 3*1000/bmem},
		{"node empty", 1, 0, a},
		{"node rendezvous", 1, 1 << 20, 3*a + 3*float64(1<<20)/bmem},
		{"net eager", 2, 1000, a + l + 2*1000/bmem + 1000/bnet},
		{"net rendezvous", 2, 1 << 20, 3*(a+l) + 2*float64(1<<20)/bmem + float64(1<<20)/bnet},
	} {
		rep := virtualPingPong(t, m, 4, tc.peer, tc.size)
		if got := rep.Predicted; math.Abs(got-2*tc.want) > 1e-9*2*tc.want {
			t.Errorf("%s: predicted %.12g s, want 2 x %.12g", tc.name, got, tc.want)
		}
	}
}
