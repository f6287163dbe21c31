package vtime

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

// synthetic measures a machine with known parameters through the closed
// forms of calibrate.go, times a deterministic noise of up to +-noise
// (relative), as gompirun -calibrate would on such a machine.
func synthetic(a, bmem, l, bnet float64, noise float64, hosts bool) *Calibration {
	sizes := []int64{0, 8, 64, 512, 4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20, 4 << 20}
	const limit = 16 << 10
	c := &Calibration{Name: "calibrated-test", CoresPerNode: 4, EagerLimit: limit, NetEagerLimit: limit}
	for i, size := range sizes {
		s := float64(size)
		k := 1.0
		if size > limit {
			k = 3
		}
		jitter := 1 + noise*math.Sin(float64(7*i+1)) // deterministic, in [-noise, noise]
		c.Shm = append(c.Shm, PingPong{size, (k*a + 3*s/bmem) * jitter})
		if hosts {
			c.Net = append(c.Net, PingPong{size, (k*(a+l) + 2*s/bmem + s/bnet) * jitter})
		}
	}
	for k := 1; k <= 4; k++ {
		c.Contention = append(c.Contention, ContentionSample{K: k, Compute: 1 + 0.01*float64(k-1), Memory: 1 + 0.5*float64(k-1)})
	}
	return c
}

func within(t *testing.T, what string, got, want, rel float64) {
	t.Helper()
	if math.Abs(got-want) > rel*math.Abs(want) {
		t.Errorf("%s = %.6g, want %.6g within %g", what, got, want, rel)
	}
}

// TestFitMachineRecoversParameters: measurements generated from known a,
// B_mem, l, B_net with 0.2% noise are fitted back to 1%.
func TestFitMachineRecoversParameters(t *testing.T) {
	const a, bmem, l, bnet = 0.4e-6, 8e9, 4e-6, 2e9
	for _, hosts := range []bool{false, true} {
		res, err := FitMachine(synthetic(a, bmem, l, bnet, 0.002, hosts), "mixed")
		if err != nil {
			t.Fatal(err)
		}
		m := res.Machine
		within(t, "a", m.Overhead.A, a, 0.01)
		within(t, "bmem", m.BMem, bmem, 0.01)
		if m.Overhead.B != 0 || m.CoresPerNode != 4 || m.Mapping != "block" || m.EagerLimit == nil || *m.EagerLimit != 16<<10 || m.NetEagerLimit == nil || *m.NetEagerLimit != 16<<10 {
			t.Errorf("machine %+v", m)
		}
		lv := m.Levels[0]
		if !hosts {
			if len(m.Levels) != 1 || lv.Kind != "star" || lv.Size != 1 {
				t.Errorf("one host: levels %+v, want a one-node star", m.Levels)
			}
			if _, err := m.Place(5); err == nil {
				t.Errorf("one host's machine holds more than its 4 cores")
			}
		} else {
			within(t, "l0", lv.L0, l, 0.01)
			within(t, "bandwidth", lv.Bandwidth, bnet, 0.01)
			tg, err := m.Place(8)
			if err != nil {
				t.Fatal(err)
			}
			if _, lat, _ := tg.route(0, 4); lv.LH != 0 || lat != lv.L0 {
				t.Errorf("latency between nodes %g, want l0 %g", lat, lv.L0)
			}
		}
		for _, f := range res.Fits {
			if f.Points < 3 || !(f.Max < 0.01) || f.RMS > f.Max {
				t.Errorf("fit %s: %d points, rms %g, max %g", f.Name, f.Points, f.RMS, f.Max)
			}
		}
		if want := 2 + 4; hosts && len(res.Fits) != want || !hosts && len(res.Fits) != 3 {
			t.Errorf("%d fits: %+v", len(res.Fits), res.Fits)
		}
		for k, f := range m.Contention {
			within(t, "mixed contention", f, math.Sqrt((1+0.01*float64(k))*(1+0.5*float64(k))), 1e-12)
		}
		back, err := ParseMachine(m.JSON())
		if err != nil {
			t.Fatalf("the fitted machine does not parse: %v\n%s", err, m.JSON())
		}
		if !bytes.Equal(back.JSON(), m.JSON()) {
			t.Errorf("round trip changed the machine:\n%s\n%s", m.JSON(), back.JSON())
		}
		for _, field := range []string{`"eager_limit": 16384`, `"net_eager_limit": 16384`, `"contention": [`, `"overhead"`} {
			if !strings.Contains(string(m.JSON()), field) {
				t.Errorf("machine file lacks %s:\n%s", field, m.JSON())
			}
		}
	}
}

// TestFitMachineModelPoints: the model values given beside each point are
// the closed forms at the fitted parameters.
func TestFitMachineModelPoints(t *testing.T) {
	res, err := FitMachine(synthetic(1e-6, 5e9, 10e-6, 1e9, 0, true), "compute")
	if err != nil {
		t.Fatal(err)
	}
	m := res.Machine
	for _, p := range res.Points {
		within(t, "model", p.Model, p.Measured, 1e-9)
	}
	if len(res.Points) != 20 {
		t.Errorf("%d points", len(res.Points))
	}
	for k, f := range m.Contention {
		within(t, "compute contention", f, 1+0.01*float64(k), 1e-12)
	}
}

func TestContentionInterpolates(t *testing.T) {
	c, m, err := contentionFactors([]ContentionSample{{1, 2, 1}, {2, 2, 2}, {4, 4, 2}}, 6)
	if err != nil {
		t.Fatal(err)
	}
	wantC := []float64{1, 1, 1.5, 2, 2, 2}
	wantM := []float64{1, 2, 2, 2, 2, 2}
	for i := range wantC {
		if c[i] != wantC[i] || m[i] != wantM[i] {
			t.Fatalf("compute %v memory %v, want %v %v", c, m, wantC, wantM)
		}
	}
}

// TestFitMachineDegenerate: inputs the model cannot be fitted to are
// errors, never a panic, NaN or infinity in the machine.
func TestFitMachineDegenerate(t *testing.T) {
	good := func() *Calibration { return synthetic(1e-6, 5e9, 10e-6, 1e9, 0, true) }
	for _, tc := range []struct {
		name   string
		change func(c *Calibration)
		want   string
	}{
		{"no sizes", func(c *Calibration) { c.Shm = nil }, "need at least 3"},
		{"two sizes", func(c *Calibration) { c.Shm = c.Shm[:2] }, "need at least 3"},
		{"one size thrice", func(c *Calibration) { c.Shm = []PingPong{{8, 1e-6}, {8, 1e-6}, {8, 1e-6}} }, "all sizes"},
		{"garbage", func(c *Calibration) {
			for i := range c.Shm {
				c.Shm[i].OneWay = []float64{5, 1, 9, 2, 7, 3, 8, 1, 6, 2}[i] * 1e-6
			}
		}, "less than half"},
		{"decreasing", func(c *Calibration) {
			c.Shm = []PingPong{{0, 4e-6}, {1 << 10, 3e-6}, {8 << 10, 2.5e-6}}
		}, "does not grow"},
		{"NaN", func(c *Calibration) { c.Shm[3].OneWay = math.NaN() }, "one-way time"},
		{"zero time", func(c *Calibration) { c.Net[0].OneWay = 0 }, "one-way time"},
		{"network faster than memory", func(c *Calibration) {
			for i := range c.Net {
				c.Net[i].OneWay = c.Shm[i].OneWay / 2
			}
		}, "no faster"},
		{"network too few", func(c *Calibration) { c.Net = c.Net[:1] }, "network"},
		{"no cores", func(c *Calibration) { c.CoresPerNode = 0 }, "cores"},
		{"contention without k = 1", func(c *Calibration) { c.Contention = c.Contention[1:] }, "k = 1"},
		{"contention beyond the cores", func(c *Calibration) { c.Contention[3].K = 9 }, "outside"},
		{"contention NaN", func(c *Calibration) { c.Contention[1].Memory = math.NaN() }, "CPU time"},
	} {
		c := good()
		tc.change(c)
		res, err := FitMachine(c, "mixed")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: machine %v, error %v; want an error containing %q", tc.name, res, err, tc.want)
		}
	}
	if _, err := FitMachine(good(), "fast"); err == nil {
		t.Error("an unknown contention kernel was accepted")
	}
}

// TestFitMachineHostsSharingAMachineHalveTheNode: when the two measured
// hosts are one machine (namespaces of one kernel), each node gets half
// of its cores, so a job of one rank per host is one rank per node.
func TestFitMachineHostsSharingAMachineHalveTheNode(t *testing.T) {
	c := synthetic(0.4e-6, 8e9, 4e-6, 2e9, 0, true)
	c.NetHostsShareMachine = true
	c.CoresPerNode = 2
	c.Contention = c.Contention[:2]
	res, err := FitMachine(c, "mixed")
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Machine.CoresPerNode; got != 1 {
		t.Fatalf("cores_per_node %d, want 1", got)
	}
	tg, err := res.Machine.Place(2)
	if err != nil {
		t.Fatal(err)
	}
	if tg.Hop(0, 1) == 0 {
		t.Fatal("two ranks of two hosts placed on one node")
	}
}

// TestFitMachineStreamGivesTheBandwidth: with a streamed throughput the
// link bandwidth is that throughput, and the ping-pong gives the latency
// (recovered to 1% when the ping-pongs follow the same bandwidth); a
// link whose ping-pongs run faster than it sustains (a shaper's burst)
// still gets the sustained bandwidth.
func TestFitMachineStreamGivesTheBandwidth(t *testing.T) {
	const a, bmem, l, bnet = 0.4e-6, 8e9, 4e-6, 1e9
	for _, burst := range []float64{1, 1.5} {
		c := synthetic(a, bmem, l, bnet*burst, 0, true)
		c.NetStream = &Stream{Message: 1 << 20, Bytes: 32 << 20, Seconds: float64(32<<20) / bnet}
		res, err := FitMachine(c, "mixed")
		if err != nil {
			t.Fatal(err)
		}
		lv := res.Machine.Levels[0]
		within(t, "bandwidth", lv.Bandwidth, bnet, 1e-9)
		if !res.Machine.NICQueue {
			t.Error("a calibrated network without nic_queue")
		}
		if burst == 1 {
			within(t, "l", lv.L0, l, 0.01)
		}
		if !(lv.L0 >= 0) {
			t.Errorf("burst %g: latency %g", burst, lv.L0)
		}
	}
	c := synthetic(a, bmem, l, bnet, 0, true)
	c.NetStream = &Stream{Message: 1 << 20, Bytes: 0, Seconds: 1}
	if _, err := FitMachine(c, "mixed"); err == nil {
		t.Error("a stream of 0 bytes was accepted")
	}
}
