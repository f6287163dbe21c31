package mpi

import (
	"slices"
	"sync"

	"github.com/gompi/gompi/internal/launch"
	"github.com/gompi/gompi/vtime"
)

// What a process of a gompirun job tells while its ranks still run: the
// progress of a long virtual run (gompirun asks every few seconds), and
// the partial records of a job that fails, deadlocks, times out or is
// interrupted, so that gompirun can still print the report and write the
// trace of what happened up to then. Ranks are not stopped to be read:
// a finished rank's record is whole (it no longer changes once finished
// is set), an unfinished rank's is how far its clock got
// (vtime.Rank.Reached, read atomically), and traced events are copied
// under the tracer's lock.

// progressSample is the agent's answer to Order.Progress.
func (w *world) progressSample() launch.Sample {
	s := launch.Sample{Progressed: true, Ranks: len(w.ranks)}
	first := true
	for _, r := range w.ranks {
		c, ok := r.clock.(*virtualClock)
		if !ok {
			continue
		}
		s.Messages += c.sentPub.Load()
		if r.finished.Load() {
			s.Finished++
			continue
		}
		t := c.m.Reached()
		if first || t < s.Behind {
			s.Behind = t
		}
		first = false
		if t > s.Ahead {
			s.Ahead = t
		}
	}
	return s
}

// partialRecords is the records of this process's ranks so far: whole for
// the finished ones, the time reached (Finished false, no breakdown) for
// the others.
func (v *Virtual) partialRecords(w *world) []RankRecord {
	out := make([]RankRecord, 0, len(w.ranks))
	for _, r := range w.ranks {
		c, ok := r.clock.(*virtualClock)
		if !ok {
			continue
		}
		if r.finished.Load() {
			out = append(out, c.record())
			continue
		}
		out = append(out, RankRecord{RankResult: vtime.RankResult{Rank: r.id, End: c.m.Reached()}, EngineCounts: EngineCounts{Sent: c.sentPub.Load()}})
	}
	return out
}

// partialPublisher publishes a process's partial virtual records and trace
// once (a failing rank and gompirun's order may both ask).
type partialPublisher struct {
	once   sync.Once
	client *launch.Client
	proc   int
	w      *world
	virt   *Virtual
}

func (p *partialPublisher) publish() {
	if p == nil {
		return
	}
	p.once.Do(func() {
		if p.virt != nil {
			rs := p.virt.partialRecords(p.w)
			putRankRecords(p.client, p.proc, len(rs), slices.Values(rs))
		}
		if p.w.traced() {
			if rec, err := p.w.traceRecord(); err == nil {
				p.client.Put(launch.TraceKey(p.proc), string(rec))
			}
		}
	})
}

// noteSent publishes the rank's count of messages sent for progress
// samples, when it changed (virtualClock.LeaveEngine).
func (c *virtualClock) noteSent() {
	if r := c.r; r != nil && r.stats.sent != c.sentPub.Load() {
		c.sentPub.Store(r.stats.sent)
	}
}
