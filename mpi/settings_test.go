package mpi

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/gompi/gompi/internal/launch"
)

// TestCheckSettings: every GOMPI_* setting is checked, a bad value is an
// error naming the variable, and so is a GOMPI_* name gompi does not know.
func TestCheckSettings(t *testing.T) {
	good := map[string]string{
		"GOMPI_TRANSPORT": "shm", "GOMPI_TCP_LISTEN": "127.0.0.1:0", "GOMPI_SPIN": "0",
		"GOMPI_EAGER_LIMIT": "65536", "GOMPI_SHM_RING": "65536", "GOMPI_SHM_SPIN": "200us",
		"GOMPI_SHM_CMA": "0", "GOMPI_HOST": "node-a", "GOMPI_HOST_NPROCS": "2",
		"GOMPI_VHOST_CONCURRENCY": "4", "GOMPI_VCPU_SCALE": "0.5", "GOMPI_COLL_BCAST": "auto",
		"GOMPI_JOB": "anything: checked by launch.FromEnv",
	}
	for k, v := range good {
		t.Setenv(k, v)
	}
	if err := CheckSettings(); err != nil {
		t.Fatalf("good settings refused: %v", err)
	}
	for _, bad := range [][2]string{
		{"GOMPI_SHM_RING", "abc"}, {"GOMPI_SHM_SPIN", "fast"}, {"GOMPI_SHM_CMA", "yes"},
		{"GOMPI_TRANSPORT", "udp"}, {"GOMPI_TCP_LISTEN", "localhost"}, {"GOMPI_TCP_LISTEN", "127.0.0.1:http"},
		{"GOMPI_SPIN", "-1"}, {"GOMPI_EAGER_LIMIT", "1k"}, {"GOMPI_HOST_NPROCS", "x"},
		{"GOMPI_HOST", "a\tb"}, {"GOMPI_VHOST_CONCURRENCY", "0"}, {"GOMPI_VCPU_SCALE", "-1"},
		{"GOMPI_VMACHINE", "{"}, {"GOMPI_COLL_BCAST", "fastest"},
		{"GOMPI_COLL_BCST", "auto"}, {"GOMPI_SHM_RNG", "65536"},
	} {
		t.Run(bad[0]+"="+bad[1], func(t *testing.T) {
			t.Setenv(bad[0], bad[1])
			err := CheckSettings()
			if err == nil || !strings.Contains(err.Error(), bad[0]) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("%s=%q: error %v; want one line naming it", bad[0], bad[1], err)
			}
		})
	}
}

// TestSettingsDocumented holds the one list of settings (settings) and the
// man page's ENVIRONMENT section together: every setting, GOMPI_COLL_*
// variable and job variable is described there, and every GOMPI_* name the
// section shows in bold is one gompi reads. Each setting says its default
// and who reads it.
func TestSettingsDocumented(t *testing.T) {
	b, err := os.ReadFile("../docs/gompirun.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	i := strings.Index(doc, "\n# ENVIRONMENT\n")
	if i < 0 {
		t.Fatal("docs/gompirun.md has no ENVIRONMENT section")
	}
	env := doc[i+1:]
	if j := strings.Index(env[1:], "\n# "); j >= 0 {
		env = env[:j+1]
	}
	shown := map[string]bool{}
	for _, m := range regexp.MustCompile(`\*\*(GOMPI_[A-Z_]+)\*\*`).FindAllStringSubmatch(env, -1) {
		shown[m[1]] = true
	}
	known := map[string]bool{}
	for _, st := range settings {
		known[st.name] = true
		if st.def == "" || st.reader == "" || st.check == nil {
			t.Errorf("setting %s: default %q, reader %q: both must be given, and a check", st.name, st.def, st.reader)
		}
	}
	for _, n := range collNames {
		known[CollEnvPrefix+n] = true
	}
	for _, kv := range (&launch.Env{}).Vars() {
		name, _, _ := strings.Cut(kv, "=")
		known[name] = true
	}
	for name := range known {
		if !shown[name] {
			t.Errorf("%s is read by gompi but docs/gompirun.md, ENVIRONMENT, does not describe it", name)
		}
	}
	for name := range shown {
		if !known[name] {
			t.Errorf("docs/gompirun.md, ENVIRONMENT, describes %s, which gompi does not read", name)
		}
	}
}

// CheckSettingsIn judges the environment it is given, the last of
// duplicate names counting, as a process started with it would see it.
func TestCheckSettingsIn(t *testing.T) {
	if err := CheckSettingsIn([]string{"PATH=/bin", "GOMPI_SPIN=bogus", "GOMPI_SPIN=200"}); err != nil {
		t.Errorf("the last GOMPI_SPIN is good: %v", err)
	}
	if err := CheckSettingsIn([]string{"GOMPI_SPIN=200", "GOMPI_SPIN=bogus"}); err == nil || !strings.Contains(err.Error(), "GOMPI_SPIN") {
		t.Errorf("the last GOMPI_SPIN is bad: %v", err)
	}
	if err := CheckSettingsIn([]string{"GOMPI_NO_SUCH=1"}); err == nil || !strings.Contains(err.Error(), "unknown setting GOMPI_NO_SUCH") {
		t.Errorf("unknown name: %v", err)
	}
}
