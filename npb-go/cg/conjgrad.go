package main

import (
	"math"

	"github.com/gompi/gompi/mpi"
	"github.com/gompi/gompi/npb-go/internal/npb"
)

const cgitmax = 25

// solver is one rank's CG state: its grid place, matrix block and vectors
// (each naa+2 long, as in the reference).
type solver struct {
	c *mpi.Comm
	g *grid
	m *matrix

	x, z, p, q, r, w []float64
	naa              int

	one, peer []float64 // 1- and 2-element message buffers
	two, two2 []float64

	timeron bool
	tm      *npb.Timers
}

// Timer indices (cg.f module timing: t_total, t_conjg, t_rcomm, t_ncomm).
const (
	tTotal = iota
	tConjg
	tRcomm
	tNcomm
	tLast
)

// start and stop time a phase when the timer breakdown is on.
func (s *solver) start(i int) {
	if s.timeron {
		s.tm.Start(i)
	}
}

func (s *solver) stop(i int) {
	if s.timeron {
		s.tm.Stop(i)
	}
}

func newSolver(c *mpi.Comm, g *grid, m *matrix, na int) *solver {
	naa := na / g.nprows
	v := func() []float64 { return make([]float64, naa+2) }
	return &solver{c: c, g: g, m: m, naa: naa,
		x: v(), z: v(), p: v(), q: v(), r: v(), w: v(),
		one: make([]float64, 1), peer: make([]float64, 1),
		two: make([]float64, 2), two2: make([]float64, 2),
		tm: npb.NewTimers(c, tLast)}
}

// rowSum adds vals across the ranks of this rank's process row by
// recursive doubling (the reference's explicit exchange loop), in place,
// charging the time to timer.
func (s *solver) rowSum(vals, tmp []float64, timer int) error {
	s.start(timer)
	defer s.stop(timer)
	g := s.g
	for i := 1; i <= g.l2npcols; i++ {
		q, err := mpi.Irecv(s.c, tmp, g.reduceExchProc[i], i)
		if err != nil {
			return err
		}
		if err := mpi.Send(s.c, vals, g.reduceExchProc[i], i); err != nil {
			return err
		}
		if _, err := q.Wait(); err != nil {
			return err
		}
		for k := range vals {
			vals[k] += tmp[k]
		}
	}
	return nil
}

func (s *solver) rowSum1(v float64) (float64, error) {
	s.one[0] = v
	err := s.rowSum(s.one, s.peer, tRcomm)
	return s.one[0], err
}

// matvec computes w = A*v on the rank's block, sums the partial products
// across the process row, and leaves in out this rank's column slice of
// the product (via the transpose exchange).
func (s *solver) matvec(v, out []float64) error {
	g, m := s.g, s.m
	rows := g.lastRow - g.firstRow + 1
	w := s.w
	rowstr, colidx, a := m.rowstr, m.colidx, m.a
	for j := 0; j < rows; j++ {
		lo, hi := rowstr[j], rowstr[j+1]
		cols := colidx[lo:hi]
		vals := a[lo:hi]
		vals = vals[:len(cols)]
		sum := 0.0
		for k, c := range cols {
			sum += vals[k] * v[c]
		}
		w[j] = sum
	}
	s.start(tRcomm)
	defer s.stop(tRcomm)
	for i := g.l2npcols; i >= 1; i-- {
		rs, rl := g.reduceRecvStarts[i], g.reduceRecvLengths[i]
		ss, sl := g.reduceSendStarts[i], g.reduceSendLengths[i]
		q, err := mpi.Irecv(s.c, out[rs:rs+rl], g.reduceExchProc[i], i)
		if err != nil {
			return err
		}
		if err := mpi.Send(s.c, w[ss:ss+sl], g.reduceExchProc[i], i); err != nil {
			return err
		}
		if _, err := q.Wait(); err != nil {
			return err
		}
		for j := g.sendStart; j < g.sendStart+rl; j++ {
			w[j] += out[j]
		}
	}
	if g.l2npcols != 0 {
		q, err := mpi.Irecv(s.c, out[:g.exchRecvLength], g.exchProc, 1)
		if err != nil {
			return err
		}
		if err := mpi.Send(s.c, w[g.sendStart:g.sendStart+g.sendLen], g.exchProc, 1); err != nil {
			return err
		}
		if _, err := q.Wait(); err != nil {
			return err
		}
	} else {
		copy(out[:g.exchRecvLength], w[:g.exchRecvLength])
	}
	return nil
}

// conjGrad runs cgitmax CG iterations on A z = x and returns ||x - A z||
// (meaningful on every rank; the reference keeps it on the root only).
func (s *solver) conjGrad() (float64, error) {
	s.start(tConjg)
	defer s.stop(tConjg)
	g := s.g
	x, z, p, q, r, w := s.x, s.z, s.p, s.q, s.r, s.w
	ncols := g.lastCol - g.firstCol + 1
	rows := g.lastRow - g.firstRow + 1
	for j := 0; j < s.naa+1; j++ {
		q[j] = 0
		z[j] = 0
		r[j] = x[j]
		p[j] = r[j]
		w[j] = 0
	}
	xc, zc, pc, qc, rc := x[:ncols], z[:ncols], p[:ncols], q[:ncols], r[:ncols]

	sum := 0.0
	for _, v := range rc {
		sum += v * v
	}
	rho, err := s.rowSum1(sum)
	if err != nil {
		return 0, err
	}

	for cgit := 1; cgit <= cgitmax; cgit++ {
		// q = A p
		if err := s.matvec(p, q); err != nil {
			return 0, err
		}
		clear(w[:max(rows, ncols)])

		sum = 0
		for j, v := range pc {
			sum += v * qc[j]
		}
		d, err := s.rowSum1(sum)
		if err != nil {
			return 0, err
		}
		alpha := rho / d
		rho0 := rho
		for j, v := range pc {
			zc[j] += alpha * v
			rc[j] -= alpha * qc[j]
		}
		sum = 0
		for _, v := range rc {
			sum += v * v
		}
		if rho, err = s.rowSum1(sum); err != nil {
			return 0, err
		}
		beta := rho / rho0
		for j, v := range rc {
			pc[j] = v + beta*pc[j]
		}
	}

	// r = A z, then the residual norm ||x - r||.
	if err := s.matvec(z, r); err != nil {
		return 0, err
	}
	sum = 0
	for j, v := range xc {
		d := v - rc[j]
		sum += d * d
	}
	d, err := s.rowSum1(sum)
	if err != nil {
		return 0, err
	}
	return math.Sqrt(d), nil
}
