package wireup

import (
	"testing"
	"time"

	"github.com/gompi/gompi/transport"
)

// TestSpinFor: the spin policy by case, and GOMPI_SPIN's two forms.
func TestSpinFor(t *testing.T) {
	checks := transport.Spin{Checks: transport.SpinIters}
	for _, c := range []struct {
		name                 string
		env                  string
		sleepAtOnce, virtual bool
		want                 transport.Spin
	}{
		{"real", "", false, false, transport.Spin{Checks: transport.SpinIters, For: spinTime}},
		{"virtual", "", false, true, checks},
		{"oversubscribed", "", true, false, transport.Spin{}},
		{"oversubscribed virtual", "", true, true, transport.Spin{}},
		{"count", "250", true, false, transport.Spin{Checks: 250}},
		{"zero", "0", false, false, transport.Spin{}},
		{"duration", "5ms", false, true, transport.Spin{For: 5 * time.Millisecond}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(SpinEnv, c.env)
			got, err := spinFor(c.sleepAtOnce, c.virtual)
			if err != nil || got != c.want {
				t.Fatalf("spinFor = %+v, %v; want %+v", got, err, c.want)
			}
		})
	}
	for _, bad := range []string{"-1", "lots", "-5ms", "1.5"} {
		t.Setenv(SpinEnv, bad)
		if _, err := spinFor(false, false); err == nil {
			t.Errorf("GOMPI_SPIN=%s accepted", bad)
		}
	}
}
