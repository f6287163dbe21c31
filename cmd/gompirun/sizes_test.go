package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestParseRejectsBadSizes: job shapes that cannot run, and a -report file
// that cannot be written, are usage errors found before anything starts,
// each with a message naming the option; none is silently ignored.
func TestParseRejectsBadSizes(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"-np", "2", "-virtual", "99999999999", "prog"}, "32-bit"},
		{[]string{"-np", "1", "-virtual", "2000000000", "prog"}, "use more processes"},
		{[]string{"-np", "2", "-virtual", "0", "prog"}, "-virtual 0"},
		{[]string{"-np", "99999999999", "-hosts", "a,b", "prog"}, "-np 99999999999"},
		{[]string{"-np", "2000000000", "prog"}, "-np 2000000000"},
		{[]string{"-np", "2", "-virtual", "-4", "prog"}, "-virtual -4"},
		{[]string{"-np", "2", "-ranks", "0", "prog"}, "-ranks 0"},
		{[]string{"-np", "2", "-ranks", "0", "-virtual", "4", "prog"}, "-ranks 0"},
		{[]string{"-np", "2", "-virtual", "4", "-report", filepath.Join(dir, "no", "such", "dir", "r.json"), "prog"}, "-report"},
	} {
		if _, err := parse(c.args); err == nil || !strings.Contains(err.Error(), c.msg) || strings.Contains(err.Error(), "\n") {
			t.Errorf("parse %v: error %v; want one line naming %q", c.args, err, c.msg)
		}
	}
	// A good -report path is checked without leaving a file behind.
	report := filepath.Join(dir, "r.json")
	if _, err := parse([]string{"-np", "2", "-virtual", "4", "-report", report, "prog"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(report); !os.IsNotExist(err) {
		t.Errorf("checking -report %s left the file behind (%v)", report, err)
	}
}

// TestBadSettingIsAUsageError: a mistyped GOMPI_* setting stops gompirun
// before the job starts, with one line naming it. GOMPI_SHM_RING=abc used
// to make shared memory fail to open, and the job ran over TCP, 20 times
// slower, without a word.
func TestBadSettingIsAUsageError(t *testing.T) {
	for _, env := range []string{"GOMPI_SHM_RING=abc", "GOMPI_SHM_RNG=65536", "GOMPI_SPIN=lots"} {
		r := gorun(t, []string{env}, "-np", "2", "-timeout", "20s", jobProg)
		name, _, _ := strings.Cut(env, "=")
		if r.code != 2 || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, name) {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 and one line naming %s", env, r.code, r.stderr, name)
		}
	}
}
