package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// -timeline draws exactly the trace's events: a box in the computation,
// call or waiting colour for each span -trace writes (plus the legend's
// three), and a line for each message arrow.
func TestTimeline(t *testing.T) {
	prog := vprog(t, "skeleton")
	dir := t.TempDir()
	trace, svg := filepath.Join(dir, "t.json"), filepath.Join(dir, "t.svg")
	r := gorun(t, nil, "-timeout", "25s", "-np", "2", "-virtual", "4", "-cpu-scale", "0", "-trace", trace, "-timeline", svg, prog, "-iters", "3")
	if r.code != 0 {
		t.Fatalf("exit %d:\n%s", r.code, r.stderr)
	}
	tr, _ := readTrace(t, trace)
	spans := map[string]int{}
	for _, e := range tr.TraceEvents {
		if e.Ph == "X" {
			spans[e.Cat]++
		}
	}
	data, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	for cat, colour := range map[string]string{"compute": "#1F77B4", "mpi": "#FF7F0E", "wait": "#2CA02C"} {
		if got := strings.Count(s, "fill:"+colour); got != spans[cat]+1 || spans[cat] == 0 {
			t.Errorf("%s: %d boxes, want the trace's %d spans and a legend swatch", cat, got, spans[cat])
		}
	}
	if got := strings.Count(s, "stroke:#404040"); got != tr.messages || got == 0 {
		t.Errorf("%d message lines, want the trace's %d arrows", got, tr.messages)
	}
	if !strings.Contains(s, "predicted on ") || !strings.Contains(s, ">rank 3<") {
		t.Errorf("the picture lacks its title or rank labels")
	}

	// A real run draws host time; -timeline alone needs no -trace file.
	png := filepath.Join(dir, "t.png")
	r = gorun(t, nil, "-timeout", "25s", "-np", "2", "-timeline", png, prog, "-iters", "2")
	if r.code != 0 {
		t.Fatalf("real run: exit %d:\n%s", r.code, r.stderr)
	}
	if b, err := os.ReadFile(png); err != nil || !strings.HasPrefix(string(b), "\x89PNG") {
		t.Errorf("real run: no PNG (%v)", err)
	}

	for _, args := range [][]string{
		{"-np", "2", "-virtual", "4", "-timeline", filepath.Join(dir, "t.txt"), prog},
		{"-np", "1", "-virtual", "100", "-timeline", svg, prog},
		{"-np", "1", "-virtual", "2,4", "-timeline", svg, prog},
	} {
		r := gorun(t, nil, args...)
		if r.code != 2 || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, "-timeline") {
			t.Errorf("gompirun %v: exit %d, stderr %q; want exit 2 and one line about -timeline", args, r.code, r.stderr)
		}
	}
}
