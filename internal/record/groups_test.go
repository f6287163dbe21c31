package record

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Group puts ranks with as many bursts and stretch sums within the
// tolerance with the first such leader, and no others.
func TestGroup(t *testing.T) {
	flat := func(n int, v float64) []float64 {
		b := make([]float64, n)
		for i := range b {
			b[i] = v
		}
		return b
	}
	noisy := flat(128, 1e-4)
	for i := range noisy {
		if i%2 == 0 {
			noisy[i] *= 1.3 // per burst noise; each stretch of two sums exactly
		} else {
			noisy[i] *= 0.7
		}
	}
	bursts := [][]float64{
		flat(128, 1e-4), // 0: a leader
		flat(128, 2e-4), // 1: twice the computation: a leader
		noisy,           // 2: 0's, burst by burst 30% off
		flat(127, 1e-4), // 3: other calls: a leader
		flat(128, 1.02e-4),
		flat(128, 1.2e-4), // 5: 20% more: a leader at 5%
	}
	got := Group(bursts, 0.05, DefaultStretches)
	want := []int{0, 1, 0, 3, 0, 5}
	for r := range want {
		if got[r] != want[r] {
			t.Fatalf("leaders %v, want %v", got, want)
		}
	}
	if got := Group(bursts, 0.25, DefaultStretches); got[5] != 0 {
		t.Errorf("at 25%% rank 5 leads itself: %v", got)
	}
}

// A manifest's leaders must each lead themselves and come no later than
// their members.
func TestManifestLeaders(t *testing.T) {
	dir := t.TempDir()
	m := Manifest{Format: Version, Ranks: 3, CPUScale: 1, Machine: json.RawMessage(`{}`)}
	for _, tc := range []struct {
		leaders []int
		ok      bool
	}{
		{[]int{0, 0, 2}, true},
		{[]int{0, 0}, false},
		{[]int{0, 2, 2}, false},
		{[]int{1, 1, 1}, false},
		{[]int{0, 0, 1}, false},
	} {
		m.Leaders = tc.leaders
		if err := WriteManifest(dir, m); err != nil {
			t.Fatal(err)
		}
		_, err := ReadManifest(dir)
		if (err == nil) != tc.ok || (err != nil && !strings.Contains(err.Error(), "leader")) {
			t.Errorf("leaders %v: %v", tc.leaders, err)
		}
	}
}

// Compact rewrites a member's bursts as references, keeps its other
// events and its own stretch sums (none where they are the leader's bit
// for bit); a bad tolerance or a missing record is an error.
func TestCompactRewrites(t *testing.T) {
	dir := t.TempDir()
	if err := WriteManifest(dir, Manifest{Format: Recorded, Ranks: 3, CPUScale: 1, Machine: json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
	for r, f := range []float64{1, 1.01, 1} {
		var w Writer
		w.Event(7, []int64{1, 2})
		w.Burst(1e-3 * f)
		w.Event(8, nil)
		w.Burst(2e-3 * f)
		w.Sensitive()
		w.Buffer(64)
		if err := w.WriteFile(filepath.Join(dir, RankFile(r)), Header{Rank: r, Ranks: 3, HostConcurrency: 1}); err != nil {
			t.Fatal(err)
		}
	}
	sum, err := Compact(dir, 0.05, DefaultStretches)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Groups != 1 || sum.Moved != 4 || sum.Leaders[1] != 0 || sum.Leaders[2] != 0 || sum.Sums != 2 {
		t.Fatalf("summary %+v", sum)
	}
	// Sums of whole nanoseconds are kept as such.
	for r, want := range [][]uint8{1: {BurstScaleNS, 7, BurstRef, 8, BurstRef}, 2: {7, BurstRef, 8, BurstRef}} {
		if want == nil {
			continue
		}
		s, err := ReadFile(filepath.Join(dir, RankFile(r)))
		if err != nil {
			t.Fatal(err)
		}
		if s.Len() != len(want) || s.Sensitive != 1 || s.MaxBytes != 64 || s.Rank != r {
			t.Fatalf("member %d: %d events, sensitive %d, max bytes %d, rank %d", r, s.Len(), s.Sensitive, s.MaxBytes, s.Rank)
		}
		for i, op := range want {
			if s.Op(i) != op {
				t.Errorf("member %d: event %d: op %d, want %d", r, i, s.Op(i), op)
			}
		}
		if r == 1 && (len(s.StretchSums) != 2 || s.StretchSums[0] != 1.01e-3 || s.StretchSums[1] != 2.02e-3) {
			t.Errorf("member 1's stretch sums %v, want its own [0.00101 0.00202]", s.StretchSums)
		}
		if r == 2 && s.StretchSums != nil {
			t.Errorf("member 2 computes as its leader; stretch sums %v kept", s.StretchSums)
		}
	}
	if m, err := ReadManifest(dir); err != nil || m.Format != Version {
		t.Errorf("compacted manifest: format %d, %v; want %d", m.Format, err, Version)
	}
	if lead, err := ReadFile(filepath.Join(dir, RankFile(0))); err != nil || lead.StretchSums != nil {
		t.Errorf("leader: stretch sums %v, %v; want none", lead.StretchSums, err)
	}
	if _, err := os.Stat(filepath.Join(dir, RankFile(1)) + ".tmp"); err == nil {
		t.Error("a temporary file is left")
	}
	if _, err := Compact(t.TempDir(), 0, DefaultStretches); err == nil {
		t.Error("compacted a directory that is no record")
	}
	if _, err := Compact(dir, -1, DefaultStretches); err == nil {
		t.Error("a negative tolerance")
	}
	for _, n := range []int{0, -1, MaxStretches + 1} {
		if _, err := Compact(dir, 0, n); err == nil || !strings.Contains(err.Error(), "stretches") {
			t.Errorf("%d stretches: %v", n, err)
		}
	}
}

// stretchSums is v summed over the stretches of a profile (burst i in
// stretch i*n/len(v)), computed here apart from profile.
func stretchSums(v []float64) []float64 {
	n := min(64, len(v))
	s := make([]float64, n)
	for i, x := range v {
		s[i*n/len(v)] += x
	}
	return s
}

// A member's bursts in a replay are its leader's, scaled per stretch to
// the member's own stretch sums: each stretch, and the total, is the
// member's to rounding; the shape inside a stretch is the leader's; a
// stretch where the leader computed nothing gets the member's sum spread
// evenly; sums equal to the leader's give the leader's bursts bit for bit.
func TestMemberBurstsKeepOwnStretchSums(t *testing.T) {
	for _, nb := range []int{1, 5, 64, 100, 1000} {
		lead := make([]float64, nb)
		own := make([]float64, nb)
		for i := range lead {
			lead[i] = 1e-5 * float64(1+i%7)
			own[i] = lead[i] * (1.03 + 0.01*float64(i%3)) // noise on top of the shape
		}
		if nb > 10 {
			for i := 0; i < nb/64+1; i++ {
				lead[i] = 0 // the leader computes nothing in its first stretch
			}
		}
		sums := stretchSums(own)
		got, err := MemberBursts(lead, sums)
		if err != nil {
			t.Fatal(err)
		}
		gs := stretchSums(got)
		var total, want float64
		for k := range sums {
			if math.Abs(gs[k]-sums[k]) > 1e-9*sums[k] {
				t.Fatalf("%d bursts: stretch %d computes %v, the member %v", nb, k, gs[k], sums[k])
			}
			total += gs[k]
			want += sums[k]
		}
		if math.Abs(total-want) > 1e-9*want {
			t.Fatalf("%d bursts: total %v, the member's %v", nb, total, want)
		}
		if nb > 64 && got[0] != got[1] {
			t.Errorf("%d bursts: a stretch the leader did not compute in is not spread evenly: %v", nb, got[:nb/64+1])
		}
		same, err := MemberBursts(lead, stretchSums(lead))
		if err != nil {
			t.Fatal(err)
		}
		for i := range lead {
			if same[i] != lead[i] {
				t.Fatalf("%d bursts: burst %d is %v with the leader's own sums, the leader's %v", nb, i, same[i], lead[i])
			}
		}
	}
	for _, n := range []int{0, 101} {
		if _, err := MemberBursts(make([]float64, 100), make([]float64, n)); err == nil {
			t.Errorf("%d stretch sums for 100 bursts: no error", n)
		}
	}
}

// scaleBytes is a BurstScale event's bytes as the stream frames it.
func scaleBytes(vals ...float64) []byte {
	b := []byte{BurstScale}
	b = binary.AppendUvarint(b, uint64(len(vals)))
	for _, v := range vals {
		b = binary.AppendVarint(b, int64(math.Float64bits(v)))
	}
	return b
}

// Corrupt stretch sums are an error naming the file and the offset of
// their event, never a panic: not finite or negative seconds, none, more
// than the member's burst references, a second event, stretch sums in a
// format version 1 file. (Fewer than the references is any number of
// stretches: -compact -stretches.)
func TestCorruptStretchSums(t *testing.T) {
	v2 := []byte{Version, 0, 1, 1}
	ref := []byte{BurstRef, 0}
	body := func(hd []byte, evs ...[]byte) []byte {
		b := bytes.Clone(hd)
		for _, e := range evs {
			b = append(b, e...)
		}
		return append(b, 0, byte(len(evs)), 0, 0)
	}
	ok := body(v2, scaleBytes(1e-3, 2e-3), ref, ref)
	s, err := Decode("f", bytes.NewReader(wrap(ok)))
	if err != nil || len(s.StretchSums) != 2 || s.StretchSums[1] != 2e-3 {
		t.Fatalf("valid stretch sums: %v, %v", s, err)
	}
	if s, err := Decode("f", bytes.NewReader(wrap(body(v2, scaleBytes(1e-3), ref, ref)))); err != nil || len(s.StretchSums) != 1 {
		t.Fatalf("one stretch for two references: %v, %v", s, err)
	}
	for name, tc := range map[string]struct {
		body []byte
		off  int
	}{
		"nan":      {body(v2, scaleBytes(math.NaN(), 1), ref, ref), 4},
		"negative": {body(v2, ref, scaleBytes(1, -1e-3), ref), 6},
		"infinite": {body(v2, scaleBytes(math.Inf(1), 1), ref, ref), 4},
		"none":     {body(v2, scaleBytes(), ref), 4},
		"65":       {body(v2, scaleBytes(make([]float64, 65)...)), 4},
		"many":     {body(v2, scaleBytes(1, 2, 3), ref, ref), 4},
		"second":   {body(v2, scaleBytes(1, 2), ref, ref, scaleBytes(1, 2)), 4 + len(scaleBytes(1, 2)) + 4},
		"version1": {body(header(), scaleBytes(1, 2), ref, ref), 4},
		"ns":       {body(v2, nsBytes(5, -3), ref, ref), 4},
		"ns count": {body(v2, ref, nsBytes(5, 3, 4)), 6},
	} {
		_, err := Decode("rank-00001.rec", bytes.NewReader(wrap(tc.body)))
		want := "rank-00001.rec: offset " + itoa(tc.off) + ": "
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: %v; want an error starting %q", name, err, want)
		}
	}
}

// nsBytes is a BurstScaleNS event's bytes.
func nsBytes(ns ...int64) []byte {
	b := []byte{BurstScaleNS}
	b = binary.AppendUvarint(b, uint64(len(ns)))
	for _, v := range ns {
		b = binary.AppendVarint(b, v)
	}
	return b
}

// Stretch sums of whole nanoseconds (to 1e-12) are written as
// nanoseconds and read back to within 1e-12; others as float64 bits, read
// back exactly.
func TestStretchSumsEncoding(t *testing.T) {
	ns := []float64{0, 1e-9, 2.5e-3 + 1e-15, 0.1 + 0.2, 3}
	other := []float64{1e-3, 1.1e-10, 2}
	for _, tc := range []struct {
		sums []float64
		op   uint8
	}{{ns, BurstScaleNS}, {other, BurstScale}} {
		e := scaleEvent(tc.sums)
		if e.Op != tc.op {
			t.Errorf("%v: op %d, want %d", tc.sums, e.Op, tc.op)
		}
		var w Writer
		w.Event(e.Op, e.Args)
		for range tc.sums {
			w.Event(BurstRef, nil)
		}
		path := filepath.Join(t.TempDir(), RankFile(0))
		if err := w.WriteFile(path, Header{Rank: 0, Ranks: 1, HostConcurrency: 1}); err != nil {
			t.Fatal(err)
		}
		s, err := ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range tc.sums {
			if g := s.StretchSums[i]; (tc.op == BurstScale && g != v) || math.Abs(g-v) > 1e-12*v {
				t.Errorf("sum %v read back as %v", v, g)
			}
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestMemberBurstsAnyStretches: with any number of stretches from one to
// a burst each, a member replays its own computation per stretch, and
// with a burst a stretch its own bursts exactly (to rounding).
func TestMemberBurstsAnyStretches(t *testing.T) {
	lead, own := make([]float64, 1000), make([]float64, 1000)
	for i := range lead {
		lead[i] = 1e-6 * float64(1+i%7)
		own[i] = lead[i] * (1 + 0.1*math.Sin(float64(i)))
	}
	for _, m := range []int{1, 7, 64, 333, 1000} {
		sums := profile(own, m)
		if len(sums) != m {
			t.Fatalf("%d stretches: profile of %d", m, len(sums))
		}
		got, err := MemberBursts(lead, sums)
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range profile(got, m) {
			if math.Abs(v-sums[k]) > 1e-12*sums[k] {
				t.Fatalf("%d stretches: stretch %d replays %v, recorded %v", m, k, v, sums[k])
			}
		}
		if m == len(own) {
			for i := range own {
				if math.Abs(got[i]-own[i]) > 1e-12*own[i] {
					t.Fatalf("a burst a stretch: burst %d replays %v, recorded %v", i, got[i], own[i])
				}
			}
		}
	}
}
