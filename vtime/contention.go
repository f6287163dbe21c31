package vtime

import (
	"fmt"
	"math"
)

// Computation under contention. Ranks that share a node compute at the same
// time and slow each other (memory bandwidth, shared caches, SMT siblings).
// The machine's contention table says by how much: entry k-1 is S(k), the
// factor by which one rank's computation is slower when k ranks of one node
// compute at once, relative to computing alone.
//
// The host's measurement already contains the host's own contention: the
// ranks it computes at once (k_h) slowed each other by S(k_h). A burst
// measured as d on the host is therefore charged as
//
//	d x cpuScale x S(k_t) / S(k_h)
//
// where k_t is the number of the job's ranks on the rank's target node. This
// assumes that the host's contention follows the same table as the target's:
// exact when the machine file was calibrated on the host, which is how
// predictions are validated. Both k_t and k_h are upper bounds of how many
// ranks compute at once (ranks also wait and communicate); the model takes
// them as the number that do, on both sides alike.

// maxContention bounds every entry of the table: a rank 100 times slower
// next to its node's other ranks is a broken calibration, not a machine.
// An entry below 1 would mean ranks compute faster together, which is
// measurement noise: a calibration clamps it to 1.
const maxContention = 100

// maxContentionEntries bounds the table's length (a node of 2^20 cores).
const maxContentionEntries = 1 << 20

// validateContention checks the contention table; field names the bad entry.
func validateContention(s []float64) (field, why string) {
	if len(s) > maxContentionEntries {
		return "contention", fmt.Sprintf("at most %d entries, got %d", maxContentionEntries, len(s))
	}
	for k, f := range s {
		field := fmt.Sprintf("contention[%d]", k)
		switch {
		case math.IsNaN(f) || math.IsInf(f, 0):
			return field, fmt.Sprintf("must be a finite number, got %g", f)
		case k == 0 && f != 1:
			return field, fmt.Sprintf("S(1), one rank computing alone, must be 1, got %g", f)
		case f < 1 || f > maxContention:
			return field, fmt.Sprintf("S(%d) must be in [1, %d], got %g", k+1, maxContention, f)
		}
	}
	return "", ""
}

// ContentionSlowdown is S(k): how much slower a rank computes when k ranks of one
// node compute at once. k beyond the table uses its last entry; without a
// table (or for k <= 1) it is 1.
func (m *Machine) ContentionSlowdown(k int) float64 {
	if k <= 1 || len(m.Contention) == 0 {
		return 1
	}
	return m.Contention[min(k, len(m.Contention))-1]
}

// NodeRanks is k_t(r): how many of the job's ranks the mapping places on
// rank r's node (cores_per_node, or fewer on a partly filled node).
func (t *Target) NodeRanks(r int) int {
	cpn := t.m.CoresPerNode
	if t.m.Mapping == "round-robin" {
		// Rank x is on node x mod nodes: node n holds the x = n, n +
		// nodes, ... below P.
		n := r % t.nodes
		k := t.p / t.nodes
		if n < t.p%t.nodes {
			k++
		}
		return k
	}
	first := r / cpn * cpn
	return min(cpn, t.p-first)
}

// ContentionFactor is S(k_t(r)) / S(k_h): the factor by which rank r's
// measured computation is scaled (besides the CPU scale) when the host
// computes hostConcurrency ranks at once on the cores that measured it.
func (t *Target) ContentionFactor(r, hostConcurrency int) float64 {
	if len(t.m.Contention) == 0 {
		return 1
	}
	return t.m.ContentionSlowdown(t.NodeRanks(r)) / t.m.ContentionSlowdown(hostConcurrency)
}
