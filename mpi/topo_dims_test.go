package mpi

import (
	"errors"
	"fmt"
	"slices"
	"testing"
)

// refDims is DimsCreate by brute force: every ordered tuple of positive
// integers for the free entries whose product is right, sorted
// non-increasing; the least spread wins, then the lexicographically
// smallest.
func refDims(n int, dims []int) ([]int, bool) {
	prod, free := 1, 0
	for _, d := range dims {
		if d == 0 {
			free++
		} else {
			prod *= d
		}
	}
	if n%prod != 0 {
		return nil, false
	}
	m := n / prod
	var best []int
	tuple := make([]int, free)
	var walk func(i, r int)
	walk = func(i, r int) {
		if i == free {
			if r != 1 {
				return
			}
			t := slices.Clone(tuple)
			slices.SortFunc(t, func(a, b int) int { return b - a })
			if best == nil {
				best = t
				return
			}
			s, bs := t[0]-t[free-1], best[0]-best[free-1]
			if s < bs || s == bs && slices.Compare(t, best) < 0 {
				best = t
			}
			return
		}
		for f := 1; f <= r; f++ {
			if r%f == 0 {
				tuple[i] = f
				walk(i+1, r/f)
			}
		}
	}
	walk(0, m)
	out := slices.Clone(dims)
	k := 0
	for i := range out {
		if out[i] == 0 {
			out[i] = best[k]
			k++
		}
	}
	return out, true
}

func TestDimsCreateBruteForce(t *testing.T) {
	fixed := [][]int{
		{0}, {0, 0}, {0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0, 0},
		{2, 0}, {0, 3}, {0, 2, 0}, {4, 0, 0}, {0, 0, 2, 0}, {3, 0, 0, 2},
		{5}, {2, 2}, {1, 0, 1}, {0, 1, 0, 1},
	}
	for n := 1; n <= 64; n++ {
		for _, dims := range fixed {
			want, ok := refDims(n, dims)
			got, err := DimsCreate(n, dims)
			if !ok {
				if !errors.Is(err, ErrDims) {
					t.Errorf("DimsCreate(%d, %v) = %v, %v; want an ErrDims error", n, dims, got, err)
				}
				continue
			}
			if err != nil || !slices.Equal(got, want) {
				t.Errorf("DimsCreate(%d, %v) = %v, %v; want %v", n, dims, got, err, want)
			}
		}
	}
}

// The examples of MPI-4.0 section 8.5.2, and the errors.
func TestDimsCreateExamplesAndErrors(t *testing.T) {
	for _, tc := range []struct {
		n          int
		dims, want []int
	}{
		{6, []int{0, 0}, []int{3, 2}},
		{7, []int{0, 0}, []int{7, 1}},
		{6, []int{0, 3, 0}, []int{2, 3, 1}},
		{1, []int{0, 0, 0}, []int{1, 1, 1}},
		{8, nil, []int{}},
		{8, []int{2, 2}, []int{2, 2}}, // no free entry: divisibility only, as MPICH
	} {
		in := slices.Clone(tc.dims)
		got, err := DimsCreate(tc.n, tc.dims)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("DimsCreate(%d, %v) = %v, %v; want %v", tc.n, in, got, err, tc.want)
		}
		if !slices.Equal(in, tc.dims) {
			t.Errorf("DimsCreate(%d, %v) modified its argument to %v", tc.n, in, tc.dims)
		}
	}
	for _, tc := range []struct {
		n    int
		dims []int
		want error
	}{
		{7, []int{0, 3, 0}, ErrDims},
		{6, []int{-1, 0}, ErrDims},
		{0, []int{0}, ErrArg},
		{-4, []int{0}, ErrArg},
		{12, []int{1 << 40, 1 << 40}, ErrDims}, // product overflows int
	} {
		if _, err := DimsCreate(tc.n, tc.dims); !errors.Is(err, tc.want) {
			t.Errorf("DimsCreate(%d, %v): %v, want %v", tc.n, tc.dims, err, tc.want)
		}
	}
}

// Large inputs finish quickly and give a grid of the right size.
func TestDimsCreateLarge(t *testing.T) {
	for _, tc := range []struct{ n, nd int }{
		{1 << 20, 6}, {735134400, 3}, {735134400, 5}, {1, 1000}, {1 << 30, 30}, {2147483647, 4}, {1 << 12, 200},
	} {
		got, err := DimsCreate(tc.n, make([]int, tc.nd))
		if err != nil {
			t.Fatal(err)
		}
		p := 1
		for i, d := range got {
			p *= d
			if i > 0 && d > got[i-1] {
				t.Errorf("DimsCreate(%d, %d dims) = %v is not non-increasing", tc.n, tc.nd, got)
			}
		}
		if p != tc.n {
			t.Errorf("DimsCreate(%d, %d dims): product %d", tc.n, tc.nd, p)
		}
	}
	if got, _ := DimsCreate(1<<20, make([]int, 4)); fmt.Sprint(got) != "[32 32 32 32]" {
		t.Errorf("DimsCreate(2^20, 4 dims) = %v", got)
	}
}
