package main

// setup is the reference's subroutine setup: the process grid, the size of
// every level's local block (with its two ghost planes per axis), the
// neighbours at every level, and which levels are "dead" (a rank that holds
// no interior point at a coarse level) or must exchange extra planes
// (give_ex/take_ex) because a neighbour is dead.
func (s *mgState) setup() {
	lt := s.lt
	for j := -1; j <= 1; j++ {
		for d := 0; d < 3; d++ {
			s.msgType[d][dirIndex(j)] = 100 * (j + 2 + 10*(d+1))
		}
	}

	var ng [3][]int
	for ax := range ng {
		ng[ax] = make([]int, lt+1)
	}
	ng[0][lt], ng[1][lt], ng[2][lt] = s.nx[lt], s.ny[lt], s.nz[lt]
	next := [3]int{1, 1, 1}
	for ax := 0; ax < 3; ax++ {
		for k := lt - 1; k >= 1; k-- {
			ng[ax][k] = ng[ax][k+1] / 2
		}
	}
	for k := lt; k >= 1; k-- {
		s.nx[k], s.ny[k], s.nz[k] = ng[0][k], ng[1][k], ng[2][k]
	}

	// The process grid: pi(1) x pi(2) x pi(3), x varying fastest.
	logp := ilog2(s.nprocs)
	var pi, idi [3]int
	dx := logp / 3
	pi[0] = 1 << dx
	idi[0] = s.me % pi[0]
	dy := (logp - dx) / 2
	pi[1] = 1 << dy
	idi[1] = (s.me / pi[0]) % pi[1]
	pi[2] = s.nprocs / (pi[0] * pi[1])
	idi[2] = s.me / (pi[0] * pi[1])

	var mi, mip [3]int
	for k := lt; k >= 1; k-- {
		s.dead[k] = false
		for ax := 0; ax < 3; ax++ {
			s.takeEx[ax][k] = false
			s.giveEx[ax][k] = false
			mi[ax] = 2 + ((idi[ax]+1)*ng[ax][k])/pi[ax] - ((idi[ax]+0)*ng[ax][k])/pi[ax]
			mip[ax] = 2 + ((next[ax]+idi[ax]+1)*ng[ax][k])/pi[ax] - ((next[ax]+idi[ax]+0)*ng[ax][k])/pi[ax]
			if mip[ax] == 2 || mi[ax] == 2 {
				next[ax] = 2 * next[ax]
			}
			if k+1 <= lt {
				if mip[ax] == 2 && mi[ax] == 3 {
					s.giveEx[ax][k+1] = true
				}
				if mip[ax] == 3 && mi[ax] == 2 {
					s.takeEx[ax][k+1] = true
				}
			}
		}
		if mi[0] == 2 || mi[1] == 2 || mi[2] == 2 {
			s.dead[k] = true
		}
		s.m1[k], s.m2[k], s.m3[k] = mi[0], mi[1], mi[2]

		var idin [3][2]int
		for ax := 0; ax < 3; ax++ {
			idin[ax][dirIndex(+1)] = (idi[ax] + next[ax] + pi[ax]) % pi[ax]
			idin[ax][dirIndex(-1)] = (idi[ax] - next[ax] + pi[ax]) % pi[ax]
		}
		for _, dir := range [2]int{1, -1} {
			d := dirIndex(dir)
			s.nbr[0][d][k] = idin[0][d] + pi[0]*(idi[1]+pi[1]*idi[2])
			s.nbr[1][d][k] = idi[0] + pi[0]*(idin[1][d]+pi[1]*idi[2])
			s.nbr[2][d][k] = idi[0] + pi[0]*(idi[1]+pi[1]*idin[2][d])
		}
	}

	// This rank's part of the finest grid, in global 1-based indices.
	k := lt
	s.is1 = 2 + ng[0][k] - ((pi[0]-idi[0])*ng[0][lt])/pi[0]
	s.ie1 = 1 + ng[0][k] - ((pi[0]-1-idi[0])*ng[0][lt])/pi[0]
	s.n1 = 3 + s.ie1 - s.is1
	s.is2 = 2 + ng[1][k] - ((pi[1]-idi[1])*ng[1][lt])/pi[1]
	s.ie2 = 1 + ng[1][k] - ((pi[1]-1-idi[1])*ng[1][lt])/pi[1]
	s.n2 = 3 + s.ie2 - s.is2
	s.is3 = 2 + ng[2][k] - ((pi[2]-idi[2])*ng[2][lt])/pi[2]
	s.ie3 = 1 + ng[2][k] - ((pi[2]-1-idi[2])*ng[2][lt])/pi[2]
	s.n3 = 3 + s.ie3 - s.is3

	// Offsets of every level's block in u and r (0-based; the finest first).
	s.ir[lt] = 0
	for j := lt - 1; j >= 1; j-- {
		s.ir[j] = s.ir[j+1] + s.m1[j+1]*s.m2[j+1]*s.m3[j+1]
	}
}

// dirIndex maps a direction -1/+1 to an array index 0/1.
func dirIndex(dir int) int { return (dir + 1) / 2 }

// ilog2 is the reference's ilog2: the smallest l with 2**l >= n.
func ilog2(n int) int {
	l := 0
	for 1<<l < n {
		l++
	}
	return l
}
