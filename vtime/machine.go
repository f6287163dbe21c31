package vtime

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
)

// Machine describes a target machine (VACED-SIM Sect. 4.1, xSim Sect. III):
// memory bandwidth, how cores group into shared-memory nodes, and the
// networks that join nodes, innermost level first. It is what a machine file
// holds; Place binds it to a job of P ranks.
//
// Units are SI: bandwidths in bytes per second, latencies in seconds.
type Machine struct {
	Name string `json:"name"`
	// BMem is B_mem, the memory bandwidth of Eq. (3) and (4).
	BMem float64 `json:"bmem"`
	// CoresPerNode cores share memory: messages between them take h = 0
	// and L = s / B_mem (Eq. 4). 1 makes every core its own node, so that
	// on-chip networks (xSim) can be described as levels.
	CoresPerNode int `json:"cores_per_node"`
	// Mapping places rank r on a core: "block" (core r, filling a node
	// before the next) or "round-robin" (node r mod N, N the job's nodes).
	Mapping string `json:"mapping,omitempty"`
	// Levels are the networks between nodes, innermost first. Level i
	// joins groups of level i-1 (nodes for level 0); every level but the
	// last needs a bounded size, which is its group size.
	Levels []Level `json:"levels"`
	// Overhead is LAPSE's per-message software cost a + b x s, charged to
	// the sender before the copy (0 keeps Eq. 3 exact).
	Overhead Overhead `json:"overhead,omitempty"`
	// EagerLimit and NetEagerLimit are the largest messages, in bytes,
	// the target MPI sends eagerly between ranks of one node (h = 0) and
	// of different nodes (h > 0); 0 means not given.
	EagerLimit    int `json:"eager_limit,omitempty"`
	NetEagerLimit int `json:"net_eager_limit,omitempty"`
	// Contention[k-1] is the factor by which computation is slower when
	// k ranks of one node compute at once (Contention[0] = 1); empty: not
	// given.
	Contention []float64 `json:"contention,omitempty"`
}

// Level is one network of the hierarchy (xSim hierarchical combinations).
type Level struct {
	topologySpec
	// Bandwidth is the link bandwidth b (B_net for a one-level machine).
	Bandwidth float64 `json:"bandwidth"`
	// L0 and LH give the latency of an h-hop transfer, l(h) = L0 + h x LH.
	// VACED-SIM's Tianhe-1A: L0 = 15 us, LH = 0.6 us. xSim's h x l: L0 = 0,
	// LH = l. L0 counts once per message, at the outermost level it uses.
	L0 float64 `json:"l0"`
	LH float64 `json:"lh"`
}

// Overhead is a per-message software overhead A + B x size seconds.
type Overhead struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}

// DefaultPreset is the machine used when none is named.
const DefaultPreset = "tianhe1a"

const gbps = 1e9 / 8 // bytes per second in one Gbit/s

// presets are the built-in machines. tianhe1a is VACED-SIM Sect. 5.2; the
// xsim-* ones are Table I of the xSim network model paper (its 2D/3D sizes
// are examples: copy the JSON from `Preset(name)` and change dims).
var presets = map[string]Machine{
	"tianhe1a": {
		Name: "tianhe1a", BMem: 6.38e9, CoresPerNode: 12, Mapping: "block",
		Levels: []Level{{topologySpec: topologySpec{Kind: "eq5", Group: 16, Near: 3, Far: 5},
			Bandwidth: 4.16e9, L0: 15e-6, LH: 0.6e-6}},
	},
	"xsim-ethernet": {
		Name: "xsim-ethernet", BMem: 6.38e9, CoresPerNode: 1, Mapping: "block",
		Levels: []Level{{topologySpec: topologySpec{Kind: "star"}, Bandwidth: 1 * gbps, LH: 25e-6}},
	},
	"xsim-ethernet-multicore": {
		Name: "xsim-ethernet-multicore", BMem: 6.38e9, CoresPerNode: 1, Mapping: "block",
		Levels: []Level{
			{topologySpec: topologySpec{Kind: "star", Size: 4}, Bandwidth: 12 * gbps, LH: 0.32e-6},
			{topologySpec: topologySpec{Kind: "star"}, Bandwidth: 1 * gbps, LH: 25e-6},
		},
	},
	"xsim-mesh2d": {
		Name: "xsim-mesh2d", BMem: 6.38e9, CoresPerNode: 1, Mapping: "block",
		Levels: []Level{{topologySpec: topologySpec{Kind: "mesh", Dims: []int{32, 32}}, Bandwidth: 8.8 * gbps, LH: 7e-6}},
	},
	"xsim-mesh3d-dualcore": {
		Name: "xsim-mesh3d-dualcore", BMem: 6.38e9, CoresPerNode: 1, Mapping: "block",
		Levels: []Level{
			{topologySpec: topologySpec{Kind: "star", Size: 2}, Bandwidth: 9.6 * gbps, LH: 0.32e-6},
			{topologySpec: topologySpec{Kind: "mesh", Dims: []int{8, 8, 16}}, Bandwidth: 8.8 * gbps, LH: 7e-6},
		},
	},
	"xsim-torus3d-dualcore": {
		Name: "xsim-torus3d-dualcore", BMem: 6.38e9, CoresPerNode: 1, Mapping: "block",
		Levels: []Level{
			{topologySpec: topologySpec{Kind: "star", Size: 2}, Bandwidth: 9.6 * gbps, LH: 0.32e-6},
			{topologySpec: topologySpec{Kind: "torus", Dims: []int{8, 8, 16}}, Bandwidth: 8.8 * gbps, LH: 7e-6},
		},
	},
	"xsim-twisted3d-dualcore": {
		Name: "xsim-twisted3d-dualcore", BMem: 6.38e9, CoresPerNode: 1, Mapping: "block",
		Levels: []Level{
			{topologySpec: topologySpec{Kind: "star", Size: 2}, Bandwidth: 9.6 * gbps, LH: 0.32e-6},
			{topologySpec: topologySpec{Kind: "twisted-torus", Dims: []int{8, 8, 16}, Degree: 1, Jump: []int{1, 1, 1}},
				Bandwidth: 8.8 * gbps, LH: 7e-6},
		},
	},
}

// Presets lists the built-in machine names.
func Presets() []string {
	var s []string
	for k := range presets {
		s = append(s, k)
	}
	sort.Strings(s)
	return s
}

// Preset returns a copy of a built-in machine ("" is DefaultPreset).
func Preset(name string) (*Machine, error) {
	if name == "" {
		name = DefaultPreset
	}
	m, ok := presets[name]
	if !ok {
		return nil, fmt.Errorf("vtime: no machine preset %q (have %s)", name, strings.Join(Presets(), ", "))
	}
	b, _ := json.Marshal(m) // deep copy
	var c Machine
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, err
	}
	return &c, nil
}

// ParseMachine reads a machine from its JSON form. Unknown fields are
// errors (a misspelt field must not silently fall back to a default).
func ParseMachine(data []byte) (*Machine, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var m Machine
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("vtime: machine file: %v", err)
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return &m, nil
}

// LoadMachine returns a preset when spec names one, otherwise reads spec as
// a machine file. "" is DefaultPreset.
func LoadMachine(spec string) (*Machine, error) {
	if _, ok := presets[spec]; ok || spec == "" {
		return Preset(spec)
	}
	data, err := os.ReadFile(spec)
	if err != nil {
		return nil, fmt.Errorf("vtime: machine %q is neither a preset (%s) nor a readable file: %v",
			spec, strings.Join(Presets(), ", "), err)
	}
	m, err := ParseMachine(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", spec, err)
	}
	return m, nil
}

// Validate checks every field, naming the first bad one and why.
func (m *Machine) Validate() error {
	bad := func(f, why string, a ...any) error {
		return fmt.Errorf("vtime: machine %q: %s: %s", m.Name, f, fmt.Sprintf(why, a...))
	}
	if !(m.BMem > 0) {
		return bad("bmem", "memory bandwidth must be > 0 bytes/s, got %g", m.BMem)
	}
	if m.CoresPerNode < 1 {
		return bad("cores_per_node", "must be >= 1, got %d", m.CoresPerNode)
	}
	switch m.Mapping {
	case "", "block", "round-robin":
	default:
		return bad("mapping", "%q is not block or round-robin", m.Mapping)
	}
	if len(m.Levels) == 0 {
		return bad("levels", "at least one network level is needed")
	}
	for i := range m.Levels {
		lv := &m.Levels[i]
		f := fmt.Sprintf("levels[%d]", i)
		if !(lv.Bandwidth > 0) {
			return bad(f+".bandwidth", "must be > 0 bytes/s, got %g", lv.Bandwidth)
		}
		if lv.L0 < 0 || lv.LH < 0 {
			return bad(f+".l0/lh", "latencies must be >= 0 s")
		}
		t, err := lv.build(f)
		if err != nil {
			return fmt.Errorf("vtime: machine %q: %v", m.Name, err)
		}
		if i < len(m.Levels)-1 && t.size() < 1 {
			return bad(f+".size", "an inner level needs a bounded size (it is the group size of the next level)")
		}
	}
	if m.Overhead.A < 0 || m.Overhead.B < 0 {
		return bad("overhead", "a and b must be >= 0")
	}
	if m.EagerLimit < 0 || m.NetEagerLimit < 0 {
		return bad("eager_limit", "eager limits must be >= 0 bytes")
	}
	for i, f := range m.Contention {
		if !(f > 0) || math.IsInf(f, 1) {
			return bad(fmt.Sprintf("contention[%d]", i), "must be a factor > 0, got %g", f)
		}
	}
	return nil
}

// JSON returns the machine in its file format.
func (m *Machine) JSON() []byte {
	b, _ := json.MarshalIndent(m, "", "  ")
	return b
}
