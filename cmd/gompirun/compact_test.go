package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// -compact groups a record's ranks and the record still replays; a record
// is compacted once; misuse is a usage error.
func TestCompact(t *testing.T) {
	prog := vprog(t, "skeleton")
	dir := filepath.Join(t.TempDir(), "rec")
	if r := gorun(t, nil, "-timeout", "25s", "-np", "2", "-virtual", "8", "-record", dir, prog, "-iters", "3"); r.code != 0 {
		t.Fatalf("record: exit %d\n%s", r.code, r.stderr)
	}
	r := gorun(t, nil, "-compact", dir, "-tolerance", "0.5", "-stretches", "7")
	if r.code != 0 || !strings.Contains(r.stdout, "8 ranks in ") || !strings.Contains(r.stdout, "leader 0: ranks 0") {
		t.Fatalf("compact: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := gorun(t, nil, "-replay", dir); r.code != 0 || !strings.Contains(r.stderr, "gompi prediction: 8 ranks") {
		t.Fatalf("replay of the compacted record: exit %d\n%s", r.code, r.stderr)
	}
	if r := gorun(t, nil, "-compact", dir); r.code != 1 || !strings.Contains(r.stderr, "compacted already") {
		t.Errorf("second compact: exit %d %q", r.code, r.stderr)
	}
	for _, args := range [][]string{
		{"-compact", dir, prog},
		{"-compact", dir, "-np", "2"},
		{"-compact", dir, "-tolerance", "-1"},
		{"-tolerance", "0.1", "-np", "1", prog},
		{"-stretches", "8", "-np", "1", prog},
		{"-compact", dir, "-stretches", "0"},
		{"-compact", dir, "-stretches", "2000000"},
	} {
		if r := gorun(t, nil, args...); r.code != 2 || !strings.Contains(r.stderr, "-") {
			t.Errorf("gompirun %v: exit %d %q; want a usage error", args, r.code, r.stderr)
		}
	}
}
