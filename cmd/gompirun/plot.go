package main

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/gompi/gompi/mpi"
)

// -plot FILE draws a prediction, as SVG or PNG by FILE's extension: for a
// sweep, predicted time against P on log-log axes beside perfect scaling
// from the smallest P, over the computation / communication / waiting
// shares against P; for one P, each rank's time split the same way, a bar
// per rank (load imbalance shows as uneven bars).

// maxPlotRanks bounds the bars of a one-P plot: past it they are thinner
// than a pixel.
const maxPlotRanks = 4096

// checkPlot validates -plot before the run.
func checkPlot(file string) error {
	switch strings.ToLower(filepath.Ext(file)) {
	case ".svg", ".png":
	default:
		return fmt.Errorf("-plot %s: want a .svg or .png file", file)
	}
	if err := checkWritable(file); err != nil {
		return fmt.Errorf("-plot: %v", err)
	}
	return nil
}

var (
	shareNames  = []string{"computation", "communication", "waiting"}
	shareColors = []color.Color{
		color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
		color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff},
		color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
	}
)

// plotSweep draws a sweep's reports to file.
func plotSweep(file string, reps []mpi.Report) error {
	rows := sweepRows(reps)
	times := plot.New()
	times.Title.Text = fmt.Sprintf("predicted time on %s", reps[0].Machine)
	times.X.Label.Text = "ranks"
	times.Y.Label.Text = "seconds"
	times.X.Scale, times.Y.Scale = plot.LogScale{}, plot.LogScale{}
	times.X.Tick.Marker, times.Y.Tick.Marker = rankTicks(rows), plot.LogTicks{Prec: -1}
	base := rows[0]
	for _, r := range rows {
		if r.ranks < base.ranks {
			base = r
		}
	}
	pred, ideal := make(plotter.XYs, 0, len(rows)), make(plotter.XYs, 0, len(rows))
	for _, r := range sortedRows(rows) {
		if r.predicted <= 0 {
			return errors.New("a predicted time of 0 has no place on a log scale")
		}
		pred = append(pred, plotter.XY{X: float64(r.ranks), Y: r.predicted})
		ideal = append(ideal, plotter.XY{X: float64(r.ranks), Y: base.predicted * float64(base.ranks) / float64(r.ranks)})
	}
	line, points, err := plotter.NewLinePoints(pred)
	if err != nil {
		return err
	}
	perfect, err := plotter.NewLine(ideal)
	if err != nil {
		return err
	}
	perfect.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	times.Add(line, points, perfect)
	times.Legend.Add("predicted", line, points)
	times.Legend.Add("perfect scaling", perfect)
	times.Legend.Top, times.Legend.Left = true, true

	shares := plot.New()
	shares.Title.Text = "where the time goes"
	shares.X.Label.Text = "ranks"
	shares.Y.Label.Text = "share of the ranks' time"
	shares.X.Scale, shares.X.Tick.Marker = plot.LogScale{}, rankTicks(rows)
	shares.Y.Min, shares.Y.Max = 0, 1
	for k, name := range shareNames {
		xy := make(plotter.XYs, 0, len(rows))
		for _, r := range sortedRows(rows) {
			xy = append(xy, plotter.XY{X: float64(r.ranks), Y: [3]float64{r.comp, r.comm, r.wait}[k]})
		}
		l, p, err := plotter.NewLinePoints(xy)
		if err != nil {
			return err
		}
		l.Color, p.Color = shareColors[k], shareColors[k]
		shares.Add(l, p)
		shares.Legend.Add(name, l, p)
	}
	shares.Legend.Top = true
	return savePlots(file, []*plot.Plot{times, shares}, 16*vg.Centimeter, 20*vg.Centimeter)
}

// rankTicks labels the x axis at the sweep's rank counts.
func rankTicks(rows []sweepRow) plot.ConstantTicks {
	var t plot.ConstantTicks
	for _, r := range sortedRows(rows) {
		t = append(t, plot.Tick{Value: float64(r.ranks), Label: strconv.Itoa(r.ranks)})
	}
	return t
}

// sortedRows is rows by rank count, for lines drawn left to right.
func sortedRows(rows []sweepRow) []sweepRow {
	s := slices.Clone(rows)
	slices.SortFunc(s, func(a, b sweepRow) int { return a.ranks - b.ranks })
	return s
}

// plotRanks draws one prediction's per-rank times to file.
func plotRanks(file string, rep *mpi.Report) error {
	if len(rep.PerRank) > maxPlotRanks {
		return fmt.Errorf("%d ranks: a bar each is drawn up to %d ranks (a sweep's plot has no such limit)", len(rep.PerRank), maxPlotRanks)
	}
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%d ranks on %s: predicted %s", rep.Ranks, rep.Machine, seconds(rep.Predicted))
	p.X.Label.Text = "rank"
	p.Y.Label.Text = "seconds"
	width := vg.Length(14*vg.Centimeter) / vg.Length(len(rep.PerRank)+1)
	var below *plotter.BarChart
	for k, name := range shareNames {
		vals := make(plotter.Values, len(rep.PerRank))
		for i, r := range rep.PerRank {
			vals[i] = [3]float64{r.Computation, r.Communication, r.Waiting}[k]
		}
		bars, err := plotter.NewBarChart(vals, width)
		if err != nil {
			return err
		}
		bars.LineStyle.Width = 0
		bars.Color = shareColors[k]
		if below != nil {
			bars.StackOn(below)
		}
		below = bars
		p.Add(bars)
		p.Legend.Add(name, bars)
	}
	p.Legend.Top = true
	if n := len(rep.PerRank); n <= 32 {
		names := make([]string, n)
		for i, r := range rep.PerRank {
			names[i] = strconv.Itoa(r.Rank)
		}
		p.NominalX(names...)
	}
	return savePlots(file, []*plot.Plot{p}, 16*vg.Centimeter, 10*vg.Centimeter)
}

// savePlots draws plots one above the other on a w x h canvas and writes
// it to file in the format its extension names.
func savePlots(file string, plots []*plot.Plot, w, h vg.Length) error {
	var c draw.Canvas
	var out io.WriterTo
	switch strings.ToLower(filepath.Ext(file)) {
	case ".svg":
		s := vgsvg.New(w, h)
		c, out = draw.New(s), s
	case ".png":
		img := vgimg.New(w, h)
		c, out = draw.New(img), vgimg.PngCanvas{Canvas: img}
	default:
		return fmt.Errorf("%s: want a .svg or .png file", file)
	}
	grid := make([][]*plot.Plot, len(plots))
	for i, p := range plots {
		grid[i] = []*plot.Plot{p}
	}
	tiles := draw.Tiles{Rows: len(plots), Cols: 1, PadX: vg.Millimeter, PadY: 4 * vg.Millimeter,
		PadTop: 2 * vg.Millimeter, PadBottom: 2 * vg.Millimeter, PadLeft: 2 * vg.Millimeter, PadRight: 4 * vg.Millimeter}
	for i, cs := range plot.Align(grid, tiles, c) {
		plots[i].Draw(cs[0])
	}
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if _, err := out.WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
