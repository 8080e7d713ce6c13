package report

import (
	"fmt"

	"github.com/signintech/gopdf"

	"glimpse/engine/analysis"
)

// cover draws page 1: who the report is about, when and from what it was
// made, the summary figures and the methodology note.
func (d *document) cover(r Report) {
	d.newPage()
	d.fill(margin, d.y, contentWidth, 4, accent)
	d.y += 28
	d.font(bold, 30)
	d.text(margin, d.y, r.Brand, ink)
	d.y += 44
	d.font(bold, 20)
	d.text(margin, d.y, "Instagram profile report", ink)
	d.y += 30
	d.font(regular, 18)
	d.text(margin, d.y, "@"+r.Username, accent)
	d.y += 34
	d.font(regular, 10)
	d.text(margin, d.y, "Generated "+r.GeneratedAt.Format("2 Jan 2006 15:04 MST"), muted)
	d.y += 15
	if !r.Result.TakenAt.IsZero() {
		d.text(margin, d.y, "Data as of "+r.Result.TakenAt.Format("2 Jan 2006 15:04 MST"), muted)
		d.y += 15
	}
	if r.Source != "" {
		d.text(margin, d.y, "Source: "+r.Source, muted)
		d.y += 15
	}
	d.y += 30

	e := r.Result.Engagement
	d.heading("Summary", 16)
	d.font(regular, 10)
	d.text(margin, d.y, "Engagement rate", muted)
	d.y += 15
	d.font(bold, 30)
	rate := "–"
	if e.Level > 0 {
		rate = percent(e.Rate)
	}
	d.text(margin, d.y, rate, ink)
	d.font(regular, 12)
	d.text(margin+180, d.y+12, levelPhrase(e), levelTextColour(e.Level))
	d.y += 44
	d.levelBar(margin, d.y, contentWidth, e.Level, levelLabels(e))
	d.y += 44

	rows := [][2]string{
		{"Followers analysed", thousands(e.Followers)},
		{"Posts analysed", thousands(e.PostsAnalysed)},
		{"Average likes per post", decimal(e.AverageLikes, 1)},
		{"Average comments per post", decimal(e.AverageComments, 1)},
		{"Total likes", thousands(e.TotalLikes)},
		{"Total comments", thousands(e.TotalComments)},
	}
	for _, row := range rows {
		d.font(regular, 11)
		d.text(margin, d.y, row[0], ink)
		d.font(bold, 11)
		d.textAligned(margin, d.y, contentWidth, row[1], ink, gopdf.Right)
		d.y += 16
		d.line(margin, d.y-3, pageWidth-margin, d.y-3, 0.4, rule)
	}
	d.y += 24
	d.heading("Methodology", 12)
	d.paragraph(regular, 9.5, Methodology, muted)
	d.paragraph(regular, 9.5, "The rate is compared with benchmarks for accounts of a similar size to give its level from 1 (low) to 5 (high).", muted)
	if e.PostsAnalysed > 0 {
		d.paragraph(regular, 9.5, fmt.Sprintf("Averages are over the %s analysed.", plural(e.PostsAnalysed, "latest post", "latest posts")), muted)
	}
}

// charts draws page 2: follower count and engagement rate over time, and
// the level bar.
func (d *document) charts(r Report) {
	d.newPage()
	d.heading("Growth and engagement", 20)
	d.y += 6

	d.heading("Follower count over time", 13)
	d.lineChart(margin, d.y, contentWidth, 230, r.Followers, func(v float64) string { return thousands(int(v + 0.5)) })
	d.y += 250

	d.heading("Engagement rate over time", 13)
	d.lineChart(margin, d.y, contentWidth, 230, r.Engagement, percent)
	d.y += 250

	e := r.Result.Engagement
	d.heading("Engagement level", 13)
	d.font(regular, 10)
	d.text(margin, d.y, levelPhrase(e), levelTextColour(e.Level))
	d.y += 18
	d.levelBar(margin, d.y, contentWidth, e.Level, levelLabels(e))
	d.y += 44
}

// sampleNames is how many usernames the report lists per audience group.
const sampleNames = 20

// audience draws page 3 (and more when needed): each audience group with its
// size or "not available", what it is based on, and its first usernames.
func (d *document) audience(r Report) {
	d.newPage()
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
		d.ensure(60)
		d.y += 6
		d.font(bold, 12)
		d.text(margin, d.y, g.name, ink)
		count, colour := "not available", muted
		if g.category.Count != nil {
			count, colour = thousands(*g.category.Count), ink
		}
		d.textAligned(margin, d.y, contentWidth, count, colour, gopdf.Right)
		d.y += 17
		d.paragraph(regular, 9, g.category.Basis, muted)
		names := g.category.Usernames[:min(sampleNames, len(g.category.Usernames))]
		if len(names) > 0 {
			d.y += 2
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
			d.paragraph(regular, 9.5, list, ink)
		}
		d.y += 4
		d.line(margin, d.y, pageWidth-margin, d.y, 0.4, rule)
		d.y += 4
	}
}

// topPosts draws the last page: the most liked and most commented posts.
func (d *document) topPosts(r Report) {
	d.newPage()
	d.heading("Top posts", 20)
	d.postTable("Most liked", r.Result.MostLiked, "like", "likes", "None of the analysed posts has a like yet.")
	d.y += 16
	d.postTable("Most commented", r.Result.MostCommented, "comment", "comments", "None of the analysed posts has a comment yet.")
}

// postTable draws one ranked list of posts with each post's date and count,
// or empty when the list has none.
func (d *document) postTable(title string, posts []analysis.TopPost, singular, many, empty string) {
	d.heading(title, 13)
	if len(posts) == 0 {
		d.paragraph(regular, 10, empty, muted)
		return
	}
	for i, p := range posts {
		d.ensure(20)
		d.font(bold, 11)
		d.text(margin, d.y, fmt.Sprintf("%d.", i+1), ink)
		d.font(regular, 11)
		d.text(margin+24, d.y, "Posted "+day(p.TakenAt), ink)
		d.font(regular, 8.5)
		d.text(margin+170, d.y+2, "Post "+p.ID, muted)
		d.font(bold, 11)
		d.textAligned(margin, d.y, contentWidth, plural(p.Count, singular, many), ink, gopdf.Right)
		d.y += 18
		d.line(margin, d.y-4, pageWidth-margin, d.y-4, 0.4, rule)
	}
}

// levelPhrase describes the level in words: "Level 4 of 5 · Above average",
// or the status alone when there is not enough data ("Not enough data" when
// the result has no status, as a zero Result does).
func levelPhrase(e analysis.Engagement) string {
	if e.Level == 0 {
		if e.Status == "" {
			return analysis.DefaultThresholds().Labels[0]
		}
		return e.Status
	}
	return fmt.Sprintf("Level %d of 5 · %s", e.Level, e.Status)
}

// levelTextColour is the colour of the level's words: the level's own
// colour, or muted when there is no level.
func levelTextColour(level int) rgb {
	if level < 1 || level > 5 {
		return muted
	}
	return levelColours[level-1]
}

// levelLabels names the five cells of the level bar with the default labels,
// the current level taking the status the analysis gave it, so configured
// labels show where it matters.
func levelLabels(e analysis.Engagement) [5]string {
	defaults := analysis.DefaultThresholds().Labels
	var labels [5]string
	copy(labels[:], defaults[1:])
	if e.Level >= 1 && e.Level <= 5 && e.Status != "" {
		labels[e.Level-1] = e.Status
	}
	return labels
}
