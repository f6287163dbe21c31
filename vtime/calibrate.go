package vtime

import (
	"errors"
	"fmt"
	"math"
	"sort"
)

// This file fits a Machine to measurements of the machine the job runs on
// (gompirun -calibrate). It is arithmetic only: cmd/gompirun measures.
//
// The model fitted is Transfer's with LAPSE's overhead o(s) = a + b s. A
// ping-pong whose receiver is already waiting (each way is a Send met by a
// posted Recv) takes, one way:
//
//	h = 0, eager       a + 3 s / B_mem
//	h = 0, rendezvous  3 a + 3 s / B_mem
//	h > 0, eager       a + l + 2 s / B_mem + s / B_net
//	h > 0, rendezvous  3 a + 3 l + 2 s / B_mem + s / B_net
//
// (rendezvous: a zero-byte REQ and ACK, each a + l, then the DATA). b is
// fixed at 0: it and B_mem only ever appear together in these sums (b s +
// 3 s / B_mem), and putting the per-byte cost in B_mem charges it to every
// copy the model makes (receives, on-node transfers), not to the sender
// alone. Fits minimise relative residuals, so that the small messages,
// microseconds long, weigh as much as the large ones.

// Calibration is what gompirun -calibrate measured.
type Calibration struct {
	Name         string `json:"name"`
	CoresPerNode int    `json:"cores_per_node"`
	// EagerLimit and NetEagerLimit are the limits gompi used between the
	// measured ranks of one host and of different hosts: sizes up to them
	// went eagerly, larger ones by rendezvous.
	EagerLimit    int                `json:"eager_limit"`
	NetEagerLimit int                `json:"net_eager_limit"`
	Shm           []PingPong         `json:"shm"`           // two ranks on one host
	Net           []PingPong         `json:"net,omitempty"` // two ranks on different hosts; none with one host
	Contention    []ContentionSample `json:"contention"`
	// NetHostsShareMachine says that the two hosts of the network
	// measurement are one machine (network namespaces or containers of
	// one kernel): each then has half its cores, and the machine's nodes
	// are that size, so that a job placed one rank per host is placed
	// one rank per node.
	NetHostsShareMachine bool `json:"net_hosts_share_machine,omitempty"`
	// NetStream is the network's sustained throughput: one rank sending
	// large messages back to back. When given it is the link bandwidth,
	// and the ping-pong fit gives only the latency: links that let short
	// bursts through faster than they sustain (a token-bucket shaper, a
	// switch's buffers) would otherwise be credited with the burst rate,
	// which the bulk transfers of a real code do not get.
	NetStream *Stream `json:"net_stream,omitempty"`
}

// Stream is Bytes sent in messages of Message bytes, back to back, in
// Seconds (from the first send to the receiver's acknowledgement of the
// last, the median of a few repetitions).
type Stream struct {
	Message int64   `json:"message"`
	Bytes   int64   `json:"bytes"`
	Seconds float64 `json:"seconds"`
}

// PingPong is one message size's one-way time: half the median round trip.
type PingPong struct {
	Size   int64   `json:"size"`
	OneWay float64 `json:"one_way"`
}

// ContentionSample is the thread CPU time (seconds) one goroutine took for
// a fixed amount of work while K goroutines ran it at once, for a
// compute-bound and a memory-bound kernel.
type ContentionSample struct {
	K       int     `json:"k"`
	Compute float64 `json:"compute"`
	Memory  float64 `json:"memory"`
}

// Fit is one least-squares fit: its parameters and its relative residuals
// (model - measured) / measured over its points.
type Fit struct {
	Name   string
	Params []Param
	Points int
	RMS    float64
	Max    float64 // largest absolute relative residual
}

// Param is a fitted value in SI units (seconds, bytes per second).
type Param struct {
	Name  string
	Value float64
	Unit  string // "s", "B/s" or "s/B"
}

// FitPoint is one measurement beside the fitted model's value.
type FitPoint struct {
	Net        bool // between hosts (h > 0)
	Rendezvous bool
	Size       int64
	Measured   float64
	Model      float64
}

// Calibrated is the result of FitMachine.
type Calibrated struct {
	Machine *Machine
	// Fits: the model (written to the machine) for shared memory and, with
	// several hosts, the network; then, for each protocol range, a free
	// line one-way = intercept + slope x s that shows how straight the
	// measurements are apart from the model's constraints.
	Fits   []Fit
	Points []FitPoint
	// Contention factors by kernel, entry k-1 for k ranks; Machine has
	// the chosen one.
	Compute, Memory, Mixed []float64
}

// ContentionKernels are the choices of FitMachine's kernel argument.
var ContentionKernels = []string{"compute", "memory", "mixed"}

// FitMachine fits a machine to c; kernel chooses the contention factors
// written (compute, memory, or mixed: their geometric mean).
func FitMachine(c *Calibration, kernel string) (*Calibrated, error) {
	if c.CoresPerNode < 1 {
		return nil, fmt.Errorf("vtime: calibration: cores per node %d", c.CoresPerNode)
	}
	if c.EagerLimit < 0 || c.NetEagerLimit < 0 {
		return nil, errors.New("vtime: calibration: negative eager limit")
	}
	res := &Calibrated{}
	m, shm, invMem, err := res.fitShm(c)
	if err != nil {
		return nil, err
	}
	var net []point
	if len(c.Net) > 0 {
		if net, err = res.fitNet(c, m, invMem); err != nil {
			return nil, err
		}
	}
	for _, r := range []struct {
		pts  []point
		name string
	}{{shm, "shared memory"}, {net, "network"}} {
		for _, rdv := range []bool{false, true} {
			if f, ok := fitLine(r.pts, rdv, r.name); ok {
				res.Fits = append(res.Fits, f)
			}
		}
	}
	if m.Contention, err = res.fitContention(c, kernel); err != nil {
		return nil, err
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	res.Machine = m
	return res, nil
}

// fitShm fits a and B_mem to the shared-memory ping-pongs and returns the
// machine of one node they describe, the points and 1/B_mem as fitted.
func (res *Calibrated) fitShm(c *Calibration) (*Machine, []point, float64, error) {
	shm, err := classify(c.Shm, c.EagerLimit, "shared memory")
	if err != nil {
		return nil, nil, 0, err
	}
	// h = 0: one-way = k a + 3 s / B_mem, k = 1 eager, 3 rendezvous.
	coef, fit, err := fitModel(shm, func(p point) float64 { return 0 }, "shared memory model")
	if err != nil {
		return nil, nil, 0, err
	}
	a, invMem := coef[0], coef[1]/3
	if !(invMem > 0) {
		return nil, nil, 0, fmt.Errorf("vtime: calibration: shared memory: one-way time does not grow with size")
	}
	fit.Params = []Param{{"a", a, "s"}, {"bmem", 1 / invMem, "B/s"}}
	res.Fits = append(res.Fits, fit)
	res.addPoints(shm, false, func(p point) float64 { return p.k*a + 3*p.s*invMem })

	eager, netEager := c.EagerLimit, c.NetEagerLimit
	m := &Machine{
		Name: c.Name, BMem: 1 / invMem, CoresPerNode: c.CoresPerNode, Mapping: "block",
		Overhead: Overhead{A: a}, EagerLimit: &eager, NetEagerLimit: &netEager,
		// One host: a machine of one node; a larger job is not predicted
		// with a network nobody measured.
		Levels: []Level{{topologySpec: topologySpec{Kind: "star", Size: 1}, Bandwidth: 1 / invMem}},
	}
	return m, shm, invMem, nil
}

// fitNet fits the network level (l, B_net) to the ping-pongs between hosts,
// with B_net from the stream where there is one, and gives m that network.
func (res *Calibrated) fitNet(c *Calibration, m *Machine, invMem float64) ([]point, error) {
	net, err := classify(c.Net, c.NetEagerLimit, "network")
	if err != nil {
		return nil, err
	}
	a := m.Overhead.A
	// h > 0: one-way - (k a + 2 s / B_mem) = k l + s / B_net.
	known := func(p point) float64 { return p.k*a + 2*p.s*invMem }
	var l, invNet float64
	var fit Fit
	if st := c.NetStream; st != nil {
		if !(st.Bytes > 0 && st.Seconds > 0) || math.IsInf(st.Seconds, 1) {
			return nil, fmt.Errorf("vtime: calibration: network stream: %d bytes in %g s", st.Bytes, st.Seconds)
		}
		invNet = st.Seconds / float64(st.Bytes)
		withStream := func(p point) float64 { return known(p) + p.s*invNet }
		l = fitLatency(net, withStream)
		fit = Fit{Name: "network model, streamed bandwidth"}
		fit.residuals(net, func(p point) float64 { return withStream(p) + p.k*l })
	} else {
		coef, f, err := fitModel(net, known, "network model")
		if err != nil {
			return nil, err
		}
		l, invNet, fit = coef[0], coef[1], f
	}
	if !(invNet > 0) {
		return nil, fmt.Errorf("vtime: calibration: network: one-way time grows no faster with size than two memory copies")
	}
	fit.Params = []Param{{"l", l, "s"}, {"bandwidth", 1 / invNet, "B/s"}}
	res.Fits = append(res.Fits, fit)
	res.addPoints(net, true, func(p point) float64 { return known(p) + p.k*l + p.s*invNet })
	// A star has hop 2 between any two nodes: l(2) = l0 = l with lh 0.
	m.Levels = []Level{{topologySpec: topologySpec{Kind: "star"}, Bandwidth: 1 / invNet, L0: l}}
	// A rank's NIC sends its messages one after the other: without the
	// queue, two messages a rank sends at once (MG's two faces of an axis
	// to one neighbour) would each get the whole link.
	m.NICQueue = true
	if c.NetHostsShareMachine {
		m.CoresPerNode = max(1, c.CoresPerNode/2)
	}
	return net, nil
}

// fitContention computes the contention factors of the three kernels and
// returns the table of the one asked for, for the machine file.
func (res *Calibrated) fitContention(c *Calibration, kernel string) ([]float64, error) {
	var err error
	if res.Compute, res.Memory, err = contentionFactors(c.Contention, c.CoresPerNode); err != nil {
		return nil, err
	}
	res.Mixed = make([]float64, len(res.Compute))
	for i := range res.Mixed {
		res.Mixed[i] = math.Sqrt(res.Compute[i] * res.Memory[i])
	}
	var table []float64
	switch kernel {
	case "compute":
		table = res.Compute
	case "memory":
		table = res.Memory
	case "mixed", "":
		table = res.Mixed
	default:
		return nil, fmt.Errorf("vtime: calibration: contention kernel %q is not compute, memory or mixed", kernel)
	}
	// Ranks do not compute faster together: a factor below 1 is the
	// measurement's noise, and the written table says "no slowdown" there.
	table = append([]float64(nil), table...)
	for i, f := range table {
		table[i] = math.Max(f, 1)
	}
	return table, nil
}

// point is a measurement with its protocol: k = 1 eager, 3 rendezvous
// (the number of messages, each paying a and l, one way).
type point struct {
	s, y, k float64
	size    int64
}

// classify checks one transport's measurements and marks their protocol.
// Times must grow with size: within a protocol, one size may take less
// than half of a smaller size's time (an outlier, on a loaded host), a
// second such size means the measurements are not of this model.
func classify(pp []PingPong, limit int, what string) ([]point, error) {
	if len(pp) < 3 {
		return nil, fmt.Errorf("vtime: calibration: %s: %d sizes measured, need at least 3", what, len(pp))
	}
	sorted := append([]PingPong(nil), pp...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Size < sorted[j].Size })
	var pts []point
	var top [2]float64 // largest time so far, eager and rendezvous
	var drops [2]int
	for _, p := range sorted {
		if p.Size < 0 || !(p.OneWay > 0) || math.IsInf(p.OneWay, 1) {
			return nil, fmt.Errorf("vtime: calibration: %s: size %d: one-way time %g", what, p.Size, p.OneWay)
		}
		pt := point{s: float64(p.Size), y: p.OneWay, k: 1, size: p.Size}
		i := 0
		if p.Size > int64(limit) {
			pt.k, i = 3, 1
		}
		if p.OneWay < top[i]/2 {
			if drops[i]++; drops[i] > 1 {
				return nil, fmt.Errorf("vtime: calibration: %s: size %d took %.3g s, less than half of a smaller size's %.3g s, and it is not the only one",
					what, p.Size, p.OneWay, top[i])
			}
		}
		top[i] = max(top[i], p.OneWay)
		pts = append(pts, pt)
	}
	if sorted[0].Size == sorted[len(sorted)-1].Size {
		return nil, fmt.Errorf("vtime: calibration: %s: all sizes are %d", what, sorted[0].Size)
	}
	return pts, nil
}

// fitModel fits y - known = c0 k + c1 s with c0, c1 >= 0, minimising
// relative residuals of y.
func fitModel(pts []point, known func(point) float64, name string) ([2]float64, Fit, error) {
	rows := make([][2]float64, len(pts))
	rhs := make([]float64, len(pts))
	for i, p := range pts {
		rows[i] = [2]float64{p.k / p.y, p.s / p.y}
		rhs[i] = (p.y - known(p)) / p.y
	}
	c, err := nonNegative(rows, rhs)
	if err != nil {
		return c, Fit{}, fmt.Errorf("vtime: calibration: %s: %v", name, err)
	}
	f := Fit{Name: name}
	f.residuals(pts, func(p point) float64 { return known(p) + c[0]*p.k + c[1]*p.s })
	return c, f, nil
}

// fitLatency fits y = known + k l with l >= 0, minimising relative
// residuals of y: the latency once the bandwidth is known.
func fitLatency(pts []point, known func(point) float64) float64 {
	var num, den float64
	for _, p := range pts {
		num += p.k / p.y * (p.y - known(p)) / p.y
		den += p.k / p.y * p.k / p.y
	}
	if !(den > 0) {
		return 0
	}
	return max(num/den, 0)
}

// fitLine fits one-way = intercept + slope x s to one protocol's points
// (free signs); ok is false with fewer than 3 sizes.
func fitLine(pts []point, rendezvous bool, what string) (Fit, bool) {
	var sel []point
	for _, p := range pts {
		if (p.k == 3) == rendezvous {
			sel = append(sel, p)
		}
	}
	if len(sel) < 3 {
		return Fit{}, false
	}
	rows := make([][2]float64, len(sel))
	rhs := make([]float64, len(sel))
	for i, p := range sel {
		rows[i], rhs[i] = [2]float64{1 / p.y, p.s / p.y}, 1
	}
	c, err := solve2(rows, rhs)
	if err != nil {
		return Fit{}, false
	}
	name := what + ", eager line"
	if rendezvous {
		name = what + ", rendezvous line"
	}
	f := Fit{Name: name, Params: []Param{{"intercept", c[0], "s"}, {"per byte", c[1], "s/B"}}}
	f.residuals(sel, func(p point) float64 { return c[0] + c[1]*p.s })
	return f, true
}

func (f *Fit) residuals(pts []point, model func(point) float64) {
	var sum float64
	for _, p := range pts {
		r := (model(p) - p.y) / p.y
		sum += r * r
		f.Max = max(f.Max, math.Abs(r))
	}
	f.Points = len(pts)
	f.RMS = math.Sqrt(sum / float64(len(pts)))
}

func (c *Calibrated) addPoints(pts []point, net bool, model func(point) float64) {
	for _, p := range pts {
		c.Points = append(c.Points, FitPoint{Net: net, Rendezvous: p.k == 3, Size: p.size, Measured: p.y, Model: model(p)})
	}
}

// solve2 is the least-squares solution of rows x = rhs (normal equations).
func solve2(rows [][2]float64, rhs []float64) ([2]float64, error) {
	var a00, a01, a11, b0, b1 float64
	for i, r := range rows {
		a00 += r[0] * r[0]
		a01 += r[0] * r[1]
		a11 += r[1] * r[1]
		b0 += r[0] * rhs[i]
		b1 += r[1] * rhs[i]
	}
	det := a00*a11 - a01*a01
	if !(math.Abs(det) > 1e-12*a00*a11) {
		return [2]float64{}, errors.New("the sizes do not determine both parameters")
	}
	x := [2]float64{(b0*a11 - b1*a01) / det, (a00*b1 - a01*b0) / det}
	if math.IsNaN(x[0]) || math.IsNaN(x[1]) || math.IsInf(x[0], 0) || math.IsInf(x[1], 0) {
		return [2]float64{}, errors.New("the fit does not converge")
	}
	return x, nil
}

// nonNegative is solve2 with both unknowns constrained to >= 0: the best
// of the unconstrained solution, if feasible, and the solutions with one
// unknown held at 0.
func nonNegative(rows [][2]float64, rhs []float64) ([2]float64, error) {
	x, err := solve2(rows, rhs)
	if err != nil {
		return x, err
	}
	if x[0] >= 0 && x[1] >= 0 {
		return x, nil
	}
	sse := func(x [2]float64) float64 {
		var s float64
		for i, r := range rows {
			d := r[0]*x[0] + r[1]*x[1] - rhs[i]
			s += d * d
		}
		return s
	}
	best, bestSSE := [2]float64{}, math.Inf(1)
	for j := 0; j < 2; j++ {
		var num, den float64
		for i, r := range rows {
			num += r[j] * rhs[i]
			den += r[j] * r[j]
		}
		var c [2]float64
		if den > 0 {
			c[j] = max(num/den, 0)
		}
		if s := sse(c); s < bestSSE {
			best, bestSSE = c, s
		}
	}
	return best, nil
}

// contentionFactors turns CPU times into factors T(k) / T(1) for k = 1 ..
// cores, interpolating linearly between the k measured (and holding the
// last beyond them).
func contentionFactors(samples []ContentionSample, cores int) (compute, memory []float64, err error) {
	byK := map[int]ContentionSample{}
	var ks []int
	for _, s := range samples {
		if s.K < 1 || s.K > cores {
			return nil, nil, fmt.Errorf("vtime: calibration: contention measured for k = %d, outside 1..%d", s.K, cores)
		}
		for _, t := range []float64{s.Compute, s.Memory} {
			if !(t > 0) || math.IsInf(t, 1) {
				return nil, nil, fmt.Errorf("vtime: calibration: contention at k = %d: CPU time %g", s.K, t)
			}
		}
		if _, dup := byK[s.K]; !dup {
			ks = append(ks, s.K)
		}
		byK[s.K] = s
	}
	one, ok := byK[1]
	if !ok {
		return nil, nil, errors.New("vtime: calibration: contention not measured for k = 1")
	}
	sort.Ints(ks)
	factor := func(k int, of func(ContentionSample) float64) float64 {
		i := sort.SearchInts(ks, k)
		if i == len(ks) {
			return of(byK[ks[len(ks)-1]]) / of(one)
		}
		hi := ks[i]
		if hi == k || i == 0 {
			return of(byK[hi]) / of(one)
		}
		lo := ks[i-1]
		w := float64(k-lo) / float64(hi-lo)
		return ((1-w)*of(byK[lo]) + w*of(byK[hi])) / of(one)
	}
	for k := 1; k <= cores; k++ {
		compute = append(compute, factor(k, func(s ContentionSample) float64 { return s.Compute }))
		memory = append(memory, factor(k, func(s ContentionSample) float64 { return s.Memory }))
	}
	return compute, memory, nil
}
