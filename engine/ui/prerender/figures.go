package prerender

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"time"

	"glimpse/engine/ui"
)

// The nodes of figures and results (Analytics): tiles, rows, posts, charts,
// a countdown in a banner.

func (d *drawer) statTile(n map[string]any) error {
	content := func() {
		d.textElement("span", "stat-tile__label", strOr(n, "label", ""))
		if value, ok := str(n, "value"); ok {
			d.textElement("span", "stat-tile__value", value)
		} else {
			label := d.word("calculating")
			if own, ok := str(n, "pendingLabel"); ok {
				label = own
			}
			d.raw(`<span class="stat-tile__pending" role="img"`)
			d.attr("aria-label", label)
			d.raw(`><span class="clock" aria-hidden="true"></span></span>`)
		}
		if caption, ok := str(n, "caption"); ok {
			d.textElement("span", "stat-tile__caption", caption)
		}
	}
	if _, ok := n["value"].(string); !ok && n["value"] != nil {
		return errUnsupported
	}
	action, ok := n["action"].(map[string]any)
	if !ok {
		d.raw(`<div class="stat-tile">`)
		content()
		d.raw(`</div>`)
		return nil
	}
	return d.actionElement(action, actionOptions{className: classes("stat-tile stat-tile--action")}, content)
}

func (d *drawer) listItem(n map[string]any) error {
	action, hasAction := n["action"].(map[string]any)
	kind := ""
	if hasAction {
		kind = strOr(action, "type", "")
	}
	navigates := kind == ui.ActionTypeNavigate || kind == ui.ActionTypeReplace || kind == ui.ActionTypeOpenUrl
	var failed error
	content := func() {
		if _, ok := n["leading"]; ok {
			d.raw(`<span class="list-item__leading">`)
			if err := d.child(n, "leading"); err != nil {
				failed = err
			}
			d.raw(`</span>`)
		}
		d.raw(`<span class="list-item__text"><span class="list-item__title">`)
		d.text(strOr(n, "title", ""))
		d.raw(`</span>`)
		if subtitle, ok := str(n, "subtitle"); ok {
			d.textElement("span", "list-item__subtitle", subtitle)
		}
		d.raw(`</span>`)
		if _, ok := n["trailing"]; ok {
			d.raw(`<span class="list-item__trailing">`)
			if err := d.child(n, "trailing"); err != nil {
				failed = err
			}
			d.raw(`</span>`)
		} else if navigates {
			d.glyph("chevron", "", "list-item__chevron")
		}
	}
	if !hasAction {
		d.raw(`<div class="list-item">`)
		content()
		d.raw(`</div>`)
		return failed
	}
	if err := d.actionElement(action, actionOptions{className: classes("list-item list-item--action")}, content); err != nil {
		return err
	}
	return failed
}

func (d *drawer) postList(n map[string]any) error {
	posts, ok := n["posts"].([]any)
	if !ok {
		return errUnsupported
	}
	d.raw(`<ul class="post-list"`)
	if label, ok := str(n, "label"); ok {
		d.attr("aria-label", label)
	}
	d.raw(`>`)
	for _, raw := range posts {
		post, ok := raw.(map[string]any)
		if !ok {
			return errUnsupported
		}
		image, _ := post["image"].(map[string]any)
		d.raw(`<li class="post"><img class="post__image"`)
		d.attr("src", strOr(image, "src", ""))
		d.attr("alt", strOr(image, "alt", ""))
		d.raw(` decoding="async"><span class="post__meta">`)
		if date, ok := str(post, "date"); ok {
			d.raw(`<time class="post__date"`)
			d.attr("datetime", date)
			d.raw(`>`)
			d.text(strOr(post, "dateLabel", ""))
			d.raw(`</time>`)
		} else {
			d.textElement("span", "post__date", strOr(post, "dateLabel", ""))
		}
		d.raw(`<span class="post__count">`)
		d.text(strOr(post, "countLabel", ""))
		d.raw(`</span></span></li>`)
	}
	d.raw(`</ul>`)
	return nil
}

func (d *drawer) banner(n map[string]any) error {
	sticky, isSticky := str(n, "sticky")
	d.raw(`<div class="` + classes("banner", "tone-"+strOr(n, "tone", "info"), when(isSticky, "banner--sticky-"+sticky)) + `">`)
	if title, ok := str(n, "title"); ok {
		d.textElement("p", "banner__title", title)
	}
	if text, ok := str(n, "text"); ok {
		d.textElement("p", "banner__text", text)
	}
	kids, err := children(n, "children")
	if err != nil {
		return err
	}
	if len(kids) > 0 {
		d.raw(`<div class="banner__children">`)
		if err := d.nodes(n, "children"); err != nil {
			return err
		}
		d.raw(`</div>`)
	}
	d.raw(`</div>`)
	return nil
}

// countdownUnits is nodes/countdown.tsx's UNITS (a month is 30 days).
var countdownUnits = []struct {
	name string
	size time.Duration
}{
	{"months", 30 * 24 * time.Hour},
	{"days", 24 * time.Hour},
	{"hours", time.Hour},
	{"minutes", time.Minute},
	{"seconds", time.Second},
}

// countdown draws the time left by the server's clock when the envelope was
// made (its meta.serverNow), which is where the renderer's count starts.
func (d *drawer) countdown(n map[string]any) error {
	ends, err := time.Parse(time.RFC3339Nano, strOr(n, "endsAt", ""))
	if err != nil || d.now.IsZero() {
		return errUnsupported
	}
	remaining := ends.Sub(d.now)
	if remaining <= 0 {
		return nil // an expired countdown draws nothing
	}
	label, labelled := str(n, "label")
	name := d.word("countdown.label")
	if labelled {
		name = label
	}
	d.raw(`<div class="countdown" role="timer"`)
	d.attr("aria-label", name)
	d.raw(`>`)
	if labelled {
		d.raw(`<span class="countdown__label" aria-hidden="true">`)
		d.text(label)
		d.raw(`</span>`)
	}
	d.raw(`<span class="countdown__units">`)
	rest := remaining.Truncate(time.Second)
	for _, unit := range countdownUnits {
		value := rest / unit.size
		rest -= value * unit.size
		d.raw(`<span class="countdown__unit"><span class="countdown__value">`)
		d.text(leftPad2(int64(value)))
		d.raw(`</span><span class="countdown__name">`)
		d.text(d.word("countdown." + unit.name))
		d.raw(`</span></span>`)
	}
	d.raw(`</span></div>`)
	return nil
}

func leftPad2(v int64) string {
	s := strconv.FormatInt(v, 10)
	if len(s) < 2 {
		return "0" + s
	}
	return s
}

// The chart's drawing box, as nodes/chart.tsx's.
const (
	chartWidth  = 320
	chartHeight = 120
	chartPad    = 8
)

type chartPoint struct {
	x, yLabel string
	y         float64
}

func (d *drawer) chart(n map[string]any) error {
	raw, ok := n["points"].([]any)
	if !ok {
		return errUnsupported
	}
	points := make([]chartPoint, 0, len(raw))
	for _, item := range raw {
		p, ok := item.(map[string]any)
		if !ok {
			return errUnsupported
		}
		number, ok := p["y"].(json.Number)
		if !ok {
			return errUnsupported
		}
		y, err := number.Float64()
		if err != nil || math.IsInf(y, 0) {
			return errUnsupported
		}
		points = append(points, chartPoint{x: strOr(p, "x", ""), y: y, yLabel: strOr(p, "yLabel", "")})
	}
	sc := chartScale(points)
	step := 0.0
	if len(points) > 1 {
		step = float64(chartWidth-2*chartPad) / float64(len(points)-1)
	}
	type coord struct{ x, y float64 }
	coords := make([]coord, len(points))
	line := make([]string, len(points))
	for i, p := range points {
		x := float64(chartWidth) / 2
		if len(points) > 1 {
			x = chartPad + float64(i)*step
		}
		y := float64(chartHeight) / 2
		if !sc.flat {
			y = chartHeight - chartPad - ((p.y-sc.low)/(sc.high-sc.low))*(chartHeight-2*chartPad)
		}
		coords[i] = coord{x, y}
		line[i] = jsToFixed1(x) + "," + jsToFixed1(y)
	}
	label := strOr(n, "label", "")
	titleID := d.newID()
	d.raw(`<figure class="chart"`)
	d.attr("aria-labelledby", titleID)
	d.raw(`><figcaption`)
	d.attr("id", titleID)
	d.raw(` class="chart__title">`)
	d.text(label)
	d.raw(`</figcaption><div class="chart__frame">`)
	if sc.flat {
		d.raw(`<div class="chart__scale chart__scale--flat" aria-hidden="true"><span class="chart__scale-level">`)
		d.text(sc.label)
	} else {
		d.raw(`<div class="chart__scale" aria-hidden="true"><span class="chart__scale-high">`)
		d.text(sc.highLabel)
		d.raw(`</span><span class="chart__scale-low">`)
		d.text(sc.lowLabel)
	}
	d.raw(`</span></div><svg class="chart__plot" viewBox="0 0 320 120" preserveAspectRatio="none" aria-hidden="true" focusable="false">`)
	if sc.flat {
		d.raw(`<line class="chart__grid" x1="0" x2="320" y1="60" y2="60"></line>`)
	} else {
		d.raw(`<line class="chart__grid" x1="0" x2="320" y1="8" y2="8"></line>` +
			`<line class="chart__grid" x1="0" x2="320" y1="112" y2="112"></line>`)
	}
	d.raw(`<polyline class="chart__line"`)
	d.attr("points", strings.Join(line, " "))
	d.raw(`></polyline>`)
	for _, c := range coords {
		d.raw(`<circle class="chart__dot" cx="` + jsNumber(c.x) + `" cy="` + jsNumber(c.y) + `" r="3"></circle>`)
	}
	d.raw(`</svg></div>`)
	if len(points) > 0 {
		first, last := points[0], points[len(points)-1]
		// "{x}: {yLabel}" is three text nodes in React; the comments keep them
		// three in the page, as React's own server rendering does, so the
		// renderer adopts the markup (hydrates it) as it is.
		d.raw(`<div class="chart__axis" aria-hidden="true"><span>`)
		d.axisLabel(first)
		d.raw(`</span>`)
		if len(points) > 1 {
			d.raw(`<span>`)
			d.axisLabel(last)
			d.raw(`</span>`)
		}
		d.raw(`</div>`)
	}
	d.raw(`<table class="sr-only"><caption>`)
	d.text(label)
	d.raw(`</caption><tbody>`)
	for _, p := range points {
		d.raw(`<tr><th scope="row">`)
		d.text(p.x)
		d.raw(`</th><td>`)
		d.text(p.yLabel)
		d.raw(`</td></tr>`)
	}
	d.raw(`</tbody></table></figure>`)
	return nil
}

func (d *drawer) axisLabel(p chartPoint) {
	d.text(p.x)
	d.raw(`<!-- -->: <!-- -->`)
	d.text(p.yLabel)
}

// scale is nodes/chart.tsx's: the series' own lowest and highest values,
// labelled, or one level line labelled once when their labels read the same.
type scale struct {
	flat                bool
	label               string
	low, high           float64
	lowLabel, highLabel string
}

// chartScale is nodes/chart.tsx's scale (issue #21: the axis fits the data).
func chartScale(points []chartPoint) scale {
	if len(points) == 0 {
		return scale{flat: true}
	}
	top, bottom := points[0], points[0]
	for _, p := range points[1:] {
		if p.y > top.y {
			top = p
		}
		if p.y < bottom.y {
			bottom = p
		}
	}
	if top.y == bottom.y || top.yLabel == bottom.yLabel {
		return scale{flat: true, label: top.yLabel}
	}
	return scale{low: bottom.y, high: top.y, lowLabel: bottom.yLabel, highLabel: top.yLabel}
}

// jsNumber writes a number as JavaScript's String(number) does for the
// values a chart has (no exponent form between 1e-6 and 1e21).
func jsNumber(v float64) string {
	if v == 0 {
		return "0"
	}
	if a := math.Abs(v); a < 1e-6 || a >= 1e21 {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// jsToFixed1 is JavaScript's (v).toFixed(1): of two nearest tenths it takes
// the one further from zero, where Go rounds an exact half to even.
func jsToFixed1(v float64) string {
	if v == 0 {
		return "0.0" // -0 too
	}
	scaled := math.Abs(v) * 20
	if scaled < 1<<52 && scaled == math.Trunc(scaled) && math.Mod(scaled, 2) == 1 {
		return strconv.FormatFloat(math.Copysign(math.Ceil(math.Abs(v)*10)/10, v), 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}
