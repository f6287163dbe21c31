package record

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sample writes a small rank file and returns its bytes and events.
func sample(t testing.TB) ([]byte, []Event) {
	var w Writer
	evs := []Event{
		{Op: 1, Args: []int64{0, 3, 7, 4096}},
		{Op: Burst, Args: []int64{int64(math.Float64bits(1.5e-6))}},
		{Op: 13, Args: []int64{2, -1, math.MinInt64, math.MaxInt64}},
		{Op: Elapse, Args: []int64{1000}},
		{Op: 6, Args: nil},
	}
	for _, e := range evs {
		w.Event(e.Op, e.Args)
	}
	w.Sensitive()
	path := filepath.Join(t.TempDir(), RankFile(2))
	if err := w.WriteFile(path, Header{Rank: 2, Ranks: 5, HostConcurrency: 3}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b, evs
}

func TestRoundTrip(t *testing.T) {
	b, evs := sample(t)
	s, err := Decode("r", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if s.Header != (Header{Rank: 2, Ranks: 5, HostConcurrency: 3}) || s.Sensitive != 1 || s.Len() != len(evs) {
		t.Fatalf("header %+v, sensitive %d, %d events", s.Header, s.Sensitive, s.Len())
	}
	for i, e := range evs {
		if s.Op(i) != e.Op || len(s.Args(i)) != len(e.Args) {
			t.Fatalf("event %d: %d %v, want %v", i, s.Op(i), s.Args(i), e)
		}
		for k := range e.Args {
			if s.Args(i)[k] != e.Args[k] {
				t.Fatalf("event %d: %v, want %v", i, s.Args(i), e.Args)
			}
		}
	}
	if BurstSeconds(s.Op(1), s.Args(1)[0]) != 1.5e-6 {
		t.Fatalf("burst %v", BurstSeconds(s.Op(1), s.Args(1)[0]))
	}
}

// TestTruncated: a file cut anywhere is an error naming the file and an
// offset, never a panic or a silently shorter record.
func TestTruncated(t *testing.T) {
	b, _ := sample(t)
	for n := 0; n < len(b); n++ {
		_, err := Decode("rank-00002.rec", bytes.NewReader(b[:n]))
		if err == nil {
			t.Fatalf("cut at %d of %d: no error", n, len(b))
		}
		if !strings.HasPrefix(err.Error(), "rank-00002.rec: offset ") {
			t.Fatalf("cut at %d: %v", n, err)
		}
	}
}

// TestCorrupt: flipped bytes are found (gzip's checksum, or the framing
// and trailer checks) with the file named.
func TestCorrupt(t *testing.T) {
	b, _ := sample(t)
	for i := range b {
		for _, mask := range []byte{0x01, 0x80, 0xff} {
			c := bytes.Clone(b)
			c[i] ^= mask
			_, err := Decode("f", bytes.NewReader(c))
			if err != nil && !strings.HasPrefix(err.Error(), "f: offset ") {
				t.Fatalf("byte %d ^%#x: %v", i, mask, err)
			}
			// Some flips in gzip's header fields (its time stamp,
			// extra flags, OS byte) change nothing that is checked.
		}
	}
	// The framing inside a valid gzip stream: a bad count, a huge
	// argument count, data after the trailer.
	for name, body := range map[string][]byte{
		"count":  append(header(), 0, 5, 0, 0),
		"huge":   append(header(), 7, 0xff, 0xff, 0xff, 0xff, 0x0f),
		"after":  append(header(), 0, 0, 0, 0, 9),
		"varint": append(header(), 7, 1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f),
		"rank":   {1, 5, 5, 1, 0, 0, 0},
		"format": {Version + 1, 0, 1, 1, 0, 0, 0},
		"zero":   {0, 0, 1, 1, 0, 0, 0},
	} {
		_, err := Decode("f", bytes.NewReader(wrap(body)))
		if err == nil || !strings.HasPrefix(err.Error(), "f: offset ") {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := Decode("f", strings.NewReader("GOMPIRE")); err == nil || !strings.Contains(err.Error(), "truncated") {
		t.Errorf("short magic: %v", err)
	}
	if _, err := Decode("f", strings.NewReader("not a record at all")); err == nil || !strings.Contains(err.Error(), "not a gompi record") {
		t.Errorf("no magic: %v", err)
	}
}

func header() []byte { return []byte{Recorded, 0, 1, 1} }

// wrap makes a rank file of a decompressed stream.
func wrap(body []byte) []byte {
	var b bytes.Buffer
	b.WriteString(Magic)
	z := gzip.NewWriter(&b)
	z.Write(body)
	z.Close()
	return b.Bytes()
}

func TestManifest(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "rec")
	m := Manifest{Format: Version, Gompi: "(devel)", Ranks: 4, CPUScale: 0.5, Machine: []byte(`{"name":"x"}`)}
	if err := WriteManifest(dir, m); err != nil {
		t.Fatal(err)
	}
	got, err := ReadManifest(dir)
	if err != nil || got.Ranks != 4 || got.CPUScale != 0.5 || !strings.Contains(string(got.Machine), `"x"`) {
		t.Fatalf("%+v %v", got, err)
	}
	if _, err := ReadManifest(t.TempDir()); err == nil {
		t.Fatal("no manifest: no error")
	}
	os.WriteFile(filepath.Join(dir, ManifestFile), []byte(`{"format":1,"ranks":0}`), 0o644)
	if _, err := ReadManifest(dir); err == nil {
		t.Fatal("0 ranks: no error")
	}
}

// FuzzRecordDecode: no input makes the decoder panic or allocate beyond
// what it has read; every failure names the file and an offset.
func FuzzRecordDecode(f *testing.F) {
	b, _ := sample(f)
	f.Add(b)
	f.Add(wrap(append(header(), 0, 0, 0, 0)))
	f.Add(wrap(append(header(), 7, 0xff, 0xff, 0xff, 0x0f)))
	f.Add([]byte(Magic))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Decode("f", bytes.NewReader(data))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f: offset ") {
				t.Fatalf("error without file and offset: %v", err)
			}
			return
		}
		for i := 0; i < s.Len(); i++ {
			_ = s.Args(i)
		}
	})
}

// FuzzRecordStream: the same on the decompressed stream, which the fuzzer
// reaches more easily than through gzip.
func FuzzRecordStream(f *testing.F) {
	f.Add(append(header(), 1, 2, 4, 6, 0, 1, 0, 0))
	f.Add(append(header(), 0, 0, 0, 0))
	f.Add(append(append([]byte{Version, 0, 1, 1}, scaleBytes(1e-3, 2e-3)...), BurstRef, 0, BurstRef, 0, 0, 3, 0, 0))
	f.Fuzz(func(t *testing.T, body []byte) {
		d, err := NewReader("f", bytes.NewReader(wrap(body)))
		if err != nil {
			return
		}
		for n := 0; ; n++ {
			e, err := d.Next()
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				if !strings.HasPrefix(err.Error(), "f: offset ") {
					t.Fatal(err)
				}
				return
			}
			if len(e.Args) > len(body) {
				t.Fatalf("%d arguments from %d bytes", len(e.Args), len(body))
			}
		}
	})
}
