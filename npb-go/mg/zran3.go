package main

import (
	"github.com/gompi/gompi/mpi"
	"github.com/gompi/gompi/npb-go/internal/npb"
)

// zran3 fills the finest-level right-hand side v the reference's way: the
// NPB generator fills the grid with uniform numbers (each rank jumping to
// its own part of the global sequence), then the ten largest points become
// +1, the ten smallest -1, and everything else 0. The global ten are found
// by one Allreduce per rank-in-the-list, as in the reference.
func (s *mgState) zran3(z []float64, n1, n2, n3, nx, ny, k int) error {
	const (
		mm = 10
		a  = 1220703125.0 // 5**13
		x  = 314159265.0
	)
	a1 := npb.Pow46(a, int64(nx)) // the reference's power(a, n1, n2, n3) = a^(n1*n2+n3)
	a2 := npb.Pow46(a, int64(nx)*int64(ny))
	zero3(z, n1, n2, n3)
	ai := npb.Pow46(a, int64(nx)*int64(s.is2-2+ny*(s.is3-2))+int64(s.is1-2))
	d1 := s.ie1 - s.is1 + 1
	e2 := s.ie2 - s.is2 + 2
	e3 := s.ie3 - s.is3 + 2
	x0 := x
	npb.Randlc(&x0, ai)
	for i3 := 1; i3 < e3; i3++ {
		x1 := x0
		for i2 := 1; i2 < e2; i2++ {
			xx := x1
			o := 1 + n1*(i2+n2*i3)
			npb.VranlcI8(d1, &xx, a, z[o:o+d1]) // randi8's form: same numbers, faster
			npb.Randlc(&x1, a1)
		}
		npb.Randlc(&x0, a2)
	}

	// ten[1] holds the mm largest values in ascending order (smallest of
	// them first), ten[0] the mm smallest in descending order; j1..j3 are
	// their 0-based local indices.
	var ten [2][mm]float64
	var j1, j2, j3 [2][mm]int
	for i := 0; i < mm; i++ {
		ten[0][i] = 1
	}
	for i3 := 1; i3 < n3-1; i3++ {
		for i2 := 1; i2 < n2-1; i2++ {
			for i1 := 1; i1 < n1-1; i1++ {
				v := z[i1+n1*(i2+n2*i3)]
				if v > ten[1][0] {
					ten[1][0], j1[1][0], j2[1][0], j3[1][0] = v, i1, i2, i3
					bubble(&ten, &j1, &j2, &j3, 1)
				}
				if v < ten[0][0] {
					ten[0][0], j1[0][0], j2[0][0], j3[0][0] = v, i1, i2, i3
					bubble(&ten, &j1, &j2, &j3, 0)
				}
			}
		}
	}

	if err := s.comm.Barrier(); err != nil {
		return err
	}
	at := func(ind, i int) float64 { return z[j1[ind][i]+n1*(j2[ind][i]+n2*j3[ind][i])] }
	// Walk down each list: every round the globally best remaining value
	// is found; the rank that owns it consumes one entry of its list.
	i1, i0 := mm-1, mm-1
	best, temp := make([]float64, 1), make([]float64, 1)
	jg, jgTemp := make([]int32, 4), make([]int32, 4)
	for i := mm - 1; i >= 0; i-- {
		best[0] = at(1, i1)
		if err := mpi.Allreduce(s.comm, best, temp, mpi.Max); err != nil {
			return err
		}
		if temp[0] == at(1, i1) {
			jg[0], jg[1], jg[2], jg[3] = int32(s.me), int32(s.is1-1+j1[1][i1]), int32(s.is2-1+j2[1][i1]), int32(s.is3-1+j3[1][i1])
			i1--
		} else {
			clear(jg)
		}
		if err := mpi.Allreduce(s.comm, jg, jgTemp, mpi.Max); err != nil {
			return err
		}

		best[0] = at(0, i0)
		if err := mpi.Allreduce(s.comm, best, temp, mpi.Min); err != nil {
			return err
		}
		if temp[0] == at(0, i0) {
			jg[0], jg[1], jg[2], jg[3] = int32(s.me), int32(s.is1-1+j1[0][i0]), int32(s.is2-1+j2[0][i0]), int32(s.is3-1+j3[0][i0])
			i0--
		} else {
			clear(jg)
		}
		if err := mpi.Allreduce(s.comm, jg, jgTemp, mpi.Max); err != nil {
			return err
		}
	}
	m1, m0 := i1+1, i0+1
	if err := s.comm.Barrier(); err != nil {
		return err
	}
	zero3(z, n1, n2, n3)
	for i := mm - 1; i >= m0; i-- {
		z[j1[0][i]+n1*(j2[0][i]+n2*j3[0][i])] = -1
	}
	for i := mm - 1; i >= m1; i-- {
		z[j1[1][i]+n1*(j2[1][i]+n2*j3[1][i])] = +1
	}
	return s.comm3(z, n1, n2, n3, k)
}

// bubble moves the new entry at position 0 of list ind up to its sorted
// place (ascending for ind 1, descending for ind 0).
func bubble(ten *[2][10]float64, j1, j2, j3 *[2][10]int, ind int) {
	for i := 0; i < len(ten[ind])-1; i++ {
		out := ten[ind][i] > ten[ind][i+1]
		if ind == 0 {
			out = ten[ind][i] < ten[ind][i+1]
		}
		if !out {
			return
		}
		ten[ind][i], ten[ind][i+1] = ten[ind][i+1], ten[ind][i]
		j1[ind][i], j1[ind][i+1] = j1[ind][i+1], j1[ind][i]
		j2[ind][i], j2[ind][i+1] = j2[ind][i+1], j2[ind][i]
		j3[ind][i], j3[ind][i+1] = j3[ind][i+1], j3[ind][i]
	}
}
