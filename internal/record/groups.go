package record

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
)

// Representative ranks (Phantom, seeds/002): the ranks of an SPMD program
// often compute alike, so a record needs to keep one computation vector
// (the sequence of a rank's measured bursts) per group of alike ranks.
// Compact groups the ranks of a record whose vectors are within a
// tolerance of a group leader's and rewrites the members' files with each
// burst replaced by BurstRef, "the leader's next burst"; the manifest
// names every rank's leader. A replay then gives a member its leader's
// bursts, in order.

// BurstRef is a burst of the rank's group leader: the leader's next one,
// counting from the rank's first (no arguments).
const BurstRef uint8 = 250

// Bursts returns the stream's computation bursts in order, in seconds.
func (s *Stream) Bursts() []float64 {
	var b []float64
	for i, op := range s.ops {
		if op == Burst || op == BurstNS {
			if a := s.Args(i); len(a) == 1 {
				b = append(b, BurstSeconds(op, a[0]))
			}
		}
	}
	return b
}

// Group assigns each rank a leader: itself, or the first earlier leader
// whose vector is alike (alike). Greedy, in rank order: a rank is compared
// with the leaders so far.
func Group(bursts [][]float64, tol float64) []int {
	leaders := make([]int, len(bursts))
	var heads []int
	profiles := make([][]float64, len(bursts))
	for r, b := range bursts {
		profiles[r] = profile(b)
		leaders[r] = r
		for _, l := range heads {
			if len(b) == len(bursts[l]) && alike(profiles[r], profiles[l], tol) {
				leaders[r] = l
				break
			}
		}
		if leaders[r] == r {
			heads = append(heads, r)
		}
	}
	return leaders
}

// profileBlocks is how many consecutive stretches of a computation vector
// are compared. A single burst is a few microseconds measured with as much
// noise, so bursts are not compared one by one; the sums of stretches of
// them keep the shape of the computation through the run (a rank that
// computes more in one phase) without the noise.
const profileBlocks = 64

// profile is b summed over profileBlocks consecutive stretches (fewer for a
// short b).
func profile(b []float64) []float64 {
	n := min(profileBlocks, len(b))
	p := make([]float64, n)
	for i, v := range b {
		p[i*n/len(b)] += v
	}
	return p
}

// alike reports whether two ranks' profiles, of vectors with as many
// bursts (the same calls), differ by at most tol relative: the sum of the
// stretches' absolute differences over the leader's total computation.
func alike(a, lead []float64, tol float64) bool {
	total := 0.0
	for _, v := range lead {
		total += math.Abs(v)
	}
	limit, diff := tol*total, 0.0
	for i := range a {
		if diff += math.Abs(a[i] - lead[i]); diff > limit {
			return false
		}
	}
	return true
}

// CompactSummary is what Compact did.
type CompactSummary struct {
	Ranks, Groups       int
	Leaders             []int // per rank
	BytesBefore, After  int64 // of the rank files
	BurstsBefore, Moved int64 // bursts in the record, and those now the leaders'
}

// Compact groups the ranks of the record in dir whose computation vectors
// are alike within tol (Group) and rewrites the members' files to refer to
// their leaders' bursts; the manifest then names every rank's leader. A
// record compacted before is refused: its members' vectors are gone.
func Compact(dir string, tol float64) (CompactSummary, error) {
	if !(tol >= 0) {
		return CompactSummary{}, fmt.Errorf("tolerance %g: want 0 or more", tol)
	}
	man, err := ReadManifest(dir)
	if err != nil {
		return CompactSummary{}, err
	}
	if man.Leaders != nil {
		return CompactSummary{}, fmt.Errorf("%s is compacted already", dir)
	}
	sum := CompactSummary{Ranks: man.Ranks}
	streams := make([]*Stream, man.Ranks)
	vectors := make([][]float64, man.Ranks)
	for r := range streams {
		path := filepath.Join(dir, RankFile(r))
		if streams[r], err = ReadFile(path); err != nil {
			return CompactSummary{}, err
		}
		if fi, err := os.Stat(path); err == nil {
			sum.BytesBefore += fi.Size()
		}
		vectors[r] = streams[r].Bursts()
		sum.BurstsBefore += int64(len(vectors[r]))
	}
	sum.Leaders = Group(vectors, tol)
	for r, l := range sum.Leaders {
		path := filepath.Join(dir, RankFile(r))
		if l == r {
			sum.Groups++
		} else {
			sum.Moved += int64(len(vectors[r]))
			if err := rewriteMember(streams[r], path); err != nil {
				return CompactSummary{}, err
			}
		}
		if fi, err := os.Stat(path); err == nil {
			sum.After += fi.Size()
		}
	}
	man.Leaders = sum.Leaders
	if err := WriteManifest(dir, man); err != nil {
		return CompactSummary{}, err
	}
	return sum, nil
}

// rewriteMember writes s to path with its bursts replaced by BurstRef,
// through a temporary file renamed over it.
func rewriteMember(s *Stream, path string) error {
	var w Writer
	for i, op := range s.ops {
		if op == Burst || op == BurstNS {
			w.Event(BurstRef, nil)
			continue
		}
		w.Event(op, s.Args(i))
	}
	w.sensitive, w.maxBytes = s.Sensitive, s.MaxBytes
	tmp := path + ".tmp"
	if err := w.WriteFile(tmp, s.Header); err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
}
