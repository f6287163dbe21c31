package mpi

import (
	"fmt"
	"io"
	"sort"

	"github.com/gompi/gompi/vtime"
)

// RankRecord is one rank's record of a virtual run: what its clock tells
// (vtime.RankResult) and what the protocol engine counted. A process of a
// gompirun job publishes its ranks' records as JSON; gompirun merges them
// with Summarize. Both parts' fields sit at the top level of the JSON.
type RankRecord struct {
	vtime.RankResult
	EngineCounts
}

// EngineCounts is what the protocol engine counts for a rank of a virtual
// run, or for a whole job (Report).
type EngineCounts struct {
	Sent      int64 `json:"sent"`       // point-to-point messages sent (collectives included)
	SentBytes int64 `json:"sent_bytes"` // their payload bytes
	Recvd     int64 `json:"recvd"`
	RecvBytes int64 `json:"recvd_bytes"`
	Temporal  int64 `json:"temporal"` // temporally sensitive calls
	// TemporalExact counts those answered in virtual time, as on the
	// target (virtual_sensitive.go); the others followed host order.
	TemporalExact int64 `json:"temporal_exact"`
	// Stalls of Algorithm 2 resolved in blocking waits: exactly (the whole
	// job seen parked) and speculatively (a multi-process world whose
	// job-wide detection did not answer in time; see docs/model.md).
	Stalls            int64 `json:"stalls"`
	SpeculativeStalls int64 `json:"speculative_stalls"`
	// Gated counts the collectives computed at the gate, without their
	// messages (coll_bulk.go); their messages are in Sent and Recvd all
	// the same.
	Gated int64 `json:"gated"`
}

func (c *EngineCounts) add(d EngineCounts) {
	c.Sent += d.Sent
	c.SentBytes += d.SentBytes
	c.Recvd += d.Recvd
	c.RecvBytes += d.RecvBytes
	c.Temporal += d.Temporal
	c.TemporalExact += d.TemporalExact
	c.Stalls += d.Stalls
	c.SpeculativeStalls += d.SpeculativeStalls
	c.Gated += d.Gated
}

// Report is a virtual run's prediction: the model's summary over ranks
// (vtime.Report), the engine's counts over ranks, and every rank's
// record. gompirun prints it, and writes it as JSON with -report.
type Report struct {
	vtime.Report
	EngineCounts
	PerRank []RankRecord `json:"per_rank"`
	// Partial, when set, says why the job did not finish (it failed,
	// deadlocked, timed out or was interrupted): the report is of what
	// happened up to then. An unfinished rank's End is how far its clock
	// got; its breakdown and counts (but messages sent) are not known.
	Partial string `json:"partial,omitempty"`
}

// Summarize merges the records of all ranks (from any number of processes,
// in any order) into a report. wall is the host time in seconds. As
// vtime.Summarize, the report's PerRank is records itself when records is
// in rank order, a sorted copy otherwise.
func Summarize(machine string, cpuScale float64, records []RankRecord, wall float64) Report {
	rs := records
	byRank := func(i, j int) bool { return rs[i].Rank < rs[j].Rank }
	if !sort.SliceIsSorted(rs, byRank) {
		rs = append([]RankRecord(nil), records...)
		sort.Slice(rs, byRank)
	}
	clocks := make([]vtime.RankResult, len(rs))
	var total EngineCounts
	for i, r := range rs {
		clocks[i] = r.RankResult
		total.add(r.EngineCounts)
	}
	rep := Report{Report: vtime.Summarize(machine, cpuScale, clocks, wall), EngineCounts: total, PerRank: rs}
	rep.Report.PerRank = nil // PerRank above holds them, with the counts
	return rep
}

// WriteText prints the report for people: the model's lines, then the
// engine's.
func (rep *Report) WriteText(w io.Writer) error {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	if rep.Partial != "" {
		p("gompi PARTIAL prediction, of what happened before the job stopped: %s\n", rep.Partial)
	}
	if err := rep.Report.WriteText(w); err != nil {
		return err
	}
	p("  messages sent    %d (%d bytes)\n", rep.Sent, rep.SentBytes)
	if gated := rep.gatedPerRank(); gated > 0 {
		p("  collectives computed at the gate, without their messages: %d of each rank's (docs/model.md)\n", gated)
	}
	if host := rep.Temporal - rep.TemporalExact; host > 0 {
		p("  temporally sensitive calls: %d, %d answered in virtual time; %d answered speculatively with what the host had (gompirun did not see the job settle in time, or did not run it: docs/model.md, Temporally sensitive calls)\n",
			rep.Temporal, rep.TemporalExact, host)
	} else if rep.Temporal > 0 {
		p("  temporally sensitive calls: %d, all answered in virtual time\n", rep.Temporal)
	}
	if rep.SpeculativeStalls > 0 {
		p("  speculative stalls: %d of %d stalls resolved without seeing the whole job parked (the prediction may depend on host timing)\n",
			rep.SpeculativeStalls, rep.Stalls+rep.SpeculativeStalls)
	}
	return nil
}

// gatedPerRank is the most collectives any rank had computed at the gate
// (the gate takes whole-world collectives, so every rank has the same).
func (rep *Report) gatedPerRank() int64 {
	var most int64
	for i := range rep.PerRank {
		most = max(most, rep.PerRank[i].Gated)
	}
	return most
}
