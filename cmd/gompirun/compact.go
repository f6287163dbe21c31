package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/gompi/gompi/internal/record"
)

// -compact DIR groups the ranks of a record whose computation vectors are
// alike (Phantom's representative ranks, seeds/002; record.Compact) and
// keeps one vector per group: the members' files then refer to their
// leader's bursts and keep their own computation per stretch (-stretches sums, 64 by default).
// It prints the groups and the record's size before and after. A replay
// of the compacted record gives each member its leader's bursts scaled to
// its own stretch sums (docs/replay.md, "Representative ranks").

// defaultTolerance is -tolerance's default: a member's bursts differ from
// its leader's by at most 5% of the leader's computation in total.
const defaultTolerance = 0.05

// checkCompact validates -compact's command line: nothing but -tolerance
// and -stretches.
func checkCompact(o *options, set map[string]bool, args int) error {
	if o.compact == "" {
		return errors.New("-compact: empty directory name")
	}
	for name := range set {
		if name != "compact" && name != "tolerance" && name != "stretches" {
			return fmt.Errorf("-compact DIR takes only -tolerance and -stretches, not -%s", name)
		}
	}
	if args > 0 {
		return errors.New("-compact DIR takes no program")
	}
	if !(o.tolerance >= 0) {
		return fmt.Errorf("-tolerance %g: want 0 or more", o.tolerance)
	}
	if o.stretches < 1 || o.stretches > record.MaxStretches {
		return fmt.Errorf("-stretches %d: want 1 to %d", o.stretches, record.MaxStretches)
	}
	return nil
}

// runCompact compacts the record and reports on w; it returns the exit
// status.
func runCompact(dir string, tol float64, stretches int, w io.Writer) int {
	sum, err := record.Compact(dir, tol, stretches)
	if err != nil {
		fmt.Fprintf(os.Stderr, "gompirun: -compact: %v\n", err)
		return 1
	}
	fmt.Fprint(w, compactReport(dir, tol, sum))
	return 0
}

// compactReport says what Compact did: the groups, each as its leader and
// members (ranges), and the sizes.
func compactReport(dir string, tol float64, sum record.CompactSummary) string {
	var b strings.Builder
	fmt.Fprintf(&b, "gompi record %s: %d ranks in %d groups of alike computation (tolerance %g)\n", dir, sum.Ranks, sum.Groups, tol)
	members := map[int][]int{}
	var order []int
	for r, l := range sum.Leaders {
		if _, ok := members[l]; !ok {
			order = append(order, l)
		}
		members[l] = append(members[l], r)
	}
	const shown = 16
	for i, l := range order {
		if i == shown {
			fmt.Fprintf(&b, "  ... %d more groups\n", len(order)-shown)
			break
		}
		fmt.Fprintf(&b, "  leader %d: ranks %s\n", l, ranges(members[l]))
	}
	fmt.Fprintf(&b, "  bursts kept %d of %d, and %d members' stretch sums; rank files %d bytes, were %d\n", sum.BurstsBefore-sum.Moved, sum.BurstsBefore, sum.Sums, sum.After, sum.BytesBefore)
	return b.String()
}

// ranges writes sorted ranks as 0-3,7,9-10.
func ranges(rs []int) string {
	var parts []string
	for i := 0; i < len(rs); {
		j := i
		for j+1 < len(rs) && rs[j+1] == rs[j]+1 {
			j++
		}
		if j == i {
			parts = append(parts, fmt.Sprint(rs[i]))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", rs[i], rs[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}
