package record

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// ManifestFile is the name of a record directory's manifest.
const ManifestFile = "manifest.json"

// Manifest describes a whole record: what was predicted and how. Every
// process of a recorded job writes the same one.
type Manifest struct {
	Format   int             `json:"format"`    // Recorded, or Version once compacted
	Gompi    string          `json:"gompi"`     // the module version that recorded
	Ranks    int             `json:"ranks"`     // P
	CPUScale float64         `json:"cpu_scale"` // of the recording
	Machine  json.RawMessage `json:"machine"`   // the recording's target (vtime.Machine JSON)
	// Leaders, in a compacted record (Compact), is every rank's group
	// leader: a rank whose leader is another takes its bursts from it,
	// scaled to its own stretch sums (MemberBursts; a record compacted
	// by gompi before format version 2 has none: the leader's bursts as
	// they are).
	Leaders []int `json:"leaders,omitempty"`
}

// WriteManifest writes m into dir (created if needed), atomically: the
// processes of one job may write it at once.
func WriteManifest(dir string, m Manifest) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".manifest-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(append(b, '\n'))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), filepath.Join(dir, ManifestFile))
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// ReadManifest reads and checks dir's manifest.
func ReadManifest(dir string) (Manifest, error) {
	path := filepath.Join(dir, ManifestFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return Manifest{}, fmt.Errorf("%s is not a gompi record: %v", dir, err)
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return Manifest{}, fmt.Errorf("%s: %v", path, err)
	}
	if m.Format < Recorded || m.Format > Version {
		return Manifest{}, fmt.Errorf("%s: format version %d; this gompi reads versions %d to %d", path, m.Format, Recorded, Version)
	}
	if m.Ranks < 1 || !(m.CPUScale >= 0) || len(m.Machine) == 0 {
		return Manifest{}, fmt.Errorf("%s: %d ranks, cpu scale %g, machine %q: not a valid manifest", path, m.Ranks, m.CPUScale, m.Machine)
	}
	if m.Leaders != nil {
		if len(m.Leaders) != m.Ranks {
			return Manifest{}, fmt.Errorf("%s: %d leaders for %d ranks", path, len(m.Leaders), m.Ranks)
		}
		for r, l := range m.Leaders {
			if l < 0 || l > r || m.Leaders[l] != l {
				return Manifest{}, fmt.Errorf("%s: rank %d's leader %d is not a leader before it", path, r, l)
			}
		}
	}
	return m, nil
}
