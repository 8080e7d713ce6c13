package report

import (
	"math"

	"github.com/signintech/gopdf"

	"glimpse/engine/analysis"
	"glimpse/engine/pdfdraw"
)

// lineChart draws series as a vector line chart in the box whose top-left
// corner is (x, y): a frame of axes, four horizontal grid lines with value
// labels, the line with a marker per point, and the first and last values
// and dates labelled. label formats a value. An empty series draws the frame
// with a "No data yet" note instead of a line.
func (d *document) lineChart(x, y, w, h float64, series []analysis.Point, label func(float64) string) {
	const (
		axisGutter = 52.0 // room left of the plot for value labels
		dateGutter = 16.0 // room below the plot for dates
		grid       = 4
	)
	plotX, plotY := x+axisGutter, y+8
	plotW, plotH := w-axisGutter-8, h-dateGutter-8

	if len(series) == 0 {
		d.Line(plotX, plotY+plotH, plotX+plotW, plotY+plotH, 0.8, pdfdraw.Muted)
		d.Line(plotX, plotY, plotX, plotY+plotH, 0.8, pdfdraw.Muted)
		d.Font(pdfdraw.Regular, 10)
		d.TextAligned(plotX, plotY+plotH/2-5, plotW, "No data yet: the chart fills in as snapshots are taken.", pdfdraw.Muted, gopdf.Center)
		return
	}

	low, high := valueRange(series)
	first, last := series[0], series[len(series)-1]
	span := last.At.Sub(first.At).Seconds()
	px := func(p analysis.Point) float64 {
		if span <= 0 {
			return plotX + plotW/2
		}
		return plotX + p.At.Sub(first.At).Seconds()/span*plotW
	}
	py := func(v float64) float64 { return plotY + plotH - (v-low)/(high-low)*plotH }

	d.Font(pdfdraw.Regular, 7.5)
	for i := 0; i <= grid; i++ {
		v := low + (high-low)*float64(i)/grid
		gy := py(v)
		d.Line(plotX, gy, plotX+plotW, gy, 0.4, pdfdraw.Rule)
		d.TextAligned(x, gy-4, axisGutter-6, label(v), pdfdraw.Muted, gopdf.Right)
	}
	d.Line(plotX, plotY, plotX, plotY+plotH, 0.8, pdfdraw.Muted)
	d.Line(plotX, plotY+plotH, plotX+plotW, plotY+plotH, 0.8, pdfdraw.Muted)

	for i := 1; i < len(series); i++ {
		d.Line(px(series[i-1]), py(series[i-1].Value), px(series[i]), py(series[i].Value), 1.6, accent)
	}
	for _, p := range series {
		d.Fill(px(p)-1.8, py(p.Value)-1.8, 3.6, 3.6, accent)
	}

	// First and last values above their points and their dates under the
	// axis, pulled inwards so they stay clear of the value labels and the
	// right edge; a single point is labelled centred.
	if len(series) == 1 {
		d.pointLabels(px(first)-40, 80, py(first.Value), plotY+plotH, first, label, gopdf.Center)
		return
	}
	d.pointLabels(px(first), plotW/2, py(first.Value), plotY+plotH, first, label, gopdf.Left)
	d.pointLabels(px(last)-plotW/2, plotW/2, py(last.Value), plotY+plotH, last, label, gopdf.Right)
}

// pointLabels writes p's value just above valueY and its date just below
// axisY, in a box from x of width w aligned with align.
func (d *document) pointLabels(x, w, valueY, axisY float64, p analysis.Point, label func(float64) string, align int) {
	d.Font(pdfdraw.Bold, 8)
	d.TextAligned(x, valueY-13, w, label(p.Value), pdfdraw.Ink, align)
	d.Font(pdfdraw.Regular, 8)
	d.TextAligned(x, axisY+5, w, shortDay(p.At), pdfdraw.Muted, align)
}

// valueRange returns the value axis bounds of series: its lowest and highest
// values with a margin of a tenth of the spread, widened around a flat
// series so its line sits mid-chart, and never below zero when no value is.
func valueRange(series []analysis.Point) (low, high float64) {
	low, high = math.Inf(1), math.Inf(-1)
	for _, p := range series {
		low, high = min(low, p.Value), max(high, p.Value)
	}
	pad := (high - low) / 10
	if pad == 0 {
		pad = max(math.Abs(high)/10, 1)
	}
	low, high = low-pad, high+pad
	if low < 0 && series[0].Value >= 0 {
		low = max(low, 0)
	}
	return low, high
}

// levelBar draws the 5-cell level bar at (x, y) as the Analytics screen does:
// cells up to level are filled in that level's colour, the rest are grey.
// Under each cell is its number and label.
func (d *document) levelBar(x, y, w float64, level int, labels [5]string) {
	const gap, height = 6.0, 12.0
	cell := (w - 4*gap) / 5
	for i := range 5 {
		colour := pdfdraw.Rule
		if i < level {
			colour = levelColours[level-1]
		}
		cx := x + float64(i)*(cell+gap)
		d.Fill(cx, y, cell, height, colour)
		d.Font(pdfdraw.Regular, 7.5)
		text := pdfdraw.Muted
		if i+1 == level {
			d.Font(pdfdraw.Bold, 7.5)
			text = pdfdraw.Ink
		}
		d.TextAligned(cx, y+height+4, cell, labels[i], text, gopdf.Center)
	}
	// A strip of each level's colour under the labels keys the scale.
	for i := range 5 {
		d.Fill(x+float64(i)*(cell+gap), y+height+16, cell, 3, levelColours[i])
	}
}
