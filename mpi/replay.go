package mpi

import (
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gompi/gompi/internal/record"
	"github.com/gompi/gompi/vtime"
)

// Replay (gompirun -replay DIR): a virtual world whose ranks re-issue the
// calls their record holds (record.go) with payload-free buffers, through
// the same engine and the same collective algorithms, and whose
// computation is the recorded bursts (times the CPU scale) and Elapse
// calls. On the recording's machine, at its CPU scale, the prediction is
// the recording's, bit for bit; on another machine it is that machine's
// prediction of the same call sequence.
//
// Calls whose outcome depended on timing replay what the recording saw:
// an AnySource receive or Probe is posted from the source it matched, and
// the program's control flow after an Iprobe, Test or Waitany is the
// recorded one (the replay re-issues the call for its cost and ignores its
// answer). On another machine the program itself might have taken another
// path; TimingDependent counts these calls so that reports can say so.

// Recording is a record directory opened for replay.
type Recording struct {
	dir       string
	man       record.Manifest
	machine   *vtime.Machine
	sensitive atomic.Int64
}

// OpenRecording opens the record in dir (Virtual.Record, gompirun
// -record) and checks its manifest. Rank files are read by Replay.
func OpenRecording(dir string) (*Recording, error) {
	m, err := record.ReadManifest(dir)
	if err != nil {
		return nil, err
	}
	mach, err := vtime.ParseMachine(m.Machine)
	if err != nil {
		return nil, fmt.Errorf("%s: machine: %v", filepath.Join(dir, record.ManifestFile), err)
	}
	return &Recording{dir: dir, man: m, machine: mach}, nil
}

var errNilRecording = errors.New("mpi: nil Recording (open one with OpenRecording)")

// Machine is the machine the record was predicted on (nil for a nil
// Recording).
func (rec *Recording) Machine() *vtime.Machine {
	if rec == nil {
		return nil
	}
	m := *rec.machine
	return &m
}

// Ranks is the recorded job's size (0 for a nil Recording).
func (rec *Recording) Ranks() int {
	if rec == nil {
		return 0
	}
	return rec.man.Ranks
}

// CPUScale is the recording's CPU scale (0 for a nil Recording).
func (rec *Recording) CPUScale() float64 {
	if rec == nil {
		return 0
	}
	return rec.man.CPUScale
}

// TimingDependent is the number of recorded calls whose outcome depended
// on timing (AnySource receives and probes, Iprobe, the Test family,
// Waitany, Waitsome), counted by the last Replay: the replay follows
// their recorded outcomes.
func (rec *Recording) TimingDependent() int64 {
	if rec == nil {
		return 0
	}
	return rec.sensitive.Load()
}

// Replay predicts the recorded program on machine m (nil: the recording's
// machine) at cpuScale, which multiplies the recorded computation bursts
// (pass CPUScale() to reproduce the recording). The returned Virtual holds
// the prediction (Results, Report).
func (rec *Recording) Replay(m *vtime.Machine, cpuScale float64) (*Virtual, error) {
	if rec == nil {
		return nil, errNilRecording
	}
	if m == nil {
		m = rec.machine
	}
	p := rec.man.Ranks
	streams, err := rec.load()
	if err != nil {
		return nil, err
	}
	var sens int64
	for _, s := range streams {
		sens += s.Sensitive
	}
	rec.sensitive.Store(sens)
	v, err := NewVirtual(m, p, cpuScale)
	if err != nil {
		return nil, err
	}
	// Computation is the recorded bursts, met in the order the clock asks
	// for them (the same calls ask at the same points), with each rank's
	// recorded host concurrency for the contention factor.
	v.rankConcurrency = func(id int) int { return streams[id].HostConcurrency }
	// In a compacted record a member's BurstRef is its leader's next
	// burst scaled to the member's own stretch sums (record.Compact,
	// record.MemberBursts).
	lead, err := rec.memberBursts(streams)
	if err != nil {
		return nil, err
	}
	if cpuScale > 0 {
		v.newMeter = func(id int) vtime.Meter { return &scriptMeter{s: streams[id], lead: lead[id]} }
	}
	err = v.Run(func(c *Comm) error {
		pl := &player{world: c, s: streams[c.Rank()], name: rec.rankPath(c.Rank())}
		return pl.play()
	})
	return v, err
}

// memberBursts is, for each member of a compacted record, the bursts its
// BurstRefs stand for: its leader's, scaled to its stretch sums where its
// file has them (format version 2), as they are otherwise (a record
// compacted before). A member must refer to as many bursts as its leader
// has.
func (rec *Recording) memberBursts(streams []*record.Stream) ([][]float64, error) {
	lead := make([][]float64, len(streams))
	for r, l := range rec.man.Leaders {
		if l == r {
			continue
		}
		if lead[l] == nil {
			lead[l] = streams[l].Bursts()
		}
		refs := 0
		for i := 0; i < streams[r].Len(); i++ {
			if streams[r].Op(i) == record.BurstRef {
				refs++
			}
		}
		if refs != len(lead[l]) {
			return nil, fmt.Errorf("%s: %d burst references, and its leader's file %s holds %d bursts", rec.rankPath(r), refs, rec.rankPath(l), len(lead[l]))
		}
		if sums := streams[r].StretchSums; sums == nil {
			lead[r] = lead[l]
		} else if b, err := record.MemberBursts(lead[l], sums); err != nil {
			return nil, fmt.Errorf("%s: %v", rec.rankPath(r), err)
		} else {
			lead[r] = b
		}
	}
	return lead, nil
}

func (rec *Recording) rankPath(r int) string { return filepath.Join(rec.dir, record.RankFile(r)) }

// load decodes every rank's file, a few at a time.
func (rec *Recording) load() ([]*record.Stream, error) {
	p := rec.man.Ranks
	streams := make([]*record.Stream, p)
	errs := make([]error, p)
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < min(p, runtime.GOMAXPROCS(0)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < p; i = int(next.Add(1) - 1) {
				path := rec.rankPath(i)
				s, err := record.ReadFile(path)
				if err == nil && (s.Rank != i || s.Ranks != p) {
					err = fmt.Errorf("%s: offset 0: header says rank %d of %d, the manifest rank %d of %d", path, s.Rank, s.Ranks, i, p)
				}
				streams[i], errs[i] = s, err
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return streams, nil
}

// scriptMeter is a rank's meter in a replay: each burst is the next one
// the record holds (burstTap recorded them).
type scriptMeter struct {
	s    *record.Stream
	next int // the next event to look at for a burst
	on   bool
	lead []float64 // what BurstRef stands for in a compacted record (memberBursts)
	led  int       // the next of them
}

func (m *scriptMeter) Begin() { m.on = true }

func (m *scriptMeter) End() float64 {
	if !m.on {
		return 0 // an activity's start inside the engine: no burst (burstTap)
	}
	m.on = false
	for ; m.next < m.s.Len(); m.next++ {
		if op := m.s.Op(m.next); op == record.Burst || op == record.BurstNS {
			a := m.s.Args(m.next)
			m.next++
			if len(a) == 1 {
				return record.BurstSeconds(op, a[0])
			}
			return 0
		}
		if m.s.Op(m.next) == record.BurstRef {
			m.next++
			if m.led < len(m.lead) {
				m.led++
				return m.lead[m.led-1]
			}
			return 0
		}
	}
	return 0
}

func (m *scriptMeter) Peek() float64    { return 0 }
func (m *scriptMeter) Abandon()         {}
func (m *scriptMeter) Running() float64 { return 0 }

// durationOf is a recorded Elapse's duration (nanoseconds).
func durationOf(ns int64) time.Duration { return time.Duration(ns) }
