package vtime

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
)

// RankResult is what one rank's clock tells of a prediction: its virtual
// times and the waiting algorithm's counts. Package mpi adds the protocol
// engine's counts to make the record a process sends to the launcher for
// each rank it hosts (mpi.RankRecord); Summarize merges the clocks' part.
// Times are virtual seconds.
type RankResult struct {
	Rank     int     `json:"rank"`
	End      float64 `json:"end"`      // t_V at E_End: the rank's predicted execution time
	Finished bool    `json:"finished"` // the rank reached E_End
	// Time by kind of activity: computation (measured, scaled, plus
	// Elapse), communication (the starting phases DS, RS, DR, AS) and
	// waiting (A_WT). They add up to End.
	Computation   float64 `json:"computation"`
	Communication float64 `json:"communication"`
	Waiting       float64 `json:"waiting"`
	Waits         int     `json:"waits"`                    // waiting activities
	HistoryMisses int     `json:"history_misses,omitempty"` // see waitState
	HistoryKept   int     `json:"history_kept,omitempty"`   // waits kept for Algorithm 3 at the end (HistoryLen)

	// Contention is the factor S(k_t) / S(k_h) by which the rank's measured
	// computation was scaled besides the CPU scale (contention.go):
	// NodeRanks is k_t, the job's ranks on its target node, and
	// HostConcurrency k_h, the ranks the host computed at once. All three
	// are 0 when nothing was measured (cpu-scale 0).
	Contention      float64 `json:"contention,omitempty"`
	NodeRanks       int     `json:"node_ranks,omitempty"`
	HostConcurrency int     `json:"host_concurrency,omitempty"`
}

// Stat is a quantity over ranks: its minimum, mean and maximum, and which
// rank had the minimum and the maximum (the lowest such rank).
type Stat struct {
	Min     float64 `json:"min"`
	Mean    float64 `json:"mean"`
	Max     float64 `json:"max"`
	MinRank int     `json:"min_rank"`
	MaxRank int     `json:"max_rank"`
}

// Report is a whole prediction.
type Report struct {
	Machine   string  `json:"machine"`
	Ranks     int     `json:"ranks"`
	CPUScale  float64 `json:"cpu_scale"`
	Predicted float64 `json:"predicted"` // max over ranks of t_V at E_End, seconds
	// PredictedRank is the rank that finished last.
	PredictedRank int `json:"predicted_rank"`
	// Wall is the host time the prediction took, seconds; Slowdown is
	// Wall / Predicted.
	Wall          float64 `json:"wall"`
	Slowdown      float64 `json:"slowdown"`
	Computation   Stat    `json:"computation"`
	Communication Stat    `json:"communication"`
	Waiting       Stat    `json:"waiting"`
	HistoryMisses int     `json:"history_misses"`
	HistoryKept   int     `json:"history_kept"` // the most waits a rank kept for Algorithm 3 at the end
	Unfinished    []int   `json:"unfinished,omitempty"`
	// Contention summarises the ranks' contention factors; nil when every
	// rank's measured computation was charged as measured (factor 1).
	Contention *ContentionSummary `json:"contention,omitempty"`

	PerRank []RankResult `json:"per_rank"`
}

// ContentionSummary is the range over ranks of the contention factor and of
// the two concurrencies it comes from (RankResult.Contention).
type ContentionSummary struct {
	MinFactor          float64 `json:"min_factor"`
	MaxFactor          float64 `json:"max_factor"`
	MinNodeRanks       int     `json:"min_node_ranks"`
	MaxNodeRanks       int     `json:"max_node_ranks"`
	MinHostConcurrency int     `json:"min_host_concurrency"`
	MaxHostConcurrency int     `json:"max_host_concurrency"`
}

// summarizeContention is nil when no rank's factor differs from 1.
func summarizeContention(rs []RankResult) *ContentionSummary {
	var c *ContentionSummary
	scaled := false
	for _, r := range rs {
		if r.HostConcurrency == 0 {
			continue // not measured
		}
		scaled = scaled || r.Contention != 1
		if c == nil {
			c = &ContentionSummary{MinFactor: r.Contention, MaxFactor: r.Contention,
				MinNodeRanks: r.NodeRanks, MaxNodeRanks: r.NodeRanks,
				MinHostConcurrency: r.HostConcurrency, MaxHostConcurrency: r.HostConcurrency}
			continue
		}
		c.MinFactor, c.MaxFactor = min(c.MinFactor, r.Contention), max(c.MaxFactor, r.Contention)
		c.MinNodeRanks, c.MaxNodeRanks = min(c.MinNodeRanks, r.NodeRanks), max(c.MaxNodeRanks, r.NodeRanks)
		c.MinHostConcurrency = min(c.MinHostConcurrency, r.HostConcurrency)
		c.MaxHostConcurrency = max(c.MaxHostConcurrency, r.HostConcurrency)
	}
	if !scaled {
		return nil
	}
	return c
}

// Summarize merges the records of all ranks (from any number of processes,
// in any order) into a report. wall is the host time in seconds. The
// report's PerRank is results itself when results is in rank order (a
// job's processes publish their ranks in order, and a copy of millions of
// records is memory gompirun need not hold twice), a sorted copy
// otherwise.
func Summarize(machine string, cpuScale float64, results []RankResult, wall float64) Report {
	rs := results
	byRank := func(i, j int) bool { return rs[i].Rank < rs[j].Rank }
	if !sort.SliceIsSorted(rs, byRank) {
		rs = append([]RankResult(nil), results...)
		sort.Slice(rs, byRank)
	}
	rep := Report{Machine: machine, Ranks: len(rs), CPUScale: cpuScale, Wall: wall, PerRank: rs}
	if len(rs) == 0 {
		return rep
	}
	stat := func(get func(*RankResult) float64) Stat {
		s := Stat{Min: get(&rs[0]), Max: get(&rs[0]), MinRank: rs[0].Rank, MaxRank: rs[0].Rank}
		sum := 0.0
		for i := range rs {
			v := get(&rs[i])
			sum += v
			if v < s.Min {
				s.Min, s.MinRank = v, rs[i].Rank
			}
			if v > s.Max {
				s.Max, s.MaxRank = v, rs[i].Rank
			}
		}
		s.Mean = sum / float64(len(rs))
		return s
	}
	end := stat(func(r *RankResult) float64 { return r.End })
	rep.Predicted, rep.PredictedRank = end.Max, end.MaxRank
	rep.Computation = stat(func(r *RankResult) float64 { return r.Computation })
	rep.Communication = stat(func(r *RankResult) float64 { return r.Communication })
	rep.Waiting = stat(func(r *RankResult) float64 { return r.Waiting })
	for _, r := range rs {
		rep.HistoryMisses += r.HistoryMisses
		rep.HistoryKept = max(rep.HistoryKept, r.HistoryKept)
		if !r.Finished {
			rep.Unfinished = append(rep.Unfinished, r.Rank)
		}
	}
	rep.Contention = summarizeContention(rs)
	if rep.Predicted > 0 {
		rep.Slowdown = wall / rep.Predicted
	}
	return rep
}

// WriteJSON writes the report as indented JSON (gompirun -report FILE).
func (rep *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}

// WriteText prints the report for people.
func (rep *Report) WriteText(w io.Writer) error {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	p("gompi prediction: %d ranks on machine %s, cpu-scale %g\n", rep.Ranks, rep.Machine, rep.CPUScale)
	if len(rep.Unfinished) == 0 {
		p("  predicted time   %s (rank %d finishes last)\n", Seconds(rep.Predicted), rep.PredictedRank)
	} else {
		p("  predicted time   %s (rank %d, the furthest; some ranks did not finish)\n", Seconds(rep.Predicted), rep.PredictedRank)
	}
	p("  host wall time   %s, slowdown %.3g\n", Seconds(rep.Wall), rep.Slowdown)
	p("  %-15s %12s %12s %12s\n", "per rank", "min", "mean", "max")
	for _, row := range []struct {
		name string
		s    Stat
	}{{"computation", rep.Computation}, {"communication", rep.Communication}, {"waiting", rep.Waiting}} {
		lo, hi := Seconds(row.s.Min), Seconds(row.s.Max)
		p("  %-15s %12s %12s %12s", row.name, lo, Seconds(row.s.Mean), hi)
		if lo != hi { // naming ranks means something only where they differ as shown
			p("   (min rank %d, max rank %d)", row.s.MinRank, row.s.MaxRank)
		}
		p("\n")
	}
	if c := rep.Contention; c != nil {
		p("  computation x%s for contention: %s per node, host computes %s at once\n",
			rangeOf("%.3g", c.MinFactor, c.MaxFactor, " - x"),
			plural(rangeOf("%d", c.MinNodeRanks, c.MaxNodeRanks, "-"), c.MaxNodeRanks, "rank", "ranks"),
			rangeOf("%d", c.MinHostConcurrency, c.MaxHostConcurrency, "-"))
	}
	if rep.HistoryMisses > 0 {
		p("  history misses:  %d messages older than every remembered wait (dealt at their arrival time)\n", rep.HistoryMisses)
	}
	if len(rep.Unfinished) > 0 {
		p("  unfinished ranks (no E_End; the prediction is incomplete): %v\n", rep.Unfinished)
	}
	return nil
}

// rangeOf formats a range over ranks: one value when min == max.
func rangeOf[T int | float64](format string, lo, hi T, sep string) string {
	if lo == hi {
		return fmt.Sprintf(format, lo)
	}
	return fmt.Sprintf(format, lo) + sep + fmt.Sprintf(format, hi)
}

// plural appends the noun for a count whose largest value is n.
func plural(count string, n int, one, many string) string {
	if n == 1 {
		return count + " " + one
	}
	return count + " " + many
}

// Seconds formats a time in seconds with a unit suited to its size.
func Seconds(s float64) string {
	switch a := max(s, -s); {
	case a == 0:
		return "0 s"
	case a < 1e-6:
		return fmt.Sprintf("%.4g ns", s*1e9)
	case a < 1e-3:
		return fmt.Sprintf("%.4g us", s*1e6)
	case a < 1:
		return fmt.Sprintf("%.4g ms", s*1e3)
	}
	return fmt.Sprintf("%.6g s", s)
}
