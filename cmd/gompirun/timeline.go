package main

import (
	"fmt"
	"image/color"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/gompi/gompi/mpi"
)

// -timeline FILE draws the traced ranks' timeline as a picture, SVG or PNG
// by FILE's extension, ready for a report: a row per rank, time across,
// the computation, the MPI calls and the waiting inside them in the
// report's colours, and a line for each message from its send to its
// receive. It draws the events -trace writes (with or without -trace), so
// -trace-ranks and -trace-max choose them; a picture stays readable up to
// maxTimelineRanks rows and maxTimelineSpans spans.

const (
	maxTimelineRanks = 64
	maxTimelineSpans = 200000
	// maxTimelineArrows bounds the message lines: past it they hide the
	// spans, and none are drawn.
	maxTimelineArrows = 5000
)

// checkTimeline validates -timeline before the run; traced is the number
// of ranks -trace-ranks selects.
func checkTimeline(file string, traced int) error {
	switch strings.ToLower(filepath.Ext(file)) {
	case ".svg", ".png":
	default:
		return fmt.Errorf("-timeline %s: want a .svg or .png file", file)
	}
	if traced > maxTimelineRanks {
		return fmt.Errorf("-timeline: %d ranks traced, a picture has a row for each of at most %d: choose them with -trace-ranks (such as -trace-ranks 0-15)", traced, maxTimelineRanks)
	}
	if err := checkWritable(file); err != nil {
		return fmt.Errorf("-timeline: %v", err)
	}
	return nil
}

// timeline is the plotter of the spans and message lines.
type timeline struct {
	row              map[int]float64 // rank -> y; rank 0 on top
	spans            []mpi.TraceEvent
	arrows           [][2]mpi.TraceEvent // send end, receive end
	tmin, tmax, rows float64
}

// kindColor is the colour of a span: the report's computation,
// communication (the call) and waiting.
func kindColor(kind string) color.Color {
	switch kind {
	case "compute":
		return shareColors[0]
	case "wait":
		return shareColors[2]
	}
	return shareColors[1]
}

// newTimeline sorts the events into spans and message lines.
func newTimeline(events []mpi.TraceEvent) (*timeline, error) {
	t := &timeline{row: map[int]float64{}}
	ranks := map[int]bool{}
	sends := map[uint64]mpi.TraceEvent{}
	var recvs []mpi.TraceEvent
	first := true
	for _, e := range events {
		ranks[e.Rank] = true
		switch e.Kind {
		case "send":
			sends[e.ID] = e
			continue
		case "recv":
			recvs = append(recvs, e)
			continue
		}
		t.spans = append(t.spans, e)
		if first || e.Start < t.tmin {
			t.tmin = e.Start
		}
		if first || e.End > t.tmax {
			t.tmax = e.End
		}
		first = false
	}
	if len(t.spans) == 0 {
		return nil, fmt.Errorf("no events were recorded")
	}
	if len(t.spans) > maxTimelineSpans {
		return nil, fmt.Errorf("%d spans: a picture is drawn up to %d; trace fewer ranks (-trace-ranks) or fewer events (-trace-max)", len(t.spans), maxTimelineSpans)
	}
	if len(ranks) > maxTimelineRanks {
		return nil, fmt.Errorf("%d ranks: a picture has a row for each of at most %d (-trace-ranks)", len(ranks), maxTimelineRanks)
	}
	order := make([]int, 0, len(ranks))
	for r := range ranks {
		order = append(order, r)
	}
	slices.Sort(order)
	t.rows = float64(len(order))
	for i, r := range order {
		t.row[r] = t.rows - 1 - float64(i)
	}
	for _, r := range recvs {
		if s, ok := sends[r.ID]; ok {
			t.arrows = append(t.arrows, [2]mpi.TraceEvent{s, r})
		}
	}
	if len(t.arrows) > maxTimelineArrows {
		t.arrows = nil
	}
	if t.tmax <= t.tmin {
		t.tmax = t.tmin + 1e-9
	}
	return t, nil
}

// DataRange is the time span and the rows (plot.DataRanger).
func (t *timeline) DataRange() (xmin, xmax, ymin, ymax float64) {
	return t.tmin, t.tmax, -0.5, t.rows - 0.5
}

// Plot draws the spans, calls below the waits inside them, then the
// message lines (plot.Plotter).
func (t *timeline) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	rect := func(e mpi.TraceEvent, half float64) {
		y := t.row[e.Rank]
		x0, x1 := trX(e.Start), trX(e.End)
		if x1-x0 < vg.Length(0.2) {
			x1 = x0 + 0.2 // a span shorter than the line width still shows
		}
		y0, y1 := trY(y-half), trY(y+half)
		c.FillPolygon(kindColor(e.Kind), []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}})
	}
	for _, e := range t.spans {
		if e.Kind != "wait" {
			rect(e, 0.35)
		}
	}
	for _, e := range t.spans {
		if e.Kind == "wait" {
			rect(e, 0.2)
		}
	}
	line := draw.LineStyle{Color: color.Gray{Y: 0x40}, Width: vg.Points(0.4)}
	for _, a := range t.arrows {
		from := vg.Point{X: trX(a[0].Start), Y: trY(t.row[a[0].Rank])}
		to := vg.Point{X: trX(a[1].Start), Y: trY(t.row[a[1].Rank])}
		c.StrokeLine2(line, from.X, from.Y, to.X, to.Y)
	}
}

// swatch is a legend entry's coloured box (plot.Thumbnailer).
type swatch struct{ c color.Color }

func (s swatch) Thumbnail(c *draw.Canvas) {
	r := c.Rectangle
	c.FillPolygon(s.c, []vg.Point{r.Min, {X: r.Max.X, Y: r.Min.Y}, r.Max, {X: r.Min.X, Y: r.Max.Y}})
}

// plotTimeline draws events to file; clock names the time axis.
func plotTimeline(file string, events []mpi.TraceEvent, title, clock string) error {
	t, err := newTimeline(events)
	if err != nil {
		return err
	}
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = clock
	p.Add(t)
	var ticks plot.ConstantTicks
	for r, y := range t.row {
		ticks = append(ticks, plot.Tick{Value: y, Label: "rank " + strconv.Itoa(r)})
	}
	p.Y.Tick.Marker = ticks
	// An empty band above rank 0 holds the legend.
	const legendRows = 2.5
	p.Y.Min, p.Y.Max = -0.5, t.rows-0.5+legendRows
	for k, name := range []string{"computation", "MPI call", "waiting"} {
		p.Legend.Add(name, swatch{[]color.Color{shareColors[0], shareColors[1], shareColors[2]}[k]})
	}
	p.Legend.Top = true
	h := vg.Length(3*vg.Centimeter) + vg.Length(t.rows+legendRows)*6*vg.Millimeter
	return savePlots(file, []*plot.Plot{p}, 18*vg.Centimeter, h)
}
