package mpi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/vmihailenco/msgpack/v5"
)

// The per-rank records a process of a virtual job hands gompirun
// (publishVirtual, partialPublisher) travel as msgpack arrays of each
// record's fields in order: a million ranks' records as JSON took seconds
// to write and read (docs/model.md, "Virtual ranks on one host"). A
// record list in JSON, as processes of earlier versions publish it, is
// still read.

// encodeRankRecords is the form publishVirtual hands gompirun.
func encodeRankRecords(rs []RankRecord) ([]byte, error) {
	var buf bytes.Buffer
	enc := msgpack.NewEncoder(&buf)
	enc.UseArrayEncodedStructs(true)
	if err := enc.Encode(rs); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// DecodeRankRecords reads the records a process of a virtual job
// published: msgpack (encodeRankRecords), or a JSON list.
func DecodeRankRecords(b []byte) ([]RankRecord, error) {
	var rs []RankRecord
	if len(b) == 0 {
		return nil, errors.New("virtual-time records: empty")
	}
	if b[0] == '[' || b[0] == 'n' {
		if err := json.Unmarshal(b, &rs); err != nil {
			return nil, err
		}
		return rs, nil
	}
	if err := msgpack.Unmarshal(b, &rs); err != nil {
		return nil, fmt.Errorf("virtual-time records: %v", err)
	}
	return rs, nil
}
