package main

import "github.com/gompi/gompi/mpi"

// The halo exchange of the reference (comm3, comm3_ex and their helpers
// ready/give3/take3). For each axis in turn a rank posts receives from both
// neighbours into full-size buffers (ready), sends its two boundary planes
// with blocking sends (give3), and waits and unpacks (take3); axes go one
// after the other so that edges and corners propagate. buff[0..3] are the
// reference's buff(:,1..4): give3 packs into buff(2+dir), ready receives into
// buff(3+dir).

// buffID returns the index in s.buff of the reference's buff(:, id).
func buffID(id int) int { return id - 1 }

// comm3 refreshes the ghost planes of u, a level-kk block of n1 x n2 x n3.
func (s *mgState) comm3(u []float64, n1, n2, n3, kk int) error {
	if s.dead[kk] {
		zero3(u, n1, n2, n3)
		return nil
	}
	for axis := 0; axis < 3; axis++ {
		if s.nprocs == 1 {
			s.comm1p(axis, u, n1, n2, n3)
			continue
		}
		if err := s.ready(axis, -1, kk); err != nil {
			return err
		}
		if err := s.ready(axis, +1, kk); err != nil {
			return err
		}
		if err := s.give3(axis, +1, u, n1, n2, n3, kk); err != nil {
			return err
		}
		if err := s.give3(axis, -1, u, n1, n2, n3, kk); err != nil {
			return err
		}
		if err := s.take3(axis, -1, u, n1, n2, n3); err != nil {
			return err
		}
		if err := s.take3(axis, +1, u, n1, n2, n3); err != nil {
			return err
		}
	}
	return nil
}

// comm3Ex is the exchange after interp: ranks next to a dead neighbour send
// or receive two extra planes so the dead rank's part is covered.
func (s *mgState) comm3Ex(u []float64, n1, n2, n3, kk int) error {
	for axis := 0; axis < 3; axis++ {
		if s.nprocs == 1 {
			s.comm1pEx(axis, u, n1, n2, n3, kk)
			continue
		}
		if s.takeEx[axis][kk] {
			if err := s.ready(axis, -1, kk); err != nil {
				return err
			}
			if err := s.ready(axis, +1, kk); err != nil {
				return err
			}
			if err := s.take3Ex(axis, -1, u, n1, n2, n3); err != nil {
				return err
			}
			if err := s.take3Ex(axis, +1, u, n1, n2, n3); err != nil {
				return err
			}
		}
		if s.giveEx[axis][kk] {
			if err := s.give3Ex(axis, +1, u, n1, n2, n3, kk); err != nil {
				return err
			}
			if err := s.give3Ex(axis, -1, u, n1, n2, n3, kk); err != nil {
				return err
			}
		}
	}
	return nil
}

// ready posts the receive for the message travelling in direction dir
// along axis, into buff(3+dir), which it clears first.
func (s *mgState) ready(axis, dir, k int) error {
	buf := s.buff[buffID(3+dir)]
	clear(buf)
	s.t.start(tComm3)
	q, err := mpi.Irecv(s.comm, buf, s.nbr[axis][dirIndex(-dir)][k], s.msgType[axis][dirIndex(dir)])
	s.t.stop(tComm3)
	s.msgID[axis][dirIndex(dir)] = q
	return err
}

// send ships buff(2+dir)[:n] to the neighbour in direction dir.
func (s *mgState) send(axis, dir, n, k int) error {
	s.t.start(tComm3)
	err := mpi.Send(s.comm, s.buff[buffID(2+dir)][:n], s.nbr[axis][dirIndex(dir)][k], s.msgType[axis][dirIndex(dir)])
	s.t.stop(tComm3)
	return err
}

// wait completes the receive posted by ready(axis, dir).
func (s *mgState) wait(axis, dir int) error {
	s.t.start(tComm3)
	q := s.msgID[axis][dirIndex(dir)]
	s.msgID[axis][dirIndex(dir)] = nil
	_, err := q.Wait()
	s.t.stop(tComm3)
	return err
}

// give3 sends the interior plane next to the face in direction dir.
func (s *mgState) give3(axis, dir int, u []float64, n1, n2, n3, k int) error {
	n := s.packFace(axis, dir, u, n1, n2, n3, s.buff[buffID(2+dir)])
	return s.send(axis, dir, n, k)
}

// take3 waits for the plane arriving in direction dir and stores it in
// the ghost plane on the opposite face.
func (s *mgState) take3(axis, dir int, u []float64, n1, n2, n3 int) error {
	if err := s.wait(axis, dir); err != nil {
		return err
	}
	unpackFace(axis, dir, u, n1, n2, n3, s.buff[buffID(3+dir)])
	return nil
}

// packFace copies, for give3, the plane 2 (dir -1) or n-1 (dir +1) of
// axis into buf, in the reference's order: along axis 1 only the interior
// (2..n2-1, 2..n3-1), along axis 2 all of i1 and the interior of i3, along
// axis 3 everything. It returns the number of values packed.
func (s *mgState) packFace(axis, dir int, u []float64, n1, n2, n3 int, buf []float64) int {
	n := 0
	switch axis {
	case 0:
		i1 := 1
		if dir == +1 {
			i1 = n1 - 2
		}
		for i3 := 1; i3 < n3-1; i3++ {
			for i2 := 1; i2 < n2-1; i2++ {
				buf[n] = u[i1+n1*(i2+n2*i3)]
				n++
			}
		}
	case 1:
		i2 := 1
		if dir == +1 {
			i2 = n2 - 2
		}
		for i3 := 1; i3 < n3-1; i3++ {
			o := n1 * (i2 + n2*i3)
			n += copy(buf[n:n+n1], u[o:o+n1])
		}
	case 2:
		i3 := 1
		if dir == +1 {
			i3 = n3 - 2
		}
		o := n1 * n2 * i3
		n += copy(buf[:n1*n2], u[o:o+n1*n2])
	}
	return n
}

// unpackFace stores buf, as packed by packFace on the sending neighbour,
// into the ghost plane n (dir -1) or 1 (dir +1).
func unpackFace(axis, dir int, u []float64, n1, n2, n3 int, buf []float64) {
	n := 0
	switch axis {
	case 0:
		i1 := n1 - 1
		if dir == +1 {
			i1 = 0
		}
		for i3 := 1; i3 < n3-1; i3++ {
			for i2 := 1; i2 < n2-1; i2++ {
				u[i1+n1*(i2+n2*i3)] = buf[n]
				n++
			}
		}
	case 1:
		i2 := n2 - 1
		if dir == +1 {
			i2 = 0
		}
		for i3 := 1; i3 < n3-1; i3++ {
			o := n1 * (i2 + n2*i3)
			n += copy(u[o:o+n1], buf[n:n+n1])
		}
	case 2:
		i3 := n3 - 1
		if dir == +1 {
			i3 = 0
		}
		o := n1 * n2 * i3
		copy(u[o:o+n1*n2], buf[:n1*n2])
	}
}

// give3Ex sends, for comm3_ex, plane 2 (dir -1) or the two planes n-1, n
// (dir +1), whole (ghosts included).
func (s *mgState) give3Ex(axis, dir int, u []float64, n1, n2, n3, k int) error {
	n := packFaceEx(axis, dir, u, n1, n2, n3, s.buff[buffID(2+dir)])
	return s.send(axis, dir, n, k)
}

// take3Ex stores what give3Ex sent: one plane into plane n (dir -1), or two
// planes into planes 1, 2 (dir +1).
func (s *mgState) take3Ex(axis, dir int, u []float64, n1, n2, n3 int) error {
	if err := s.wait(axis, dir); err != nil {
		return err
	}
	unpackFaceEx(axis, dir, u, n1, n2, n3, s.buff[buffID(3+dir)])
	return nil
}

// exPlanes returns the 0-based first plane and the number of planes that
// give3_ex packs (give) or take3_ex fills (!give) along an axis of extent n.
func exPlanes(dir, n int, give bool) (first, count int) {
	switch {
	case give && dir == -1:
		return 1, 1
	case give:
		return n - 2, 2
	case dir == -1:
		return n - 1, 1
	default:
		return 0, 2
	}
}

func packFaceEx(axis, dir int, u []float64, n1, n2, n3 int, buf []float64) int {
	return moveFaceEx(axis, dir, u, n1, n2, n3, buf, true)
}

func unpackFaceEx(axis, dir int, u []float64, n1, n2, n3 int, buf []float64) {
	moveFaceEx(axis, dir, u, n1, n2, n3, buf, false)
}

// moveFaceEx packs (give) or unpacks the whole planes of comm3_ex, in the
// reference's order (the selected index innermost within each i3, i2 pass).
func moveFaceEx(axis, dir int, u []float64, n1, n2, n3 int, buf []float64, give bool) int {
	var first, count int
	n := 0
	mv := func(idx int) {
		if give {
			buf[n] = u[idx]
		} else {
			u[idx] = buf[n]
		}
		n++
	}
	switch axis {
	case 0:
		first, count = exPlanes(dir, n1, give)
		for i3 := 0; i3 < n3; i3++ {
			for i2 := 0; i2 < n2; i2++ {
				for i1 := first; i1 < first+count; i1++ {
					mv(i1 + n1*(i2+n2*i3))
				}
			}
		}
	case 1:
		first, count = exPlanes(dir, n2, give)
		for i3 := 0; i3 < n3; i3++ {
			for i2 := first; i2 < first+count; i2++ {
				for i1 := 0; i1 < n1; i1++ {
					mv(i1 + n1*(i2+n2*i3))
				}
			}
		}
	case 2:
		first, count = exPlanes(dir, n3, give)
		for i3 := first; i3 < first+count; i3++ {
			for i2 := 0; i2 < n2; i2++ {
				for i1 := 0; i1 < n1; i1++ {
					mv(i1 + n1*(i2+n2*i3))
				}
			}
		}
	}
	return n
}

// comm1p is comm3 on a single rank: the periodic wrap of one axis, done
// through the same buffers as the exchange.
func (s *mgState) comm1p(axis int, u []float64, n1, n2, n3 int) {
	clear(s.buff[buffID(2)])
	clear(s.buff[buffID(4)])
	nPlus := s.packFace(axis, +1, u, n1, n2, n3, s.buff[buffID(3)])
	nMinus := s.packFace(axis, -1, u, n1, n2, n3, s.buff[buffID(1)])
	copy(s.buff[buffID(4)], s.buff[buffID(3)][:nPlus])
	copy(s.buff[buffID(2)], s.buff[buffID(1)][:nMinus])
	unpackFace(axis, -1, u, n1, n2, n3, s.buff[buffID(2)])
	unpackFace(axis, +1, u, n1, n2, n3, s.buff[buffID(4)])
}

// comm1pEx is comm3_ex on a single rank. With one rank no level is dead,
// so take_ex and give_ex are never set; it is kept for fidelity.
func (s *mgState) comm1pEx(axis int, u []float64, n1, n2, n3, kk int) {
	if s.takeEx[axis][kk] {
		clear(s.buff[buffID(2)])
		clear(s.buff[buffID(4)])
		unpackFaceEx(axis, -1, u, n1, n2, n3, s.buff[buffID(2)])
		unpackFaceEx(axis, +1, u, n1, n2, n3, s.buff[buffID(4)])
	}
	if s.giveEx[axis][kk] {
		nPlus := packFaceEx(axis, +1, u, n1, n2, n3, s.buff[buffID(3)])
		nMinus := packFaceEx(axis, -1, u, n1, n2, n3, s.buff[buffID(1)])
		copy(s.buff[buffID(4)], s.buff[buffID(3)][:nPlus])
		copy(s.buff[buffID(2)], s.buff[buffID(1)][:nMinus])
	}
}
