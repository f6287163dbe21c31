package launch

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Timelines (gompirun -trace): gompirun tells every process which ranks
// record their timeline and how many events each may keep, in EnvTrace as
// "MAX:RANKS"; each process publishes its ranks' events under
// TraceKey(proc) before the finalize barrier, and gompirun writes the
// trace file.
const EnvTrace = "GOMPI_TRACE"

// TraceKey is the exchange key of process proc's trace record.
func TraceKey(proc int) string { return traceKeyPrefix + strconv.Itoa(proc) }

const traceKeyPrefix = "trace/"

// RankSet is a set of ranks given as ranges, "0-15,32,40-47", or "all".
type RankSet struct {
	all    bool
	ranges [][2]int // sorted, disjoint, inclusive
}

// ParseRankSet reads a rank set for a job of size ranks: every rank named
// must exist.
func ParseRankSet(spec string, size int) (RankSet, error) {
	if spec == "all" {
		return RankSet{all: true}, nil
	}
	var s RankSet
	for _, item := range strings.Split(spec, ",") {
		lo, hi, isRange := strings.Cut(item, "-")
		a, err1 := strconv.Atoi(lo)
		b, err2 := a, error(nil)
		if isRange {
			b, err2 = strconv.Atoi(hi)
		}
		if err1 != nil || err2 != nil || a < 0 || b < a {
			return RankSet{}, fmt.Errorf("%q: want ranks such as 0-15,32 or all", item)
		}
		if b >= size {
			return RankSet{}, fmt.Errorf("rank %d: the job has %d ranks", b, size)
		}
		s.ranges = append(s.ranges, [2]int{a, b})
	}
	sort.Slice(s.ranges, func(i, j int) bool { return s.ranges[i][0] < s.ranges[j][0] })
	merged := s.ranges[:1]
	for _, r := range s.ranges[1:] {
		if last := &merged[len(merged)-1]; r[0] <= last[1]+1 {
			last[1] = max(last[1], r[1])
		} else {
			merged = append(merged, r)
		}
	}
	s.ranges = merged
	return s, nil
}

// Has reports whether rank r is in the set.
func (s RankSet) Has(r int) bool {
	if s.all {
		return true
	}
	i := sort.Search(len(s.ranges), func(i int) bool { return s.ranges[i][1] >= r })
	return i < len(s.ranges) && s.ranges[i][0] <= r
}

// Count is how many of a job's size ranks are in the set.
func (s RankSet) Count(size int) int {
	if s.all {
		return size
	}
	n := 0
	for _, r := range s.ranges {
		n += r[1] - r[0] + 1
	}
	return n
}

// String is the set as ParseRankSet reads it.
func (s RankSet) String() string {
	if s.all {
		return "all"
	}
	var b []string
	for _, r := range s.ranges {
		if r[0] == r[1] {
			b = append(b, strconv.Itoa(r[0]))
		} else {
			b = append(b, strconv.Itoa(r[0])+"-"+strconv.Itoa(r[1]))
		}
	}
	return strings.Join(b, ",")
}
