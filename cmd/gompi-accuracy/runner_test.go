package main

import (
	"bytes"
	"testing"
)

func TestTailBuffer(t *testing.T) {
	b := &tailBuffer{max: 4}
	for _, s := range []string{"abc", "defg", "hij"} {
		if n, err := b.Write([]byte(s)); n != len(s) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", s, n, err)
		}
	}
	if got := b.Bytes(); !bytes.HasSuffix([]byte("abcdefghij"), got) || len(got) < 4 || len(got) > 8 {
		t.Errorf("kept %q, want a tail of abcdefghij of 4 to 8 bytes", got)
	}
}
