package main

import (
	"fmt"
	"math"

	"github.com/gompi/gompi/npb-go/internal/npb"
)

// matrix is a rank's block of the CG matrix in compressed rows: row j's
// entries are a[rowstr[j]:rowstr[j+1]], with 0-based local column indices.
type matrix struct {
	rowstr []int
	colidx []int32
	a      []float64
}

// generator is the reference's random state for matrix generation
// (cg_data's tran and amult) plus sprnvc's scratch.
type generator struct {
	tran, amult float64
	mark        []bool // indexed by 1-based column
	nzloc       []int
}

// makea builds this rank's block of the random sparse symmetric matrix:
// the sum of n outer products of random sparse vectors, geometrically
// scaled so its condition number is about 1/rcond, minus shift on the
// diagonal (cg.f makea). The element order, and so every rounding, is the
// reference's, which the verification value depends on.
func makea(n, nonzer int, rcond, shift float64, g *grid, gen *generator) (*matrix, error) {
	firstRow, lastRow, firstCol, lastCol := g.firstRow, g.lastRow, g.firstCol, g.lastCol
	// The reference's bound on this rank's element count.
	naz := int64(n)*int64(nonzer+1)/int64(g.nprocs)*int64(nonzer+1) + int64(nonzer) +
		int64(n)*int64(nonzer+2+g.nprocs/256)/int64(g.npcols)
	if naz > math.MaxInt32 {
		return nil, fmt.Errorf("cg: matrix too large for %d processes: %d elements per rank", g.nprocs, naz)
	}
	nz := int(naz)
	arow := make([]int32, 0, nz)
	acol := make([]int32, 0, nz)
	aelt := make([]float64, 0, nz)

	v := make([]float64, nonzer+1)
	iv := make([]int, nonzer+1)
	gen.mark = make([]bool, n+1)
	gen.nzloc = make([]int, 0, nonzer)

	size := 1.0
	ratio := math.Pow(rcond, 1/float64(n))
	for iouter := 1; iouter <= n; iouter++ {
		nzv := gen.sprnvc(n, nonzer, v, iv)
		nzv = vecset(v, iv, nzv, iouter, 0.5)
		for ivelt := 0; ivelt < nzv; ivelt++ {
			jcol := iv[ivelt]
			if jcol < firstCol || jcol > lastCol {
				continue
			}
			scale := size * v[ivelt]
			for ivelt1 := 0; ivelt1 < nzv; ivelt1++ {
				irow := iv[ivelt1]
				if irow >= firstRow && irow <= lastRow {
					if len(aelt) >= nz {
						return nil, fmt.Errorf("cg: space for matrix elements exceeded in makea: %d > %d", len(aelt)+1, nz)
					}
					acol = append(acol, int32(jcol))
					arow = append(arow, int32(irow))
					aelt = append(aelt, v[ivelt1]*scale)
				}
			}
		}
		size *= ratio
	}
	for i := firstRow; i <= lastRow; i++ {
		if i >= firstCol && i <= lastCol {
			if len(aelt) >= nz {
				return nil, fmt.Errorf("cg: space for matrix elements exceeded in makea: %d > %d", len(aelt)+1, nz)
			}
			acol = append(acol, int32(i))
			arow = append(arow, int32(i))
			aelt = append(aelt, rcond-shift)
		}
	}
	return sparse(n, firstRow, lastRow, firstCol, arow, acol, aelt), nil
}

// sparse turns the element list into compressed rows, summing duplicate
// entries of a row in their order of generation (cg.f sparse), and makes
// column indices local to the rank's first column.
func sparse(n, firstRow, lastRow, firstCol int, arow, acol []int32, aelt []float64) *matrix {
	nrows := lastRow - firstRow + 1
	nnza := len(aelt)
	rowstr := make([]int, nrows+1)
	// Count per row, then prefix sums give each row's start.
	for _, r := range arow {
		rowstr[int(r)-firstRow+1]++
	}
	for j := 1; j <= nrows; j++ {
		rowstr[j] += rowstr[j-1]
	}
	a := make([]float64, nnza)
	colidx := make([]int32, nnza)
	next := append([]int(nil), rowstr[:nrows]...)
	for k, r := range arow {
		j := int(r) - firstRow
		a[next[j]] = aelt[k]
		colidx[next[j]] = acol[k]
		next[j]++
	}

	// Sum duplicates row by row, compacting in place.
	x := make([]float64, n+1)
	mark := make([]bool, n+1)
	nzloc := make([]int32, 0, 64)
	nza := 0
	start := rowstr[0]
	for j := 0; j < nrows; j++ {
		nzloc = nzloc[:0]
		end := rowstr[j+1]
		for k := start; k < end; k++ {
			i := colidx[k]
			x[i] += a[k]
			if !mark[i] && x[i] != 0 {
				mark[i] = true
				nzloc = append(nzloc, i)
			}
		}
		for _, i := range nzloc {
			mark[i] = false
			xi := x[i]
			x[i] = 0
			if xi != 0 {
				a[nza] = xi
				colidx[nza] = i
				nza++
			}
		}
		start = end
		rowstr[j+1] = nza
	}
	rowstr[0] = 0
	a, colidx = a[:nza], colidx[:nza]
	for k := range colidx {
		colidx[k] -= int32(firstCol)
	}
	return &matrix{rowstr: rowstr, colidx: colidx, a: a}
}

// sprnvc makes a sparse vector of nz distinct random 1-based positions in
// 1..n with random values, into v and iv; it returns nz.
func (gen *generator) sprnvc(n, nz int, v []float64, iv []int) int {
	nn1 := 1
	for {
		nn1 *= 2
		if nn1 >= n {
			break
		}
	}
	nzv := 0
	gen.nzloc = gen.nzloc[:0]
	for nzv < nz {
		vecelt := npb.Randlc(&gen.tran, gen.amult)
		vecloc := npb.Randlc(&gen.tran, gen.amult)
		i := int(float64(nn1)*vecloc) + 1
		if i > n || gen.mark[i] {
			continue
		}
		gen.mark[i] = true
		gen.nzloc = append(gen.nzloc, i)
		v[nzv] = vecelt
		iv[nzv] = i
		nzv++
	}
	for _, i := range gen.nzloc {
		gen.mark[i] = false
	}
	return nzv
}

// vecset sets the element at position i to val, appending it if absent.
func vecset(v []float64, iv []int, nzv, i int, val float64) int {
	set := false
	for k := 0; k < nzv; k++ {
		if iv[k] == i {
			v[k] = val
			set = true
		}
	}
	if !set {
		v[nzv] = val
		iv[nzv] = i
		nzv++
	}
	return nzv
}
