package screens

import (
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"

	"glimpse/engine/analysis"
	"glimpse/engine/brand"
	"glimpse/engine/ui"
)

// Insights statuses of a profile (spec §4): nothing connected yet, waiting
// for the first analysis, analysing, done.
const (
	InsightsIdle       = "idle"
	InsightsPending    = "pending"
	InsightsProcessing = "processing"
	InsightsCompleted  = "completed"
)

// ExportInput is the id of the data-export file input; upload errors show
// under it.
const ExportInput = "export"

// PathAudience is where an audience list's names are read a page at a time
// (engine/server serveAudience).
const PathAudience = "/ui/audience"

// UploadExportAction is the server action that takes the export ZIP.
const UploadExportAction = "profile.upload_export"

// maxExportBytes matches the server's cap, so the renderer can refuse a
// larger file before sending it.
const maxExportBytes = 512 << 20

// AnalyticsState is what the Analytics screen shows.
type AnalyticsState struct {
	Status string
	// Result is the latest completed analysis; nil before the first one.
	Result *analysis.Result
	// Pictures maps a post id to the picture URL the page may load (our own
	// static files or the image proxy).
	Pictures map[string]string
	// Source says where the data came from, e.g. "Demo profile".
	Source string
	// ConnectURL starts Instagram Login; "" when it is not configured.
	ConnectURL string
	// Notice explains a failed connection or refresh: text, or a profile's
	// stored problem, which is an analysis code (analysis.ProblemRefreshFailed)
	// or, if stored before codes existed, an English sentence.
	Notice string
	// ReportURL, for owners of the profile report, is where it downloads.
	ReportURL string
	// ReportPending is an owner of the profile report with no analysis yet:
	// the screen says the report is mailed once there is one.
	ReportPending bool
	// CanUpload offers the data-export upload (nothing connected, or an
	// export-based profile that a newer export can update).
	CanUpload bool
	// Followers and Engagement are the series over stored snapshots, oldest
	// first; a chart is drawn once there are two points.
	Followers, Engagement []analysis.Point
}

// audienceTile names one tile of the Audience section and its overlay.
type audienceTile struct {
	id, key string
	cat     func(a analysis.Audience) analysis.Category
}

var audienceTiles = []audienceTile{
	{"lost-followers", "analytics.lostFollowers", func(a analysis.Audience) analysis.Category { return a.LostFollowers }},
	{"new-followers", "analytics.newFollowers", func(a analysis.Audience) analysis.Category { return a.NewFollowers }},
	{"secret-fans", "analytics.secretFans", func(a analysis.Audience) analysis.Category { return a.SecretFans }},
	{"inactive-followers", "analytics.inactiveFollowers", func(a analysis.Audience) analysis.Category { return a.InactiveFollowers }},
	{"friends", "analytics.friends", func(a analysis.Audience) analysis.Category { return a.Friends }},
	{"fans", "analytics.fans", func(a analysis.Audience) analysis.Category { return a.Fans }},
}

// Analytics is the Analytics screen: engagement, likes and comments, the
// most liked and commented posts, the audience groups and the countdown to
// the next update. Figures not known yet show the clock animation.
func Analytics(c Context, s AnalyticsState) Page {
	page := Page{Overlays: map[string]*ui.Node{}}
	notice := ui.If(s.Notice != "", errorLine(analysisText(c, analysis.Code(s.Notice), nil)))
	if s.Status == InsightsIdle && s.Result == nil {
		// Say what is offered: Instagram Login only where the server has it.
		title, text := c.T("analytics.idleTitle"), c.T("analytics.idleText")
		if s.ConnectURL == "" {
			title, text = c.T("analytics.idleTitleUpload"), c.T("analytics.idleTextUpload")
		}
		empty := &ui.Node{Type: "empty_state", Title: title, Text: text, Icon: "insights"}
		page.Screen = SubPage(c, "analytics", c.T("analytics.title"), nil,
			ui.Stack("lg", empty, notice, reportPendingNote(c, s.ReportPending), connectCard(c, s.ConnectURL), uploadCard(c)))
		return page
	}
	var r analysis.Result
	if s.Result != nil {
		r = *s.Result
	}
	known := s.Result != nil
	e := r.Engagement
	num := func(v string) *ui.NullableString { return &ui.NullableString{S: v, Valid: known} }

	meter := &ui.Node{Type: "level_meter", Label: c.T("analytics.engagementRate"), Level: &e.Level,
		ValueLabel: fmt.Sprintf("%.2f%%", e.Rate), Status: analysisText(c, e.Status, nil)}
	if !known {
		zero := 0
		meter.Level, meter.ValueLabel, meter.Status = &zero, c.T("analytics.calculating"), ""
	}
	overview := ui.Card(nil,
		ui.Text("caption", c.T("analytics.overview")),
		ui.Text("heading", strconv.Itoa(e.PostsAnalysed)+" "+c.T("analytics.latestPosts")),
	)
	if s.Source != "" {
		overview.Children = append(overview.Children, ui.Text("caption", s.Source))
	}
	note := ui.Text("caption", c.T("analytics.averageNote"))
	engagement := section(c.T("analytics.userEngagement"),
		overview,
		ui.Card(nil, meter),
		pair(tile(c.T("analytics.avgLikes"), num(fmt.Sprintf("%.1f", e.AverageLikes)), c),
			tile(c.T("analytics.avgComments"), num(fmt.Sprintf("%.1f", e.AverageComments)), c)),
		note,
	)
	likes := section(c.T("analytics.likesAndComments"),
		pair(tile(c.T("analytics.likes"), num(Thousands(e.TotalLikes)), c),
			tile(c.T("analytics.comments"), num(Thousands(e.TotalComments)), c)),
	)
	top := section(c.T("analytics.mostLiked"),
		postList(c, c.T("analytics.mostLiked"), r.MostLiked, s.Pictures, c.T("analytics.like"), c.T("analytics.likesWord")),
		ui.Text("subheading", c.T("analytics.mostCommented")),
		postList(c, c.T("analytics.mostCommented"), r.MostCommented, s.Pictures, c.T("analytics.comment"), c.T("analytics.commentsWord")),
	)
	var tiles []*ui.Node
	for _, t := range audienceTiles {
		cat := t.cat(r.Audience)
		value := &ui.NullableString{}
		if known && cat.Count != nil {
			value = &ui.NullableString{S: Thousands(*cat.Count), Valid: true}
		}
		n := tile(c.T(t.key), value, c)
		if known {
			n.Caption = analysisText(c, cat.Basis, cat.Args)
			if cat.Count != nil {
				n.Action = ui.OpenOverlay("audience-" + t.id)
				page.Overlays["audience-"+t.id] = audienceList(c, "audience-"+t.id, t.id, c.T(t.key), cat)
			}
		}
		tiles = append(tiles, n)
	}
	audience := section(c.T("analytics.audience"), grid(tiles...))
	var trends []*ui.Node
	if len(s.Followers) > 1 {
		trends = append(trends, chart(c, c.T("analytics.followerChart"), s.Followers,
			func(v float64) string { return Thousands(int(v)) },
			func(d float64) string { return signed(Thousands(int(math.Abs(d))), d) }))
	}
	if len(s.Engagement) > 1 {
		trends = append(trends, chart(c, c.T("analytics.engagementChart"), s.Engagement,
			func(v float64) string { return fmt.Sprintf("%.2f%%", v) },
			func(d float64) string {
				return signed(fmt.Sprintf("%.2f", math.Abs(d)), d) + " " + c.T("analytics.percentagePoints")
			}))
	}
	promo := ui.Card(ui.Navigate(PathInsights),
		ui.Text("heading", c.T("analytics.viewInsights")),
		ui.Text("body", c.T("analytics.viewInsightsText")))
	promo.Tone = "brand"
	children := []*ui.Node{}
	if notice != nil {
		children = append(children, notice)
	}
	children = append(children, engagement, likes, top, audience)
	if len(trends) > 0 {
		children = append(children, section(c.T("analytics.trends"), trends...))
	}
	children = append(children, promo)
	if s.ReportURL != "" {
		children = append(children, ui.Button(c.T("analytics.downloadReport"), "secondary",
			ui.Download(s.ReportURL, "profile-report.pdf")))
	}
	if n := reportPendingNote(c, s.ReportPending && !known); n != nil {
		children = append(children, n)
	}
	if s.CanUpload {
		children = append(children, uploadCard(c))
	}
	if next := r.NextUpdate; known && !next.IsZero() {
		children = append(children, &ui.Node{Type: "banner", Tone: "info", Sticky: "bottom",
			Text: c.T("analytics.banner"), Children: []*ui.Node{
				{Type: "countdown", Label: c.T("analytics.nextUpdate"), EndsAt: ui.Timestamp(next)},
			}})
	} else if !known {
		children = append(children, &ui.Node{Type: "banner", Tone: "info", Sticky: "bottom",
			Text: c.T("analytics.banner")})
	}
	page.Screen = SubPage(c, "analytics", c.T("analytics.title"), nil, ui.Stack("lg", children...))
	if len(page.Overlays) == 0 {
		page.Overlays = nil
	}
	return page
}

// chart draws a series with a caption that says in words how much it
// changed from the first point to the last (format writes a value, change a
// difference): the line alone can make a small change look large, and
// "3.22% → 3.22%" is no change at all, whatever the line suggests.
func chart(c Context, label string, series []analysis.Point, format, change func(float64) string) *ui.Node {
	points := make([]ui.ChartPoint, 0, len(series))
	for _, p := range series {
		points = append(points, ui.ChartPoint{X: p.At.Format("Jan 2"), Y: p.Value, YLabel: format(p.Value)})
	}
	first, last := series[0], series[len(series)-1]
	since := first.At.Format("Jan 2")
	caption := strings.ReplaceAll(c.T("analytics.chartNoChange"), "{date}", since)
	if format(first.Value) != format(last.Value) {
		caption = strings.NewReplacer("{date}", since, "{change}", change(last.Value-first.Value)).Replace(c.T("analytics.chartChange"))
	}
	return ui.Stack("xs", &ui.Node{Type: "chart", Label: label, Points: points}, ui.Text("caption", caption))
}

// signed puts the sign of d before the magnitude written as abs.
func signed(abs string, d float64) string {
	if d < 0 {
		return "−" + abs
	}
	return "+" + abs
}

// connectCard offers Instagram Login and says what it gives; nil when the
// server has no Instagram app configured.
func connectCard(c Context, url string) *ui.Node {
	if url == "" {
		return nil
	}
	return ui.Card(nil,
		ui.Text("heading", c.T("instagram.title")),
		ui.Text("body", c.T("instagram.text")),
		ui.Button(c.T("instagram.connect"), "primary", ui.OpenURL(url, false)),
	)
}

// uploadCard explains the data-export route and takes the ZIP.
func uploadCard(c Context) *ui.Node {
	input := &ui.Node{Type: "file_input", ID: ExportInput, Label: c.T("upload.label"), Accept: ".zip,application/zip",
		Help: c.T("upload.help"), MaxBytes: maxExportBytes, RequiredMessage: c.T("upload.required"),
		TooLargeMessage: c.T("upload.tooLarge")}
	return ui.Card(nil,
		ui.Text("heading", c.T("upload.title")),
		ui.Text("body", c.T("upload.text")),
		input,
		ui.Button(c.T("upload.button"), "primary", ui.Upload(UploadExportAction, ExportInput)),
	)
}

func section(title string, children ...*ui.Node) *ui.Node {
	return ui.Stack("sm", append([]*ui.Node{ui.Text("heading", title)}, children...)...)
}

func grid(tiles ...*ui.Node) *ui.Node {
	var rows []*ui.Node
	for i := 0; i < len(tiles); i += 2 {
		rows = append(rows, pair(tiles[i:min(i+2, len(tiles))]...))
	}
	return ui.Stack("sm", rows...)
}

// pair lays tiles side by side, stretched to the taller one's height so
// their tops and bottoms line up whatever the length of their labels.
func pair(tiles ...*ui.Node) *ui.Node {
	row := ui.Row("sm", tiles...)
	row.Align = "stretch"
	return row
}

func tile(label string, value *ui.NullableString, c Context) *ui.Node {
	return &ui.Node{Type: "stat_tile", Label: label, Value: value, PendingLabel: c.T("analytics.calculating")}
}

func postList(c Context, label string, posts []analysis.TopPost, pictures map[string]string, one, many string) *ui.Node {
	if len(posts) == 0 {
		return ui.Text("caption", c.T("analytics.noPosts"))
	}
	out := make([]ui.Post, 0, len(posts))
	for _, p := range posts {
		word := many
		if p.Count == 1 {
			word = one
		}
		src := pictures[p.ID]
		if src == "" {
			src = "/static/posts/placeholder.svg"
		}
		out = append(out, ui.Post{Image: ui.ImageRef{Src: src, Alt: c.T("analytics.postAlt") + " " + p.TakenAt.Format("2 Jan 2006")},
			DateLabel: brand.Date(p.TakenAt), CountLabel: Thousands(p.Count) + " " + word,
			Date: p.TakenAt.UTC().Format(time.RFC3339)})
	}
	return &ui.Node{Type: "post_list", Label: label, Posts: out}
}

// audienceList is a group's whole list: read a page at a time from
// PathAudience, searchable, each name a link to the person's Instagram
// profile (issue #21).
func audienceList(c Context, id, group, title string, cat analysis.Category) *ui.Node {
	children := []*ui.Node{ui.Text("caption", analysisText(c, cat.Basis, cat.Args))}
	if *cat.Count == 0 {
		children = append(children, ui.Text("body", c.T("analytics.nobody")))
	} else {
		children = append(children, &ui.Node{Type: "name_list", Label: title,
			Src: PathAudience + "?" + url.Values{"group": {group}}.Encode(), SearchLabel: c.T("analytics.searchNames"),
			MoreLabel: c.T("analytics.showMore"), CountLabel: c.T("analytics.showingOf"), Text: c.T("analytics.noMatch"),
			PendingLabel: c.T("analytics.loadingNames"), Href: InstagramProfileURL, LinkHint: c.T("analytics.profileHint")})
	}
	d := ui.Dialog(id, "fullscreen", title, children...)
	d.CloseLabel = c.T("dialog.close")
	return d
}

// InstagramProfileURL is a person's Instagram profile, {name} their username.
const InstagramProfileURL = "https://www.instagram.com/{name}/"

// analysisText is the brand's words for an analysis code (analysis.Words),
// dates written as the screens write other dates.
func analysisText(c Context, code analysis.Code, args map[string]string) string {
	lookup := func(key string) (string, bool) { return c.T(key), c.Copy.Has(key) }
	return analysis.Words(lookup, code, args, func(t time.Time) string { return t.Format("2 Jan 2006") })
}

// Thousands formats n with comma thousands separators: 12345 → "12,345".
func Thousands(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
