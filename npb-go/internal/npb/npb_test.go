package npb

import (
	"bytes"
	"io"
	"math/big"
	"strings"
	"testing"

	"github.com/gompi/gompi/mpi"
)

// The seeds below are the NPB sequence's published behaviour: x_{k+1} =
// 5^13 x_k mod 2^46 from 314159265, checked against exact integer arithmetic.
func TestRandlcMatchesIntegerLCG(t *testing.T) {
	const a = 1220703125.0 // 5^13
	x := 314159265.0
	xi := uint64(314159265)
	for k := 0; k < 10000; k++ {
		r := Randlc(&x, a)
		xi = (xi * 1220703125) & (1<<46 - 1)
		if uint64(x) != xi || x != float64(xi) {
			t.Fatalf("step %d: randlc seed %v, want %d", k, x, xi)
		}
		if r != float64(xi)/(1<<46) {
			t.Fatalf("step %d: value %v, want %v", k, r, float64(xi)/(1<<46))
		}
	}
}

// Pow46 and SkipAhead agree with an exact big-integer power and with
// stepping the sequence one multiplication at a time.
func TestPow46AndSkipAhead(t *testing.T) {
	const a, seed = 1220703125.0, 314159265.0
	mod := new(big.Int).Lsh(big.NewInt(1), 46)
	for _, n := range []int64{0, 1, 2, 3, 7, 64, 1000, 1<<20 + 3, 1 << 40} {
		want := new(big.Int).Exp(big.NewInt(int64(a)), big.NewInt(n), mod)
		if got := Pow46(a, n); got != float64(want.Int64()) {
			t.Errorf("Pow46(a, %d) = %v, want %v", n, got, want)
		}
	}
	x := seed
	for n := int64(0); n < 300; n++ {
		if got := SkipAhead(seed, a, n); got != x {
			t.Fatalf("SkipAhead(%d) = %v, stepping gives %v", n, got, x)
		}
		Randlc(&x, a)
	}
}

func TestVranlcEqualsRandlc(t *testing.T) {
	const a = 1220703125.0
	x1, x2 := 271828183.0, 271828183.0
	y := make([]float64, 1000)
	Vranlc(len(y), &x1, a, y)
	for i, v := range y {
		if w := Randlc(&x2, a); v != w {
			t.Fatalf("y[%d] = %v, randlc %v", i, v, w)
		}
	}
	if x1 != x2 {
		t.Fatalf("final seed %v != %v", x1, x2)
	}
}

func TestParseFlags(t *testing.T) {
	f, err := ParseFlags("ep", nil)
	if err != nil || f.Class != 'S' {
		t.Fatalf("default: %v %v", f, err)
	}
	f, err = ParseFlags("ep", []string{"-class", "b"})
	if err != nil || f.Class != 'B' {
		t.Fatalf("-class b: %c %v", f.Class, err)
	}
	for _, bad := range [][]string{{"-class", "Q"}, {"-class", "AB"}, {"-nope"}, {"extra"}} {
		if _, err := ParseFlags("ep", bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

type fakeClock struct{ t float64 }

func (c *fakeClock) Wtime() float64 { return c.t }

func TestTimers(t *testing.T) {
	c := &fakeClock{}
	tm := NewTimers(c, 2)
	c.t = 1
	tm.Start(1)
	c.t = 3.5
	tm.Stop(1)
	tm.Start(1)
	c.t = 4
	tm.Stop(1)
	if got := tm.Read(1); got != 3 {
		t.Fatalf("timer 1 = %v, want 3", got)
	}
	tm.Clear(1)
	if tm.Read(1) != 0 || tm.Read(0) != 0 {
		t.Fatal("clear")
	}
}

func TestPrint(t *testing.T) {
	var b bytes.Buffer
	r := Results{Name: "EP", Class: 'S', N1: 25, Seconds: 1.234, Procs: 2, ActiveProc: 2,
		Mops: 10, OpType: "Random numbers generated", Verified: true}
	if err := r.Print(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		" EP Benchmark Completed.\n",
		" Class           =                        S\n",
		" Size            =                 33554432\n",
		" Time in seconds =                     1.23\n",
		" Mop/s/process   =                     5.00\n",
		" Verification    =               SUCCESSFUL\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	r.Name, r.N1, r.N2, r.N3, r.Verified = "MG", 32, 32, 32, false
	b.Reset()
	r.Print(&b)
	if !strings.Contains(b.String(), " Size            =             32x  32x  32\n") ||
		!strings.Contains(b.String(), "UNSUCCESSFUL") {
		t.Errorf("grid/unsuccessful block:\n%s", b.String())
	}
}

func TestFortranE(t *testing.T) {
	for _, c := range []struct {
		v    float64
		w, d int
		want string
	}{
		{8.5971775078648, 20, 13, " 0.8597177507865E+01"},
		{-0.00123, 12, 3, "  -0.123E-02"},
		{0, 10, 3, " 0.000E+00"},
		{9.9996, 10, 3, " 0.100E+02"},
	} {
		if got := FortranE(c.v, c.w, c.d); got != c.want {
			t.Errorf("FortranE(%v,%d,%d) = %q, want %q", c.v, c.w, c.d, got, c.want)
		}
	}
}

func TestVranlcI8EqualsVranlc(t *testing.T) {
	const a = 1220703125.0
	x1, x2 := 314159265.0, 314159265.0
	y1 := make([]float64, 100000)
	y2 := make([]float64, len(y1))
	Vranlc(len(y1), &x1, a, y1)
	VranlcI8(len(y2), &x2, a, y2)
	for i := range y1 {
		if y1[i] != y2[i] {
			t.Fatalf("y[%d]: %v != %v", i, y1[i], y2[i])
		}
	}
	if x1 != x2 {
		t.Fatalf("final seed %v != %v", x1, x2)
	}
}

func TestTimerFlag(t *testing.T) {
	for v, want := range map[string]bool{"": true, "1": true, "on": true, "TRUE": true, "0": false, "off": false} {
		t.Setenv("NPB_TIMER_FLAG", v)
		if got := TimerFlagSet(); got != want {
			t.Errorf("NPB_TIMER_FLAG=%q: %v, want %v", v, got, want)
		}
	}
}

func TestReportTimers(t *testing.T) {
	var out bytes.Buffer
	err := mpi.Run(2, func(c *mpi.Comm) error {
		w := io.Discard
		if c.Rank() == 0 {
			w = &out
		}
		// Rank r spent r+1 seconds in phase 0.
		return ReportTimers(c, []float64{float64(c.Rank() + 1), 0}, []string{"total", "comm"}, w)
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := " timer  1(total   ) :      1.0000      2.0000      1.5000\n"; !strings.Contains(out.String(), want) {
		t.Fatalf("missing %q in\n%s", want, out.String())
	}
}
