package record

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Group puts ranks with as many bursts and stretch sums within the
// tolerance with the first such leader, and no others.
func TestGroup(t *testing.T) {
	flat := func(n int, v float64) []float64 {
		b := make([]float64, n)
		for i := range b {
			b[i] = v
		}
		return b
	}
	noisy := flat(128, 1e-4)
	for i := range noisy {
		if i%2 == 0 {
			noisy[i] *= 1.3 // per burst noise; each stretch of two sums exactly
		} else {
			noisy[i] *= 0.7
		}
	}
	bursts := [][]float64{
		flat(128, 1e-4), // 0: a leader
		flat(128, 2e-4), // 1: twice the computation: a leader
		noisy,           // 2: 0's, burst by burst 30% off
		flat(127, 1e-4), // 3: other calls: a leader
		flat(128, 1.02e-4),
		flat(128, 1.2e-4), // 5: 20% more: a leader at 5%
	}
	got := Group(bursts, 0.05)
	want := []int{0, 1, 0, 3, 0, 5}
	for r := range want {
		if got[r] != want[r] {
			t.Fatalf("leaders %v, want %v", got, want)
		}
	}
	if got := Group(bursts, 0.25); got[5] != 0 {
		t.Errorf("at 25%% rank 5 leads itself: %v", got)
	}
}

// A manifest's leaders must each lead themselves and come no later than
// their members.
func TestManifestLeaders(t *testing.T) {
	dir := t.TempDir()
	m := Manifest{Format: Version, Ranks: 3, CPUScale: 1, Machine: json.RawMessage(`{}`)}
	for _, tc := range []struct {
		leaders []int
		ok      bool
	}{
		{[]int{0, 0, 2}, true},
		{[]int{0, 0}, false},
		{[]int{0, 2, 2}, false},
		{[]int{1, 1, 1}, false},
		{[]int{0, 0, 1}, false},
	} {
		m.Leaders = tc.leaders
		if err := WriteManifest(dir, m); err != nil {
			t.Fatal(err)
		}
		_, err := ReadManifest(dir)
		if (err == nil) != tc.ok || (err != nil && !strings.Contains(err.Error(), "leader")) {
			t.Errorf("leaders %v: %v", tc.leaders, err)
		}
	}
}

// Compact rewrites a member's bursts as references and keeps its other
// events; a bad tolerance or a missing record is an error.
func TestCompactRewrites(t *testing.T) {
	dir := t.TempDir()
	if err := WriteManifest(dir, Manifest{Format: Version, Ranks: 2, CPUScale: 1, Machine: json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
	for r := 0; r < 2; r++ {
		var w Writer
		w.Event(7, []int64{1, 2})
		w.Burst(1e-3)
		w.Event(8, nil)
		w.Burst(2e-3)
		w.Sensitive()
		w.Buffer(64)
		if err := w.WriteFile(filepath.Join(dir, RankFile(r)), Header{Rank: r, Ranks: 2, HostConcurrency: 1}); err != nil {
			t.Fatal(err)
		}
	}
	sum, err := Compact(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Groups != 1 || sum.Moved != 2 || sum.Leaders[1] != 0 {
		t.Fatalf("summary %+v", sum)
	}
	s, err := ReadFile(filepath.Join(dir, RankFile(1)))
	if err != nil {
		t.Fatal(err)
	}
	ops := []uint8{7, BurstRef, 8, BurstRef}
	if s.Len() != len(ops) || s.Sensitive != 1 || s.MaxBytes != 64 || s.Rank != 1 {
		t.Fatalf("member: %d events, sensitive %d, max bytes %d, rank %d", s.Len(), s.Sensitive, s.MaxBytes, s.Rank)
	}
	for i, op := range ops {
		if s.Op(i) != op {
			t.Errorf("event %d: op %d, want %d", i, s.Op(i), op)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, RankFile(1)) + ".tmp"); err == nil {
		t.Error("a temporary file is left")
	}
	if _, err := Compact(t.TempDir(), 0); err == nil {
		t.Error("compacted a directory that is no record")
	}
	if _, err := Compact(dir, -1); err == nil {
		t.Error("a negative tolerance")
	}
}
