package vtime

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPresetsValidateAndRoundTrip(t *testing.T) {
	for _, name := range Presets() {
		m, err := Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Validate(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		back, err := ParseMachine(m.JSON())
		if err != nil {
			t.Fatalf("%s: its own JSON does not parse: %v\n%s", name, err, m.JSON())
		}
		if !bytes.Equal(back.JSON(), m.JSON()) {
			t.Errorf("%s: JSON round trip changed the machine", name)
		}
		if _, err := m.Place(64); err != nil {
			t.Errorf("%s: 64 ranks: %v", name, err)
		}
	}
	if m, err := LoadMachine(""); err != nil || m.Name != DefaultPreset {
		t.Errorf("default machine: %v %v", m, err)
	}
}

func TestPresetIsACopy(t *testing.T) {
	m, _ := Preset("tianhe1a")
	m.Levels[0].Bandwidth = 1
	again, _ := Preset("tianhe1a")
	if again.Levels[0].Bandwidth != 4.16e9 {
		t.Error("changing a preset's copy changed the preset")
	}
}

func TestMachineFileErrorsNameTheField(t *testing.T) {
	good := `{"name": "m", "bmem": 1e10, "cores_per_node": 4, "mapping": "block",
	  "levels": [{"topology": "torus", "dims": [4, 4], "bandwidth": 1e9, "l0": 1e-6, "lh": 1e-7}]}`
	if _, err := ParseMachine([]byte(good)); err != nil {
		t.Fatalf("good file rejected: %v", err)
	}
	// Each case is one bad field in an otherwise good machine.
	const base = `"name": "m", "bmem": 1e10, "cores_per_node": 1`
	star := func(level string) string { return `"levels": [{"topology": "star", ` + level + `}]` }
	okStar := star(`"bandwidth": 1e9`)
	for _, tc := range []struct{ file, want string }{
		{`{"name": "m", "bmem": 0, "cores_per_node": 1, ` + okStar + `}`, "bmem"},
		{`{"name": "m", "bmem": 1e300, "cores_per_node": 1, ` + okStar + `}`, "bmem"},
		{`{"name": "m", "bmem": 999, "cores_per_node": 1, ` + okStar + `}`, "bmem"},
		{`{"name": "m", "bmem": 1e10, "cores_per_node": 0, ` + okStar + `}`, "cores_per_node"},
		{`{"name": "m", "bmem": 1e10, "cores_per_node": 1048577, ` + okStar + `}`, "cores_per_node"},
		{`{` + base + `, "mapping": "diagonal", ` + okStar + `}`, "mapping"},
		{`{` + base + `, "levels": []}`, "levels"},
		{`{` + base + `, ` + star(`"bandwidth": 0`) + `}`, "levels[0].bandwidth"},
		{`{` + base + `, ` + star(`"bandwidth": 1e-300`) + `}`, "levels[0].bandwidth"},
		{`{` + base + `, ` + star(`"bandwidth": 2e15`) + `}`, "levels[0].bandwidth"},
		{`{` + base + `, "levels": [{"topology": "hypercube", "bandwidth": 1e9}]}`, "levels[0].topology"},
		{`{` + base + `, "levels": [{"topology": "torus", "dims": [4, 0], "bandwidth": 1e9}]}`, "levels[0].dims"},
		{`{` + base + `, "levels": [{"topology": "torus", "dims": [4], "wrap": [true, false], "bandwidth": 1e9}]}`, "levels[0].wrap"},
		{`{` + base + `, "levels": [{"topology": "tree", "arity": 1, "bandwidth": 1e9}]}`, "levels[0].arity"},
		{`{` + base + `, "levels": [{"topology": "star", "bandwidth": 1e9}, {"topology": "star", "bandwidth": 1e9}]}`, "levels[0].size"},
		{`{` + base + `, ` + star(`"bandwidth": 1e9, "lh": -1`) + `}`, "levels[0].lh"},
		{`{` + base + `, ` + star(`"bandwidth": 1e9, "lh": 2`) + `}`, "levels[0].lh"},
		{`{` + base + `, ` + star(`"bandwidth": 1e9, "l0": -1e-9`) + `}`, "levels[0].l0"},
		{`{` + base + `, ` + star(`"bandwidth": 1e9, "l0": 1.5`) + `}`, "levels[0].l0"},
		{`{` + base + `, ` + okStar + `, "overhead": {"a": -1}}`, "overhead.a"},
		{`{` + base + `, ` + okStar + `, "overhead": {"a": 10}}`, "overhead.a"},
		{`{` + base + `, ` + okStar + `, "overhead": {"b": -1e-9}}`, "overhead.b"},
		{`{` + base + `, ` + okStar + `, "overhead": {"b": 0.01}}`, "overhead.b"},
		{`{` + base + `, ` + okStar + `, "eager_limit": -1}`, "eager_limit"},
		{`{` + base + `, ` + okStar + `, "eager_limit": 1073741825}`, "eager_limit"},
		{`{` + base + `, ` + okStar + `, "net_eager_limit": -1}`, "net_eager_limit"},
		{`{` + base + `, ` + okStar + `, "net_eager_limit": 2147483648}`, "net_eager_limit"},
		{`{` + base + `, ` + okStar + `, "nic_queue": 1}`, "nic_queue"},
		{`{` + base + `, ` + star(`"bandwith": 1e9`) + `}`, "bandwith"},
		{`{"name": "m", "bmem": "fast"}`, "bmem"},
		{`{"name": `, "machine file"},
	} {
		_, err := ParseMachine([]byte(tc.file))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s\n  error %v, want one naming %q", tc.file, err, tc.want)
		}
	}
	// JSON cannot spell NaN or Inf; a machine built in Go can.
	for _, tc := range []struct {
		set  func(m *Machine)
		want string
	}{
		{func(m *Machine) { m.BMem = math.NaN() }, "bmem"},
		{func(m *Machine) { m.BMem = math.Inf(1) }, "bmem"},
		{func(m *Machine) { m.Levels[0].Bandwidth = math.NaN() }, "levels[0].bandwidth"},
		{func(m *Machine) { m.Levels[0].Bandwidth = math.Inf(1) }, "levels[0].bandwidth"},
		{func(m *Machine) { m.Levels[0].L0 = math.NaN() }, "levels[0].l0"},
		{func(m *Machine) { m.Levels[0].LH = math.Inf(1) }, "levels[0].lh"},
		{func(m *Machine) { m.Overhead.A = math.NaN() }, "overhead.a"},
		{func(m *Machine) { m.Overhead.B = math.Inf(1) }, "overhead.b"},
	} {
		m, _ := Preset("tianhe1a")
		tc.set(m)
		if err := m.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one naming it", tc.want, err)
		}
		if _, err := m.Place(2); err == nil {
			t.Errorf("%s: Place accepted the machine", tc.want)
		}
	}
}

// An omitted eager limit is the default, an explicit 0 is not: 0 sends
// every non-empty message by rendezvous. JSON spells every default out so
// that a printed machine shows the limits it uses.
func TestEagerLimitsDefaultAndExplicitZero(t *testing.T) {
	const file = `{"name": "m", "bmem": 1e10, "cores_per_node": 2,
	  "levels": [{"topology": "star", "bandwidth": 1e9, "lh": 1e-6}]%s}`
	for _, tc := range []struct {
		fields         string
		wantNode, want int
	}{
		{``, DefaultEagerLimit, DefaultEagerLimit},
		{`, "eager_limit": 0`, 0, DefaultEagerLimit},
		{`, "net_eager_limit": 0`, DefaultEagerLimit, 0},
		{`, "eager_limit": 100, "net_eager_limit": 7`, 100, 7},
	} {
		m, err := ParseMachine([]byte(fmt.Sprintf(file, tc.fields)))
		if err != nil {
			t.Fatal(err)
		}
		tg, err := m.Place(4)
		if err != nil {
			t.Fatal(err)
		}
		// Ranks 0 and 1 share node 0; rank 2 is on node 1.
		if got := tg.EagerLimit(0, 1); got != tc.wantNode {
			t.Errorf("%q: same node: eager limit %d, want %d", tc.fields, got, tc.wantNode)
		}
		if got := tg.EagerLimit(1, 2); got != tc.want {
			t.Errorf("%q: across the network: eager limit %d, want %d", tc.fields, got, tc.want)
		}
		back, err := ParseMachine(m.JSON())
		if err != nil {
			t.Fatal(err)
		}
		if back.EagerLimit == nil || *back.EagerLimit != tc.wantNode || back.NetEagerLimit == nil || *back.NetEagerLimit != tc.want {
			t.Errorf("%q: JSON does not spell the limits out:\n%s", tc.fields, m.JSON())
		}
		for _, f := range []string{`"mapping": "block"`, `"nic_queue": false`} {
			if !strings.Contains(string(m.JSON()), f) {
				t.Errorf("%q: JSON lacks %s:\n%s", tc.fields, f, m.JSON())
			}
		}
	}
}

func TestLoadMachineFileAndPlaceErrors(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "m.json")
	os.WriteFile(p, []byte(`{"name": "small", "bmem": 1e10, "cores_per_node": 2, "mapping": "round-robin",
	  "levels": [{"topology": "ring", "size": 4, "bidirectional": true, "bandwidth": 1e9, "lh": 1e-6}]}`), 0o644)
	m, err := LoadMachine(p)
	if err != nil {
		t.Fatal(err)
	}
	tg, err := m.Place(8)
	if err != nil {
		t.Fatal(err)
	}
	// round-robin over 4 nodes: rank r on node r mod 4.
	if h := tg.Hop(0, 4); h != 0 {
		t.Errorf("ranks 0 and 4 share node 0 under round-robin: hop %d", h)
	}
	if h := tg.Hop(1, 3); h != 2 {
		t.Errorf("nodes 1 and 3 on a bidirectional 4-ring: hop %d, want 2", h)
	}
	if _, err := m.Place(9); err == nil || !strings.Contains(err.Error(), "holds 8 cores") {
		t.Errorf("9 ranks on 8 cores: %v", err)
	}
	if _, err := LoadMachine(filepath.Join(dir, "missing.json")); err == nil || !strings.Contains(err.Error(), "neither a preset") {
		t.Errorf("missing file: %v", err)
	}
}
