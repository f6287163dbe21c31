package main

import (
	"strings"
	"testing"
)

// resultBlock is the tail of a kernel's output as npb-go prints it.
func resultBlock(seconds, verdict string) string {
	return "\n\n EP Benchmark Completed.\n Class           =                        S\n" +
		" Time in seconds =                     " + seconds + "\n" +
		" Total processes =                        2\n" +
		" Verification    =               " + verdict + "\n Version         =                    3.4.2\n"
}

func TestParseNPB(t *testing.T) {
	prediction := "gompi prediction: 2 ranks on machine tianhe1a, cpu-scale 1\n  predicted time   1.5 s\n"
	tests := []struct {
		name, out string
		want      float64
		err       string // substring of the error; "" for none
	}{
		{"real run", resultBlock("2.28", "SUCCESSFUL"), 2.28, ""},
		{"prediction report around it", "hello\n" + resultBlock("0.10", "SUCCESSFUL") + prediction, 0.10, ""},
		{"zero time", resultBlock("0.00", "SUCCESSFUL"), 0, ""},
		{"failed verification", resultBlock("1.00", "UNSUCCESSFUL"), 0, "Verification = UNSUCCESSFUL"},
		{"no result block", "gompirun: rank 1 failed: boom\n", 0, `no "Time in seconds"`},
		{"no verification", " Time in seconds =   1.00\n", 0, `no "Verification"`},
		{"not a number", resultBlock("abc", "SUCCESSFUL"), 0, "is not a time"},
		{"negative", resultBlock("-1.00", "SUCCESSFUL"), 0, "is not a time"},
		{"not finite", resultBlock("NaN", "SUCCESSFUL"), 0, "is not a time"},
		{"empty", "", 0, `no "Time in seconds"`},
	}
	for _, tc := range tests {
		got, err := parseNPB([]byte(tc.out))
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: error %v, want one saying %q", tc.name, err, tc.err)
		case tc.err == "" && got.Seconds != tc.want:
			t.Errorf("%s: %v s, want %v", tc.name, got.Seconds, tc.want)
		}
	}
}

func TestFailureLine(t *testing.T) {
	tests := []struct{ out, want string }{
		{"a\ngompirun: rank 1 failed: boom\nstack\n", "gompirun: rank 1 failed: boom"},
		{"a\nlast words\n\n", "last words"},
		{"", ""},
	}
	for _, tc := range tests {
		if got := failureLine([]byte(tc.out)); got != tc.want {
			t.Errorf("failureLine(%q) = %q, want %q", tc.out, got, tc.want)
		}
	}
}

// TestParseNPBMops: the Mop/s total line is read beside the time; a result
// block without one gives 0, and the run still counts.
func TestParseNPBMops(t *testing.T) {
	out := resultBlock("0.35", "SUCCESSFUL") + " Mop/s total     =                   241.63\n"
	got, err := parseNPB([]byte(out))
	if err != nil || got.Seconds != 0.35 || got.Mops != 241.63 {
		t.Errorf("got %+v, %v; want 0.35 s and 241.63 Mop/s", got, err)
	}
	got, err = parseNPB([]byte(resultBlock("0.35", "SUCCESSFUL")))
	if err != nil || got.Mops != 0 {
		t.Errorf("without a Mop/s line: %+v, %v; want Mop/s 0 and no error", got, err)
	}
}
