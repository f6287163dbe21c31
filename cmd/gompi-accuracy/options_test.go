package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseOptionsDefaults(t *testing.T) {
	o, err := parseOptions(nil)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(o.kernels, ",") != "ep,is,cg,mg,ft" || o.class != "A" || o.runs != 5 || o.np != 2 ||
		o.timeout != 10*time.Minute || o.format != "text" {
		t.Errorf("defaults: %+v", o)
	}
	var names []string
	for _, c := range o.cases {
		names = append(names, c.Name)
	}
	want := "shm-1core,shm-2core,net-1gbit-1core,net-1gbit-2core,net-200mbit-1core,net-200mbit-2core"
	if got := strings.Join(names, ","); got != want {
		t.Errorf("default cases %s, want %s", got, want)
	}
}

func TestParseCases(t *testing.T) {
	rates := []string{"1gbit", "200mbit"}
	tests := []struct{ list, want string }{
		{"shm", "shm-1core shm-2core"},
		{"net-200mbit-1core,shm-2core", "net-200mbit-1core shm-2core"},
		{"shm-2core,shm", "shm-2core shm-1core"},
		{"net", "net-1gbit-1core net-1gbit-2core net-200mbit-1core net-200mbit-2core"},
	}
	for _, tc := range tests {
		cs, err := parseCases(tc.list, rates)
		if err != nil {
			t.Errorf("%s: %v", tc.list, err)
			continue
		}
		var names []string
		for _, c := range cs {
			names = append(names, c.Name)
		}
		if got := strings.Join(names, " "); got != tc.want {
			t.Errorf("%s: cases %s, want %s", tc.list, got, tc.want)
		}
	}
	cs, _ := parseCases("net-200mbit-1core", rates)
	if c := cs[0]; c.Rate != "200mbit" || !c.OneCore || !c.Network() {
		t.Errorf("net-200mbit-1core = %+v", c)
	}
}

// TestParseOptionsRejects: every bad command line is an error that names
// the flag at fault.
func TestParseOptionsRejects(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte(`{"name": "x", "bmem": -1}`), 0o644)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"-kernels", "ep,dt"}, "-kernels"},
		{[]string{"-kernels", "ep,bt"}, "square"},
		{[]string{"-kernels", "ep,ep"}, "twice"},
		{[]string{"-kernels", ""}, "-kernels"},
		{[]string{"-class", "D"}, "-class"},
		{[]string{"-runs", "0"}, "-runs"},
		{[]string{"-np", "1"}, "-np"},
		{[]string{"-np", "3"}, "power of two"},
		{[]string{"-np", "3", "-kernels", "ep", "-cases", "net"}, "even"},
		{[]string{"-kernels", "ep,sp"}, "square"},
		{[]string{"-kernels", "lu", "-np", "10"}, "lu needs"},
		{[]string{"-rates", "fast"}, "-rates"},
		{[]string{"-rates", "0mbit"}, "-rates"},
		{[]string{"-rates", "1-gbit"}, "-rates"},
		{[]string{"-rates", "1gbit,1gbit"}, "twice"},
		{[]string{"-cases", "shm-4core"}, "-cases"},
		{[]string{"-cases", "net-10mbit-1core"}, "-rates"},
		{[]string{"-machine", bad}, "-machine"},
		{[]string{"-machine", "/does/not/exist.json"}, "-machine"},
		{[]string{"-net-machine", "1gbit"}, "RATE=FILE"},
		{[]string{"-net-machine", "10mbit=tianhe1a"}, "not in -rates"},
		{[]string{"-net-machine", "1gbit=tianhe1a", "-net-machine", "1gbit=tianhe1a"}, "twice"},
		{[]string{"-timeout", "0s"}, "-timeout"},
		{[]string{"-format", "html"}, "-format"},
		{[]string{"-runs", "x"}, "-runs"},
		{[]string{"ep"}, "unexpected argument"},
	}
	for _, tc := range tests {
		_, err := parseOptions(tc.args)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want one saying %q", tc.args, err, tc.want)
		}
	}
	if o, err := parseOptions([]string{"-np", "4", "-kernels", "sp,cg"}); err != nil || !slices.Equal(o.kernels, []string{"sp", "cg"}) {
		t.Errorf("-np 4 -kernels sp,cg: %+v, %v", o, err)
	}
	if _, err := parseOptions([]string{"-np", "3", "-kernels", "ep,mg", "-cases", "shm",
		"-machine", "tianhe1a", "-net-machine", "1gbit=tianhe1a", "-class", "s"}); err != nil {
		t.Errorf("3 ranks of EP and MG, presets as machines: %v", err)
	}
}

// TestBadFlagExitsTwo: a usage error is one line on standard error and
// status 2, before anything is built.
func TestBadFlagExitsTwo(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"-format", "html"}, &stdout, &stderr); code != 2 {
		t.Errorf("exit status %d, want 2", code)
	}
	if stdout.Len() != 0 || strings.Count(stderr.String(), "\n") != 1 || !strings.HasPrefix(stderr.String(), "gompi-accuracy: -format") {
		t.Errorf("stdout %q, stderr %q; want one line on stderr", stdout.String(), stderr.String())
	}
}

// TestPrebuiltBinaries: -bin takes a directory only when gompirun and
// every kernel named are executable files there, and says which is not.
func TestPrebuiltBinaries(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, mode os.FileMode) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
	}
	write("gompirun", 0o755)
	write("lu", 0o755)
	if _, err := prebuilt(dir, []string{"lu", "bt"}); err == nil || !strings.Contains(err.Error(), "bt") {
		t.Errorf("missing bt: got %v, want an error naming bt", err)
	}
	write("bt", 0o644)
	if _, err := prebuilt(dir, []string{"lu", "bt"}); err == nil || !strings.Contains(err.Error(), "bt is not an executable") {
		t.Errorf("bt not executable: got %v", err)
	}
	if err := os.Chmod(filepath.Join(dir, "bt"), 0o755); err != nil {
		t.Fatal(err)
	}
	abs, err := prebuilt(dir, []string{"lu", "bt"})
	if err != nil || !filepath.IsAbs(abs) {
		t.Errorf("complete -bin: got %q, %v", abs, err)
	}
	o, err := parseOptions([]string{"-bin", dir, "-kernels", "lu", "-np", "4"})
	if err != nil || o.bin != dir {
		t.Errorf("parseOptions -bin: got %+v, %v", o, err)
	}
}
