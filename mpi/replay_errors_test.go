package mpi

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gompi/gompi/internal/record"
	"github.com/gompi/gompi/vtime"
)

// TestReplayCorruptRecord: a truncated or corrupted rank file makes
// Replay fail with the file and the offset named, before anything runs.
func TestReplayCorruptRecord(t *testing.T) {
	_, dir := recordRun(t, "xsim-ethernet", 3, 0, replayProgram)
	path := filepath.Join(dir, record.RankFile(1))
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, cut := range []int{0, 5, len(record.Magic) + 3, len(b) / 2, len(b) - 1} {
		if err := os.WriteFile(path, b[:cut], 0o644); err != nil {
			t.Fatal(err)
		}
		rec, err := OpenRecording(dir)
		if err != nil {
			t.Fatal(err)
		}
		_, err = rec.Replay(nil, 0)
		if err == nil || !strings.Contains(err.Error(), path+": offset ") {
			t.Fatalf("cut at %d of %d: %v", cut, len(b), err)
		}
	}
	os.Remove(path)
	if _, err := mustOpen(t, dir).Replay(nil, 0); err == nil || !strings.Contains(err.Error(), record.RankFile(1)) {
		t.Fatalf("missing file: %v", err)
	}
	// Another rank's file in its place.
	other, _ := os.ReadFile(filepath.Join(dir, record.RankFile(2)))
	os.WriteFile(path, other, 0o644)
	if _, err := mustOpen(t, dir).Replay(nil, 0); err == nil || !strings.Contains(err.Error(), "header says rank 2") {
		t.Fatalf("swapped file: %v", err)
	}
	os.WriteFile(filepath.Join(dir, record.ManifestFile), []byte("{"), 0o644)
	if _, err := OpenRecording(dir); err == nil || !strings.Contains(err.Error(), record.ManifestFile) {
		t.Fatalf("bad manifest: %v", err)
	}
}

func mustOpen(t *testing.T, dir string) *Recording {
	t.Helper()
	rec, err := OpenRecording(dir)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// writeRecord makes a one-rank record of the given events.
func writeRecord(t testing.TB, dir string, maxBytes int64, evs ...record.Event) *Recording {
	m, _ := vtime.Preset("xsim-ethernet")
	if err := record.WriteManifest(dir, record.Manifest{Format: record.Version, Ranks: 1, Machine: m.JSON()}); err != nil {
		t.Fatal(err)
	}
	var w record.Writer
	for _, e := range evs {
		w.Event(e.Op, e.Args)
	}
	w.Buffer(maxBytes)
	if err := w.WriteFile(filepath.Join(dir, record.RankFile(0)), record.Header{Rank: 0, Ranks: 1, HostConcurrency: 1}); err != nil {
		t.Fatal(err)
	}
	rec, err := OpenRecording(dir)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// TestReplayBadEvents: events that decode but do not make sense (too few
// arguments, unknown ops, communicators or element types, sizes beyond the
// record's largest buffer, a receive nobody sends) are errors naming the
// file and the event, never a panic or a hang.
func TestReplayBadEvents(t *testing.T) {
	ev := func(op callOp, args ...int64) record.Event { return record.Event{Op: uint8(op), Args: args} }
	for name, e := range map[string]record.Event{
		"unknown op":     {Op: 200, Args: []int64{0, 0, 0}},
		"op 0 of a call": {Op: uint8(callUnknown), Args: []int64{0, 0, 0}},
		"few args":       ev(callSend, 0, 0),
		"no comm":        ev(callBarrier, 4, 0, 0),
		"too big":        ev(callBcast, 0, 0, 0, 1<<20),
		"negative":       ev(callBcast, 0, 0, 0, -1),
		"kind":           ev(callAllreduce, 0, 0, 0, 99, int64(opSum), 1, 0, 0, 1),
		"list":           ev(callWaitall, 1000, 1),
		"wait two":       ev(callWait, 2, 0, 0, 0),
		"members":        ev(callCreate, 0, 0, 0, 1, 5, -1),
		"huge rank":      ev(callSend, 0, 1<<40, 0, 8),
		"self recv":      ev(callRecv, 0, 0, 0, 8, 0, 0),
		"free world":     {Op: record.Free, Args: []int64{0}},
		"loc reduce":     ev(callScan, 0, 0, 0, int64(kindOf[float64]()), int64(opMaxLoc), 1, 0, 1, 1),
	} {
		rec := writeRecord(t, t.TempDir(), 64, e)
		_, err := rec.Replay(nil, 0)
		if err == nil {
			t.Errorf("%s: no error", name)
			continue
		}
		if !strings.Contains(err.Error(), record.RankFile(0)) && !strings.Contains(err.Error(), "deadlock") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// FuzzReplayEvents: any decodable stream of events replays to a
// prediction or an error on a 1-rank world; none panics or hangs.
func FuzzReplayEvents(f *testing.F) {
	f.Add([]byte{byte(callBarrier), 3, 0, 0, 0})
	f.Add([]byte{byte(callIsend), 5, 0, 0, 0, 16, 2, byte(callIrecv), 5, 0, 0, 0, 16, 4, byte(callWaitall), 3, 4, 2, 4})
	f.Add([]byte{byte(callAllreduce), 9, 0, 0, 0, 28, 2, 1, 0, 0, 4})
	f.Add([]byte{byte(callSplit), 6, 0, 0, 0, 2, 0, 4, byte(callBarrier), 3, 4, 0, 0})
	f.Add([]byte{record.BurstScale, 1, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0xa0, 0x7f, record.BurstRef, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		// data is a sequence of events as the record frames them:
		// op, count, zigzag varints.
		var evs []record.Event
		for len(data) > 0 && len(evs) < 16 {
			op := data[0]
			n, k := binary.Uvarint(data[1:])
			if k <= 0 || n > 16 || op == 0 {
				break
			}
			data = data[1+k:]
			e := record.Event{Op: op}
			for i := uint64(0); i < n; i++ {
				v, k := binary.Varint(data)
				if k <= 0 {
					break
				}
				data = data[k:]
				e.Args = append(e.Args, v)
			}
			evs = append(evs, e)
		}
		rec := writeRecord(t, t.TempDir(), 256, evs...)
		rec.Replay(nil, 0)
	})
}

// TestReplayCorruptStretchSums: in a compacted record, a member's corrupt
// stretch sums, or burst references that do not match its leader's
// bursts, make Replay fail naming the file (and the offset, for what the
// file itself holds), never panic; a member without stretch sums (a
// record compacted before format version 2) takes its leader's bursts.
func TestReplayCorruptStretchSums(t *testing.T) {
	m, _ := vtime.Preset("xsim-ethernet")
	write := func(t *testing.T, format int, member ...record.Event) string {
		dir := t.TempDir()
		if err := record.WriteManifest(dir, record.Manifest{Format: format, Ranks: 2, CPUScale: 1, Machine: m.JSON(), Leaders: []int{0, 0}}); err != nil {
			t.Fatal(err)
		}
		barrier := []int64{0, 0, 0}
		var w record.Writer
		w.Burst(1e-3)
		w.Event(uint8(callBarrier), barrier)
		w.Burst(2e-3)
		w.Event(uint8(callBarrier), barrier)
		if err := w.WriteFile(filepath.Join(dir, record.RankFile(0)), record.Header{Rank: 0, Ranks: 2, HostConcurrency: 1}); err != nil {
			t.Fatal(err)
		}
		var mw record.Writer
		for _, e := range member {
			mw.Event(e.Op, e.Args)
			if e.Op == record.BurstRef {
				mw.Event(uint8(callBarrier), barrier)
			}
		}
		if err := mw.WriteFile(filepath.Join(dir, record.RankFile(1)), record.Header{Rank: 1, Ranks: 2, HostConcurrency: 1}); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	bits := func(vs ...float64) []int64 {
		var a []int64
		for _, v := range vs {
			a = append(a, int64(math.Float64bits(v)))
		}
		return a
	}
	ref := record.Event{Op: record.BurstRef}
	for name, tc := range map[string]struct {
		member []record.Event
		want   string
	}{
		"nan":      {[]record.Event{{Op: record.BurstScale, Args: bits(math.NaN(), 1)}, ref, ref}, "rank-00001.rec: offset 4: stretch sum 0"},
		"negative": {[]record.Event{ref, {Op: record.BurstScale, Args: bits(1, -1)}, ref}, "rank-00001.rec: offset 11: stretch sum 1"},
		"count":    {[]record.Event{{Op: record.BurstScale, Args: bits(1, 2, 3)}, ref, ref}, "rank-00001.rec: offset 4: 3 stretch sums for 2 burst references"},
		"refs":     {[]record.Event{ref, ref, ref}, "rank-00001.rec: 3 burst references, and its leader's file"},
	} {
		_, err := mustOpen(t, write(t, record.Version, tc.member...)).Replay(nil, 1)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want %q", name, err, tc.want)
		}
	}
	// A member compacted by a gompi before format version 2 computes as
	// its leader.
	v, err := mustOpen(t, write(t, record.Recorded, ref, ref)).Replay(nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	if r := v.Results(); r[1].Computation != r[0].Computation || r[0].Computation == 0 {
		t.Errorf("member without stretch sums computes %v s, its leader %v s", r[1].Computation, r[0].Computation)
	}
	// One with its own sums computes them.
	v, err = mustOpen(t, write(t, record.Version, record.Event{Op: record.BurstScale, Args: bits(3e-3, 5e-3)}, ref, ref)).Replay(nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	if r := v.Results(); math.Abs(r[1].Computation-8e-3) > 1e-12 || math.Abs(r[0].Computation-3e-3) > 1e-12 {
		t.Errorf("member with stretch sums 3 ms and 5 ms computes %v s, its leader (1 ms and 2 ms) %v s", r[1].Computation, r[0].Computation)
	}
}
