// Command halo runs a 2-D Jacobi stencil on an nx x ny grid split over a
// 2-D grid of ranks, exchanging one-cell halos with Sendrecv each step. The
// top edge is held at 1, the other edges at 0. Rank 0 gathers the grid and
// prints a checksum that does not depend on the number of ranks.
//
//	go run ./cmd/gompirun -np 4 ./samples/halo -nx 512 -ny 512 -steps 100
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/gompi/gompi/mpi"
)

func main() {
	nx := flag.Int("nx", 256, "grid points in x (columns)")
	ny := flag.Int("ny", 256, "grid points in y (rows)")
	steps := flag.Int("steps", 100, "Jacobi iterations")
	flag.Parse()
	if *nx < 1 || *ny < 1 || *steps < 0 {
		fmt.Fprintln(os.Stderr, "halo: -nx and -ny must be positive, -steps non-negative")
		os.Exit(2)
	}
	mpi.Main(func(c *mpi.Comm) error {
		_, err := run(c, *nx, *ny, *steps, os.Stdout)
		return err
	})
}

// dims2 splits n ranks into a px x py grid as square as possible
// (MPI_Dims_create for two dimensions).
func dims2(n int) (px, py int) {
	px = 1
	for d := 1; d*d <= n; d++ {
		if n%d == 0 {
			px = d
		}
	}
	return n / px, px
}

// span is the part [lo, hi) of n points owned by block i of k.
func span(n, k, i int) (lo, hi int) {
	return i * n / k, (i + 1) * n / k
}

// block is one rank's piece of the grid with a one-cell halo all round.
type block struct {
	c                        *mpi.Comm
	nx, ny                   int // global size
	x0, x1, y0, y1           int // owned global index ranges
	w, h                     int // owned width and height
	north, south, east, west int // neighbour ranks or ProcNull
	u, next                  []float64
}

func newBlock(c *mpi.Comm, nx, ny int) (*block, error) {
	px, py := dims2(c.Size())
	if px > nx || py > ny {
		return nil, fmt.Errorf("halo: %dx%d grid is too small for %dx%d ranks", nx, ny, px, py)
	}
	cx, cy := c.Rank()%px, c.Rank()/px
	b := &block{c: c, nx: nx, ny: ny}
	b.x0, b.x1 = span(nx, px, cx)
	b.y0, b.y1 = span(ny, py, cy)
	b.w, b.h = b.x1-b.x0, b.y1-b.y0
	b.north, b.south, b.east, b.west = mpi.ProcNull, mpi.ProcNull, mpi.ProcNull, mpi.ProcNull
	if cy > 0 {
		b.north = c.Rank() - px
	}
	if cy < py-1 {
		b.south = c.Rank() + px
	}
	if cx > 0 {
		b.west = c.Rank() - 1
	}
	if cx < px-1 {
		b.east = c.Rank() + 1
	}
	b.u = make([]float64, (b.w+2)*(b.h+2))
	b.next = make([]float64, len(b.u))
	b.setBoundary(b.u)
	b.setBoundary(b.next)
	return b, nil
}

func (b *block) at(x, y int) int { return y*(b.w+2) + x } // local coordinates with halo

// setBoundary writes the fixed global edges into the halo cells on the edge
// of the domain: 1 along the top, 0 elsewhere.
func (b *block) setBoundary(u []float64) {
	if b.y0 == 0 {
		for x := 0; x < b.w+2; x++ {
			u[b.at(x, 0)] = 1
		}
	}
}

const (
	tagNS = iota
	tagSN
	tagEW
	tagWE
)

// exchange fills the halo from the four neighbours.
func (b *block) exchange() error {
	c, u, w, h := b.c, b.u, b.w, b.h
	row := func(y int) []float64 { return u[b.at(1, y) : b.at(1, y)+w] }
	// Rows are contiguous: send the first owned row north, receive the south halo.
	if _, err := mpi.Sendrecv(c, row(1), b.north, tagSN, row(h+1), b.south, tagSN); err != nil {
		return err
	}
	if _, err := mpi.Sendrecv(c, row(h), b.south, tagNS, row(0), b.north, tagNS); err != nil {
		return err
	}
	// Columns are strided: pack and unpack.
	out, in := make([]float64, h), make([]float64, h)
	col := func(x int, dst []float64) {
		for y := 0; y < h; y++ {
			dst[y] = u[b.at(x, y+1)]
		}
	}
	put := func(x int, src []float64) {
		for y := 0; y < h; y++ {
			u[b.at(x, y+1)] = src[y]
		}
	}
	col(1, out)
	if _, err := mpi.Sendrecv(c, out, b.west, tagEW, in, b.east, tagEW); err != nil {
		return err
	}
	if b.east != mpi.ProcNull {
		put(w+1, in)
	}
	col(w, out)
	if _, err := mpi.Sendrecv(c, out, b.east, tagWE, in, b.west, tagWE); err != nil {
		return err
	}
	if b.west != mpi.ProcNull {
		put(0, in)
	}
	return nil
}

// step is one Jacobi sweep over the owned cells.
func (b *block) step() {
	u, v, stride := b.u, b.next, b.w+2
	for y := 1; y <= b.h; y++ {
		for x := 1; x <= b.w; x++ {
			i := y*stride + x
			v[i] = 0.25 * (u[i-1] + u[i+1] + u[i-stride] + u[i+stride])
		}
	}
	b.u, b.next = v, u
}

// run iterates and returns the full grid on rank 0 (nil elsewhere).
func run(c *mpi.Comm, nx, ny, steps int, out io.Writer) ([]float64, error) {
	b, err := newBlock(c, nx, ny)
	if err != nil {
		return nil, err
	}
	t0 := c.Wtime()
	for s := 0; s < steps; s++ {
		if err := b.exchange(); err != nil {
			return nil, err
		}
		b.step()
	}
	elapsed := c.Wtime() - t0
	grid, err := b.gather()
	if err != nil || c.Rank() != 0 {
		return nil, err
	}
	sum := 0.0
	for _, v := range grid {
		sum += v
	}
	fmt.Fprintf(out, "halo: %dx%d grid, %d steps, %d ranks: checksum %.12e, %.6f s\n", nx, ny, steps, c.Size(), sum, elapsed)
	return grid, nil
}

// gather collects the owned blocks on rank 0 in global row-major order.
func (b *block) gather() ([]float64, error) {
	c := b.c
	mine := make([]float64, 0, b.w*b.h+4)
	mine = append(mine, float64(b.x0), float64(b.x1), float64(b.y0), float64(b.y1))
	for y := 1; y <= b.h; y++ {
		mine = append(mine, b.u[b.at(1, y):b.at(1, y)+b.w]...)
	}
	if c.Rank() != 0 {
		return nil, mpi.Send(c, mine, 0, 99)
	}
	grid := make([]float64, b.nx*b.ny)
	place := func(m []float64) {
		x0, x1, y0, y1 := int(m[0]), int(m[1]), int(m[2]), int(m[3])
		w := x1 - x0
		for y := y0; y < y1; y++ {
			copy(grid[y*b.nx+x0:y*b.nx+x1], m[4+(y-y0)*w:])
		}
	}
	place(mine)
	for r := 1; r < c.Size(); r++ {
		st, err := c.Probe(r, 99)
		if err != nil {
			return nil, err
		}
		m := make([]float64, mpi.Count[float64](st))
		if _, err := mpi.Recv(c, m, r, 99); err != nil {
			return nil, err
		}
		place(m)
	}
	return grid, nil
}
