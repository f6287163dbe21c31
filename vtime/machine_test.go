package vtime

import (
	"bytes"
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
	for _, tc := range []struct{ file, want string }{
		{`{"name": "m", "bmem": 0, "cores_per_node": 1, "levels": [{"topology": "star", "bandwidth": 1}]}`, "bmem"},
		{`{"name": "m", "bmem": 1, "cores_per_node": 0, "levels": [{"topology": "star", "bandwidth": 1}]}`, "cores_per_node"},
		{`{"name": "m", "bmem": 1, "cores_per_node": 1, "mapping": "diagonal", "levels": [{"topology": "star", "bandwidth": 1}]}`, "mapping"},
		{`{"name": "m", "bmem": 1, "cores_per_node": 1, "levels": []}`, "levels"},
		{`{"name": "m", "bmem": 1, "cores_per_node": 1, "levels": [{"topology": "star", "bandwidth": 0}]}`, "levels[0].bandwidth"},
		{`{"name": "m", "bmem": 1, "cores_per_node": 1, "levels": [{"topology": "hypercube", "bandwidth": 1}]}`, "levels[0].topology"},
		{`{"name": "m", "bmem": 1, "cores_per_node": 1, "levels": [{"topology": "torus", "dims": [4, 0], "bandwidth": 1}]}`, "levels[0].dims"},
		{`{"name": "m", "bmem": 1, "cores_per_node": 1, "levels": [{"topology": "torus", "dims": [4], "wrap": [true, false], "bandwidth": 1}]}`, "levels[0].wrap"},
		{`{"name": "m", "bmem": 1, "cores_per_node": 1, "levels": [{"topology": "tree", "arity": 1, "bandwidth": 1}]}`, "levels[0].arity"},
		{`{"name": "m", "bmem": 1, "cores_per_node": 1, "levels": [{"topology": "star", "bandwidth": 1}, {"topology": "star", "bandwidth": 1}]}`, "levels[0].size"},
		{`{"name": "m", "bmem": 1, "cores_per_node": 1, "levels": [{"topology": "star", "bandwidth": 1, "lh": -1}]}`, "levels[0].l0/lh"},
		{`{"name": "m", "bmem": 1, "cores_per_node": 1, "levels": [{"topology": "star", "bandwidth": 1}], "overhead": {"a": -1}}`, "overhead"},
		{`{"name": "m", "bmem": 1, "cores_per_node": 1, "levels": [{"topology": "star", "bandwith": 1}]}`, "bandwith"},
		{`{"name": "m", "bmem": "fast"}`, "bmem"},
		{`{"name": `, "machine file"},
	} {
		_, err := ParseMachine([]byte(tc.file))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s\n  error %v, want one naming %q", tc.file, err, tc.want)
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
