package main

import (
	"fmt"
	"math/bits"

	"github.com/gompi/gompi/npb-go/internal/npb"
)

// grid is one rank's place in CG's process grid and the communication
// schedule derived from it (cg.f setup_proc_info, setup_submatrix_info).
// Row and column bounds are 1-based and inclusive, as in the reference;
// the start positions are 0-based offsets into the rank's vectors.
type grid struct {
	me, nprocs     int
	npcols, nprows int
	procRow        int
	procCol        int

	firstRow, lastRow int
	firstCol, lastCol int

	exchProc       int // partner for the transpose exchange
	exchRecvLength int
	sendStart      int
	sendLen        int

	// Recursive-halving partners along the row, indexed 1..l2npcols (the
	// index is also the message tag).
	l2npcols          int
	reduceExchProc    []int
	reduceSendStarts  []int
	reduceSendLengths []int
	reduceRecvStarts  []int
	reduceRecvLengths []int
}

// newGrid lays nprocs (a power of two) out as nprows x npcols, npcols
// being equal to nprows or twice it, and computes rank me's part of the
// na x na matrix.
func newGrid(me, nprocs, na int) (*grid, error) {
	if !npb.IsPowerOfTwo(nprocs) {
		return nil, fmt.Errorf("cg: number of processes %d is not a power of two", nprocs)
	}
	logP := bits.Len(uint(nprocs)) - 1
	rowsLog := logP / 2
	colsLog := logP - rowsLog
	g := &grid{me: me, nprocs: nprocs, npcols: 1 << colsLog, nprows: 1 << rowsLog}
	if g.nprows > na {
		return nil, fmt.Errorf("cg: %d processes are too many for a matrix of order %d", nprocs, na)
	}
	g.submatrix(na)
	g.schedule()
	return g, nil
}

func (g *grid) submatrix(na int) {
	npcols, nprows, me := g.npcols, g.nprows, g.me
	g.procRow = me / npcols
	g.procCol = me - g.procRow*npcols
	// split returns the 1-based bounds of part k of n items cut into
	// parts pieces, the first n%parts pieces one longer.
	split := func(k, parts int) (first, last, size int) {
		extra := na - na/parts*parts
		if k < extra {
			size = na/parts + 1
			first = k*size + 1
		} else {
			size = na / parts
			first = extra*(size+1) + (k-extra)*size + 1
		}
		return first, first - 1 + size, size
	}
	if na/npcols*npcols == na {
		colSize := na / npcols
		g.firstCol = g.procCol*colSize + 1
		g.lastCol = g.firstCol - 1 + colSize
		rowSize := na / nprows
		g.firstRow = g.procRow*rowSize + 1
		g.lastRow = g.firstRow - 1 + rowSize
	} else {
		g.firstRow, g.lastRow, _ = split(g.procRow, nprows)
		if npcols == nprows {
			g.firstCol, g.lastCol, _ = split(g.procCol, npcols)
		} else {
			// Two ranks share each of nprows column blocks, halving it.
			var colSize int
			g.firstCol, g.lastCol, colSize = split(g.procCol/2, npcols/2)
			if me%2 == 0 {
				g.lastCol = g.firstCol - 1 + (colSize-1)/2 + 1
			} else {
				g.firstCol = g.firstCol + (colSize-1)/2 + 1
				g.lastCol = g.firstCol - 1 + colSize/2
			}
		}
	}

	rows := g.lastRow - g.firstRow + 1
	if npcols == nprows {
		g.sendStart = 0
		g.sendLen = rows
	} else if me%2 == 0 {
		g.sendStart = 0
		g.sendLen = (1 + rows) / 2
	} else {
		g.sendStart = (1 + rows) / 2
		g.sendLen = rows / 2
	}
	if npcols == nprows {
		g.exchProc = (me%nprows)*nprows + me/nprows
	} else {
		g.exchProc = 2*((me/2%nprows)*nprows+me/2/nprows) + me%2
	}
	g.exchRecvLength = g.lastCol - g.firstCol + 1
}

func (g *grid) schedule() {
	for i := g.npcols / 2; i > 0; i /= 2 {
		g.l2npcols++
	}
	n := g.l2npcols + 1
	g.reduceExchProc = make([]int, n)
	g.reduceSendStarts = make([]int, n)
	g.reduceSendLengths = make([]int, n)
	g.reduceRecvStarts = make([]int, n)
	g.reduceRecvLengths = make([]int, n)
	div := g.npcols
	for i := 1; i <= g.l2npcols; i++ {
		j := (g.procCol+div/2)%div + g.procCol/div*div
		g.reduceExchProc[i] = g.procRow*g.npcols + j
		div /= 2
	}
	rows := g.lastRow - g.firstRow + 1
	for i := g.l2npcols; i >= 1; i-- {
		if g.nprows == g.npcols {
			g.reduceSendStarts[i] = g.sendStart
			g.reduceSendLengths[i] = g.sendLen
			g.reduceRecvLengths[i] = rows
		} else {
			g.reduceRecvLengths[i] = g.sendLen
			if i == g.l2npcols {
				g.reduceSendLengths[i] = rows - g.sendLen
				if g.me/2*2 == g.me {
					g.reduceSendStarts[i] = g.sendStart + g.sendLen
				} else {
					g.reduceSendStarts[i] = 0
				}
			} else {
				g.reduceSendLengths[i] = g.sendLen
				g.reduceSendStarts[i] = g.sendStart
			}
		}
		g.reduceRecvStarts[i] = g.sendStart
	}
}
