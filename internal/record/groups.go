package record

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// Representative ranks (Phantom, seeds/002): the ranks of an SPMD program
// often compute alike, so a record needs to keep one computation vector
// (the sequence of a rank's measured bursts) per group of alike ranks.
// Compact groups the ranks of a record whose vectors are within a
// tolerance of a group leader's and rewrites the members' files with each
// burst replaced by BurstRef, "the leader's next burst", and with the
// member's own computation per stretch (profile) in one BurstScale (or
// BurstScaleNS) event;
// the manifest names every rank's leader. A replay then gives a member
// its leader's bursts, in order, each scaled so that the member computes
// in each stretch what it computed when recorded (MemberBursts): the
// leader gives the shape inside a stretch, the member its amounts.

// BurstRef is a burst of the rank's group leader: the leader's next one,
// counting from the rank's first (no arguments).
const BurstRef uint8 = 250

// BurstScale, once in a compacted record's member file (format version
// 2), is the member's own computation per stretch: [float64 bits of each
// of its profile's stretch sums, in seconds], as many as the profile of
// its bursts has stretches (min(64, burst references)). BurstScaleNS is
// the same in whole nanoseconds, [nanoseconds of each], which Compact
// writes where every sum is within 1e-12 of whole nanoseconds (sums of
// BurstNS bursts, to rounding): 3 or 4 bytes a sum rather than 10. Compact
// leaves them out where the sums are the leader's bit for bit: a member
// without them takes its leader's bursts as they are (so does one of a
// record that a gompi before format version 2 compacted).
const (
	BurstScale   uint8 = 249
	BurstScaleNS uint8 = 248
)

// isScale reports whether op is BurstScale or BurstScaleNS.
func isScale(op uint8) bool { return op == BurstScale || op == BurstScaleNS }

// scaleSeconds is the stretch sum that a BurstScale or BurstScaleNS
// event's integer a stands for.
func scaleSeconds(op uint8, a int64) float64 {
	if op == BurstScaleNS {
		return time.Duration(a).Seconds()
	}
	return math.Float64frombits(uint64(a))
}

// checkScale checks a stretch-sum event's arguments as the reader meets
// it at offset off: a version 2 file, 1 to MaxStretches finite
// non-negative seconds (MemberBursts checks their count against the
// leader's bursts).
func (d *Reader) checkScale(off int64, op uint8, args []int64) error {
	if d.version < 2 {
		return d.errorAt(off, "stretch sums in a format version %d file", d.version)
	}
	if len(args) < 1 || len(args) > MaxStretches {
		return d.errorAt(off, "%d stretch sums; want 1 to %d", len(args), MaxStretches)
	}
	for i, a := range args {
		if v := scaleSeconds(op, a); !(v >= 0) || math.IsInf(v, 1) {
			return d.errorAt(off, "stretch sum %d is %v seconds", i, v)
		}
	}
	return nil
}

// scaleEvent is the event that keeps a member's stretch sums: in whole
// nanoseconds where each is within 1e-12 of them, as float64 bits
// otherwise.
func scaleEvent(sums []float64) Event {
	e := Event{Op: BurstScaleNS, Args: make([]int64, len(sums))}
	for i, v := range sums {
		ns := math.Round(v * 1e9)
		if !(ns >= 0 && ns < 1<<62) || math.Abs(time.Duration(ns).Seconds()-v) > 1e-12*v {
			e.Op = BurstScale
			break
		}
		e.Args[i] = int64(ns)
	}
	if e.Op == BurstScale {
		for i, v := range sums {
			e.Args[i] = int64(math.Float64bits(v))
		}
	}
	return e
}

// MemberBursts is a member's computation vector in a replay: its leader's
// bursts lead, each times the member's stretch sum over the leader's for
// its stretch (burst i of n is in stretch i*m/n, m = len(sums), as in
// profile), or,
// where the leader computed nothing in a stretch (or the ratio
// overflows), the member's stretch sum spread evenly over the stretch's
// bursts. A member's computation per stretch, and in total, is then its
// own (to rounding); where its sums are the leader's, its bursts are the
// leader's bit for bit. There are 1 to len(lead) stretches (none for no
// bursts): Compact keeps min(stretches, len(lead)).
func MemberBursts(lead, sums []float64) ([]float64, error) {
	n := len(sums)
	if n > len(lead) || n == 0 && len(lead) > 0 {
		return nil, fmt.Errorf("%d stretch sums for %d bursts; want 1 to %d", len(sums), len(lead), len(lead))
	}
	own := profile(lead, n)
	count := make([]int, n)
	for i := range lead {
		count[i*n/len(lead)]++
	}
	b := make([]float64, len(lead))
	for i, v := range lead {
		k := i * n / len(lead)
		f := sums[k] / own[k]
		if own[k] > 0 && !math.IsInf(f, 0) && !math.IsNaN(f) {
			b[i] = v * f
		} else {
			b[i] = sums[k] / float64(count[k])
		}
	}
	return b, nil
}

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
// whose vector, summed over the given number of stretches, is alike
// (alike). Greedy, in rank order: a rank is compared with the leaders so
// far.
func Group(bursts [][]float64, tol float64, stretches int) []int {
	leaders := make([]int, len(bursts))
	var heads []int
	profiles := make([][]float64, len(bursts))
	for r, b := range bursts {
		profiles[r] = profile(b, stretches)
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

// DefaultStretches is how many consecutive stretches of a computation
// vector are compared and kept per member unless told otherwise. A single
// burst is a few microseconds measured with as much noise, so bursts are
// not compared one by one; the sums of stretches of them keep the shape
// of the computation through the run (a rank that computes more in one
// phase) without the noise. More stretches keep more of each member's own
// computation (its variation inside a stretch is its leader's) and group
// fewer ranks.
const DefaultStretches = 64

// MaxStretches bounds the stretches of a profile: what a reader accepts.
const MaxStretches = 1 << 20

// profile is b summed over stretches consecutive stretches (fewer for a
// short b).
func profile(b []float64, stretches int) []float64 {
	n := min(stretches, len(b))
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
	Sums                int64 // stretch sums the members keep (BurstScale, BurstScaleNS)
}

// Compact groups the ranks of the record in dir whose computation vectors,
// summed over the given number of stretches (1 to MaxStretches), are alike
// within tol (Group) and rewrites the members' files to refer to
// their leaders' bursts, keeping their own stretch sums (BurstScale, BurstScaleNS); the
// manifest then names every rank's leader and says format version 2. A
// record compacted before is refused: its members' vectors are gone.
func Compact(dir string, tol float64, stretches int) (CompactSummary, error) {
	if !(tol >= 0) {
		return CompactSummary{}, fmt.Errorf("tolerance %g: want 0 or more", tol)
	}
	if stretches < 1 || stretches > MaxStretches {
		return CompactSummary{}, fmt.Errorf("%d stretches: want 1 to %d", stretches, MaxStretches)
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
	sum.Leaders = Group(vectors, tol, stretches)
	for r, l := range sum.Leaders {
		path := filepath.Join(dir, RankFile(r))
		if l == r {
			sum.Groups++
		} else {
			sum.Moved += int64(len(vectors[r]))
			// Stretch sums equal to the leader's, bit for bit, are left
			// out: the leader's bursts as they are are the member's then.
			sums := profile(vectors[r], stretches)
			if slices.Equal(sums, profile(vectors[l], stretches)) {
				sums = nil
			}
			sum.Sums += int64(len(sums))
			if err := rewriteMember(streams[r], path, sums); err != nil {
				return CompactSummary{}, err
			}
		}
		if fi, err := os.Stat(path); err == nil {
			sum.After += fi.Size()
		}
	}
	man.Leaders = sum.Leaders
	man.Format = Version
	if err := WriteManifest(dir, man); err != nil {
		return CompactSummary{}, err
	}
	return sum, nil
}

// rewriteMember writes s to path with its stretch sums first (if any)
// and its bursts replaced by BurstRef, through a
// temporary file renamed over it.
func rewriteMember(s *Stream, path string, sums []float64) error {
	var w Writer
	if len(sums) > 0 {
		e := scaleEvent(sums)
		w.Event(e.Op, e.Args)
	}
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
