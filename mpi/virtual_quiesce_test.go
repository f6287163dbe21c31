package mpi

import "testing"

// TestMayBeQuietFindsTheBusyRank: a sample finds a rank that keeps its
// process from being quiet wherever its scan starts (it starts where the
// last one stopped), and only a process whose every rank is quiet (here:
// finished) may be quiet.
func TestMayBeQuietFindsTheBusyRank(t *testing.T) {
	cfg, err := newConfig(nil)
	if err != nil {
		t.Fatal(err)
	}
	const n = 5
	w := newWorld(n, 0, n, cfg)
	a := &quiesceAgent{w: w}
	for busy := range n {
		for start := range n {
			for i, r := range w.ranks {
				r.finished.Store(i != busy) // an unfinished rank that neither sleeps nor computes is busy
			}
			a.busyAt = start
			if a.mayBeQuiet() {
				t.Fatalf("rank %d busy, scan from %d: quiet", busy, start)
			}
			if a.busyAt != busy {
				t.Errorf("rank %d busy, scan from %d: stopped at %d", busy, start, a.busyAt)
			}
		}
	}
	w.ranks[a.busyAt].finished.Store(true)
	if !a.mayBeQuiet() {
		t.Error("every rank finished: not quiet")
	}
}
