package wireup

import (
	"testing"
	"time"

	"github.com/gompi/gompi/transport"
)

// TestSpinFor: the spin policy by case, and GOMPI_SPIN's two forms.
func TestSpinFor(t *testing.T) {
	checks := transport.Spin{Checks: transport.SpinIters}
	long := transport.Spin{Checks: transport.SpinIters, For: spinTime}
	counted := long
	counted.Counted = true
	for _, c := range []struct {
		name                          string
		env                           string
		sleepAtOnce, virtual, crowded bool
		want                          transport.Spin
	}{
		{"real", "", false, false, false, long},
		{"virtual", "", false, true, false, counted},
		{"virtual crowded", "", false, true, true, checks},
		{"oversubscribed", "", true, false, false, transport.Spin{}},
		{"oversubscribed virtual", "", true, true, true, transport.Spin{}},
		{"count", "250", true, false, false, transport.Spin{Checks: 250}},
		{"zero", "0", false, false, false, transport.Spin{}},
		{"duration", "5ms", false, false, false, transport.Spin{For: 5 * time.Millisecond}},
		{"duration virtual", "5ms", false, true, false, transport.Spin{For: 5 * time.Millisecond, Counted: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(SpinEnv, c.env)
			got, err := spinFor(c.sleepAtOnce, c.virtual, c.crowded)
			if err != nil || got != c.want {
				t.Fatalf("spinFor = %+v, %v; want %+v", got, err, c.want)
			}
		})
	}
	for _, bad := range []string{"-1", "lots", "-5ms", "1.5"} {
		t.Setenv(SpinEnv, bad)
		if _, err := spinFor(false, false, false); err == nil {
			t.Errorf("GOMPI_SPIN=%s accepted", bad)
		}
	}
}
