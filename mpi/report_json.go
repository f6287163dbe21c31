package mpi

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/gompi/gompi/internal/jsonnum"
	"github.com/gompi/gompi/vtime"
)

// WriteJSON writes the report as indented JSON (gompirun -report FILE):
// the summary as encoding/json writes it, then per_rank with a record a
// line. The records are written by appendRecordJSON, not by reflection:
// a million of them took encoding/json seconds (docs/model.md, "Virtual
// ranks on one host"); the text of each is what encoding/json writes for
// a RankRecord (TestRecordJSONAsEncodingJSON).
func (rep *Report) WriteJSON(w io.Writer) error {
	head := struct {
		vtime.Report
		EngineCounts
		Partial string `json:"partial,omitempty"`
		// PerRank hides vtime.Report's, which Summarize leaves nil:
		// the records follow the head.
		PerRank *struct{} `json:"per_rank,omitempty"`
	}{Report: rep.Report, EngineCounts: rep.EngineCounts, Partial: rep.Partial}
	b, err := json.MarshalIndent(&head, "", "  ")
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	bw.Write(b[:len(b)-len("\n}")])
	if rep.PerRank == nil {
		bw.WriteString(",\n  \"per_rank\": null\n}\n")
		return bw.Flush()
	}
	bw.WriteString(",\n  \"per_rank\": [")
	line := make([]byte, 0, 512)
	for i := range rep.PerRank {
		line = line[:0]
		if i > 0 {
			line = append(line, ',')
		}
		line = append(line, "\n    "...)
		if line, err = appendRecordJSON(line, &rep.PerRank[i]); err != nil {
			return err
		}
		if _, err := bw.Write(line); err != nil {
			return err
		}
	}
	bw.WriteString("\n  ]\n}\n")
	return bw.Flush()
}

// appendRecordJSON appends r as encoding/json marshals a RankRecord: its
// fields in order, under their tags, omitempty ones left out when zero.
func appendRecordJSON(b []byte, r *RankRecord) ([]byte, error) {
	var err error
	num := func(name string, f float64) {
		b = append(b, ',', '"')
		b = append(b, name...)
		b = append(b, '"', ':')
		if math.IsNaN(f) || math.IsInf(f, 0) {
			err = fmt.Errorf("rank %d: %s is %v, which JSON cannot hold", r.Rank, name, f)
		}
		b = jsonnum.AppendFloat(b, f)
	}
	integer := func(name string, n int64) {
		b = append(b, ',', '"')
		b = append(b, name...)
		b = append(b, '"', ':')
		b = strconv.AppendInt(b, n, 10)
	}
	b = append(b, `{"rank":`...)
	b = strconv.AppendInt(b, int64(r.Rank), 10)
	num("end", r.End)
	b = append(b, `,"finished":`...)
	b = strconv.AppendBool(b, r.Finished)
	num("computation", r.Computation)
	num("communication", r.Communication)
	num("waiting", r.Waiting)
	integer("waits", int64(r.Waits))
	if r.HistoryMisses != 0 {
		integer("history_misses", int64(r.HistoryMisses))
	}
	if r.HistoryKept != 0 {
		integer("history_kept", int64(r.HistoryKept))
	}
	if r.Contention != 0 {
		num("contention", r.Contention)
	}
	if r.NodeRanks != 0 {
		integer("node_ranks", int64(r.NodeRanks))
	}
	if r.HostConcurrency != 0 {
		integer("host_concurrency", int64(r.HostConcurrency))
	}
	integer("sent", r.Sent)
	integer("sent_bytes", r.SentBytes)
	integer("recvd", r.Recvd)
	integer("recvd_bytes", r.RecvBytes)
	integer("temporal", r.Temporal)
	integer("temporal_exact", r.TemporalExact)
	integer("stalls", r.Stalls)
	integer("speculative_stalls", r.SpeculativeStalls)
	integer("gated", r.Gated)
	return append(b, '}'), err
}
