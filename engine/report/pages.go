package report

import (
	"fmt"

	"github.com/signintech/gopdf"

	"glimpse/engine/analysis"
	"glimpse/engine/pdfdraw"
)

// cover draws page 1: who the report is about, when and from what it was
// made, the summary figures and the methodology note.
func (d *document) cover(r Report) {
	d.NewPage()
	d.Fill(margin, d.Y, contentWidth, 4, accent)
	d.Y += 28
	d.Font(pdfdraw.Bold, 30)
	d.Text(margin, d.Y, r.Brand, pdfdraw.Ink)
	d.Y += 44
	d.Font(pdfdraw.Bold, 20)
	d.Text(margin, d.Y, "Instagram profile report", pdfdraw.Ink)
	d.Y += 30
	d.Font(pdfdraw.Regular, 18)
	d.Text(margin, d.Y, "@"+r.Username, accent)
	d.Y += 34
	d.Font(pdfdraw.Regular, 10)
	d.Text(margin, d.Y, "Generated "+r.GeneratedAt.Format("2 Jan 2006 15:04 MST"), pdfdraw.Muted)
	d.Y += 15
	if !r.Result.TakenAt.IsZero() {
		d.Text(margin, d.Y, "Data as of "+r.Result.TakenAt.Format("2 Jan 2006 15:04 MST"), pdfdraw.Muted)
		d.Y += 15
	}
	if r.Source != "" {
		d.Text(margin, d.Y, "Source: "+r.Source, pdfdraw.Muted)
		d.Y += 15
	}
	d.Y += 30

	e := r.Result.Engagement
	d.heading("Summary", 16)
	d.Font(pdfdraw.Regular, 10)
	d.Text(margin, d.Y, "Engagement rate", pdfdraw.Muted)
	d.Y += 15
	d.Font(pdfdraw.Bold, 30)
	rate := "–"
	if e.Level > 0 {
		rate = percent(e.Rate)
	}
	d.Text(margin, d.Y, rate, pdfdraw.Ink)
	d.Font(pdfdraw.Regular, 12)
	d.Text(margin+180, d.Y+12, levelPhrase(e), levelTextColour(e.Level))
	d.Y += 44
	d.levelBar(margin, d.Y, contentWidth, e.Level, levelLabels(e))
	d.Y += 44

	rows := [][2]string{
		{"Followers analysed", thousands(e.Followers)},
		{"Posts analysed", thousands(e.PostsAnalysed)},
		{"Average likes per post", decimal(e.AverageLikes, 1)},
		{"Average comments per post", decimal(e.AverageComments, 1)},
		{"Total likes", thousands(e.TotalLikes)},
		{"Total comments", thousands(e.TotalComments)},
	}
	for _, row := range rows {
		d.Font(pdfdraw.Regular, 11)
		d.Text(margin, d.Y, row[0], pdfdraw.Ink)
		d.Font(pdfdraw.Bold, 11)
		d.TextAligned(margin, d.Y, contentWidth, row[1], pdfdraw.Ink, gopdf.Right)
		d.Y += 16
		d.Line(margin, d.Y-3, pdfdraw.PageWidth-margin, d.Y-3, 0.4, pdfdraw.Rule)
	}
	d.Y += 24
	d.heading("Methodology", 12)
	d.paragraph(pdfdraw.Regular, 9.5, Methodology, pdfdraw.Muted)
	d.paragraph(pdfdraw.Regular, 9.5, "The rate is compared with benchmarks for accounts of a similar size to give its level from 1 (low) to 5 (high).", pdfdraw.Muted)
	if e.PostsAnalysed > 0 {
		d.paragraph(pdfdraw.Regular, 9.5, fmt.Sprintf("Averages are over the %s analysed.", plural(e.PostsAnalysed, "latest post", "latest posts")), pdfdraw.Muted)
	}
}

// charts draws page 2: follower count and engagement rate over time, and
// the level bar.
func (d *document) charts(r Report) {
	d.NewPage()
	d.heading("Growth and engagement", 20)
	d.Y += 6

	d.heading("Follower count over time", 13)
	d.lineChart(margin, d.Y, contentWidth, 230, r.Followers, func(v float64) string { return thousands(int(v + 0.5)) })
	d.Y += 250

	d.heading("Engagement rate over time", 13)
	d.lineChart(margin, d.Y, contentWidth, 230, r.Engagement, percent)
	d.Y += 250

	e := r.Result.Engagement
	d.heading("Engagement level", 13)
	d.Font(pdfdraw.Regular, 10)
	d.Text(margin, d.Y, levelPhrase(e), levelTextColour(e.Level))
	d.Y += 18
	d.levelBar(margin, d.Y, contentWidth, e.Level, levelLabels(e))
	d.Y += 44
}

// sampleNames is how many usernames the report lists per audience group.
const sampleNames = 20

// audience draws page 3 (and more when needed): each audience group with its
// size or "not available", what it is based on, and its first usernames.
func (d *document) audience(r Report) {
	d.NewPage()
	d.heading("Audience", 20)
	a := r.Result.Audience
	groups := []struct {
		name     string
		category analysis.Category
	}{
		{"Lost followers", a.LostFollowers},
		{"New followers", a.NewFollowers},
		{"Secret fans", a.SecretFans},
		{"Inactive followers", a.InactiveFollowers},
		{"Your friends", a.Friends},
		{"Your fans", a.Fans},
		{"Not following back", a.NotFollowingBack},
	}
	for _, g := range groups {
		d.Ensure(60)
		d.Y += 6
		d.Font(pdfdraw.Bold, 12)
		d.Text(margin, d.Y, g.name, pdfdraw.Ink)
		count, colour := "not available", pdfdraw.Muted
		if g.category.Count != nil {
			count, colour = thousands(*g.category.Count), pdfdraw.Ink
		}
		d.TextAligned(margin, d.Y, contentWidth, count, colour, gopdf.Right)
		d.Y += 17
		d.paragraph(pdfdraw.Regular, 9, words(g.category.Basis, g.category.Args), pdfdraw.Muted)
		names := g.category.Usernames[:min(sampleNames, len(g.category.Usernames))]
		if len(names) > 0 {
			d.Y += 2
			list := ""
			for i, name := range names {
				if i > 0 {
					list += ", "
				}
				list += "@" + name
			}
			if g.category.Count != nil && *g.category.Count > len(names) {
				list += fmt.Sprintf(" and %s more", thousands(*g.category.Count-len(names)))
			}
			d.paragraph(pdfdraw.Regular, 9.5, list, pdfdraw.Ink)
		}
		d.Y += 4
		d.Line(margin, d.Y, pdfdraw.PageWidth-margin, d.Y, 0.4, pdfdraw.Rule)
		d.Y += 4
	}
}

// topPosts draws the last page: the most liked and most commented posts.
func (d *document) topPosts(r Report) {
	d.NewPage()
	d.heading("Top posts", 20)
	d.postTable("Most liked", r.Result.MostLiked, "like", "likes", "None of the analysed posts has a like yet.")
	d.Y += 16
	d.postTable("Most commented", r.Result.MostCommented, "comment", "comments", "None of the analysed posts has a comment yet.")
}

// postTable draws one ranked list of posts with each post's date and count,
// or empty when the list has none.
func (d *document) postTable(title string, posts []analysis.TopPost, singular, many, empty string) {
	d.heading(title, 13)
	if len(posts) == 0 {
		d.paragraph(pdfdraw.Regular, 10, empty, pdfdraw.Muted)
		return
	}
	for i, p := range posts {
		d.Ensure(20)
		d.Font(pdfdraw.Bold, 11)
		d.Text(margin, d.Y, fmt.Sprintf("%d.", i+1), pdfdraw.Ink)
		d.Font(pdfdraw.Regular, 11)
		d.Text(margin+24, d.Y, "Posted "+day(p.TakenAt), pdfdraw.Ink)
		d.Font(pdfdraw.Regular, 8.5)
		d.Text(margin+170, d.Y+2, "Post "+p.ID, pdfdraw.Muted)
		d.Font(pdfdraw.Bold, 11)
		d.TextAligned(margin, d.Y, contentWidth, plural(p.Count, singular, many), pdfdraw.Ink, gopdf.Right)
		d.Y += 18
		d.Line(margin, d.Y-4, pdfdraw.PageWidth-margin, d.Y-4, 0.4, pdfdraw.Rule)
	}
}

// levelPhrase describes the level in words: "Level 4 of 5 · Above average",
// or the status alone when there is not enough data ("Not enough data" when
// the result has no status, as a zero Result does).
func levelPhrase(e analysis.Engagement) string {
	if e.Level == 0 {
		if e.Status == "" {
			return words(analysis.DefaultThresholds().Labels[0], nil)
		}
		return words(e.Status, nil)
	}
	return fmt.Sprintf("Level %d of 5 · %s", e.Level, words(e.Status, nil))
}

// levelTextColour is the colour of the level's words: the level's own
// colour, or muted when there is no level.
func levelTextColour(level int) pdfdraw.RGB {
	if level < 1 || level > 5 {
		return pdfdraw.Muted
	}
	return levelColours[level-1]
}

// levelLabels names the five cells of the level bar with the default labels,
// the current level taking the status the analysis gave it, so configured
// labels show where it matters.
func levelLabels(e analysis.Engagement) [5]string {
	defaults := analysis.DefaultThresholds().Labels
	var labels [5]string
	for i, code := range defaults[1:] {
		labels[i] = words(code, nil)
	}
	if e.Level >= 1 && e.Level <= 5 && e.Status != "" {
		labels[e.Level-1] = words(e.Status, nil)
	}
	return labels
}
