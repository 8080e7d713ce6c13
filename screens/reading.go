package screens

import (
	"strconv"
	"strings"

	"glimpse/engine/brand"
	"glimpse/engine/library"
	"glimpse/engine/ui"
)

// ordinals label recommendation cards; the last label repeats beyond ten,
// as the spec says.
var ordinals = []string{"1st", "2nd", "3rd", "4th", "5th", "6th", "7th", "8th", "9th", "10th"}

// RecommendationLabel is the label of the n-th (1-based) recommendation.
func RecommendationLabel(c Context, n int) string {
	return ordinals[min(max(n, 1), len(ordinals))-1] + " " + c.T("insights.recommendation")
}

func richText(blocks []ui.RichBlock) *ui.Node {
	if blocks == nil {
		blocks = []ui.RichBlock{}
	}
	return &ui.Node{Type: "rich_text", Blocks: blocks}
}

// Insights is Tips & Insights: recommendations to increase engagement and
// followers, a summary, and a promo of the latest news.
func Insights(c Context, in library.Insights, latest *library.NewsItem) Page {
	cards := func(recs []library.Recommendation) []*ui.Node {
		out := make([]*ui.Node, 0, len(recs))
		for i, r := range recs {
			label := ui.Text("overline", RecommendationLabel(c, i+1))
			out = append(out, ui.Card(nil, label, ui.Text("subheading", r.Title), richText(r.Body)))
		}
		return out
	}
	summary := make([][]ui.Span, len(in.Summary))
	copy(summary, in.Summary)
	children := []*ui.Node{
		section(c.T("insights.engagement"), cards(in.Engagement)...),
		section(c.T("insights.followers"), cards(in.Followers)...),
		section(c.T("insights.summary"), richText([]ui.RichBlock{{Kind: "list", Items: summary}})),
	}
	if latest != nil {
		promo := ui.Card(ui.Navigate(PathNews+"/"+latest.Slug),
			ui.Text("overline", c.T("insights.newsPromo")),
			ui.Text("heading", latest.Title),
			ui.Text("body", latest.Summary))
		promo.Tone = "brand"
		children = append(children, promo)
	}
	return Page{Screen: SubPage(c, "insights", c.T("insights.title"), nil, ui.Stack("lg", children...))}
}

// ReadingArticle is a trend or hack article ending with 'To all articles'.
func ReadingArticle(c Context, id string, a library.Article) Page {
	body := ui.Stack("md", ui.Text("title", a.Title), richText(a.Body),
		ui.Button(c.T("articles.toAll"), "primary", ui.Navigate(PathDashboard)))
	return Page{Screen: SubPage(c, id, a.Title, nil, body)}
}

// TopicPage lists a topic's parts as 'Part n' cards.
func TopicPage(c Context, t library.Topic) Page {
	cards := make([]*ui.Node, 0, len(t.Parts))
	for _, a := range t.Parts {
		card := ui.Card(nil,
			ui.Text("overline", strings.ReplaceAll(c.T("articles.part"), "{n}", strconv.Itoa(a.Part))),
			ui.Text("subheading", a.Title),
			ui.Text("body", a.Description),
			ui.Button(c.T("articles.read"), "secondary", ui.Navigate(PathArticles+"/"+t.Slug+"/"+a.Slug)),
		)
		cards = append(cards, card)
	}
	var head []*ui.Node
	if t.Background != "" {
		bg := ui.Image(t.Background, "")
		bg.Aspect = "wide"
		head = append(head, bg)
	}
	head = append(head, ui.Text("title", t.Title), ui.Text("body", t.Description))
	return Page{Screen: SubPage(c, "topic", t.Title, nil, ui.Stack("md", append(head, cards...)...))}
}

// TopicArticle is one part of a topic: title, overview, sections, conclusion.
func TopicArticle(c Context, t library.Topic, a library.Article) Page {
	children := []*ui.Node{
		ui.Text("overline", strings.ReplaceAll(c.T("articles.part"), "{n}", strconv.Itoa(a.Part))+" · "+t.Title),
		ui.Text("title", a.Title),
	}
	if a.Overview != "" {
		children = append(children, ui.Text("body", a.Overview))
	}
	children = append(children, richText(a.Body))
	if a.Conclusion != "" {
		children = append(children, ui.Text("heading", c.T("articles.conclusion")), ui.Text("body", a.Conclusion))
	}
	children = append(children, ui.Button(c.T("articles.toAll"), "primary", ui.Navigate(PathArticles+"/"+t.Slug)))
	return Page{Screen: SubPage(c, "article", a.Title, ui.Navigate(PathArticles+"/"+t.Slug), ui.Stack("md", children...))}
}

// NewsList lists news items with dividers between them.
func NewsList(c Context, items []library.NewsItem) Page {
	rows := make([]*ui.Node, 0, len(items))
	for _, n := range items {
		row := &ui.Node{Type: "list_item", Title: n.Title, Subtitle: n.Date.Format("January 2, 2006") + " · " + n.Summary,
			Action: ui.Navigate(PathNews + "/" + n.Slug)}
		if n.Image != "" {
			img := ui.Image(n.Image, "")
			img.Size = "sm"
			row.Leading = img
		}
		rows = append(rows, row)
	}
	list := ui.List(true, rows...)
	list.Label = c.T("news.title")
	return Page{Screen: SubPage(c, "news", c.T("news.title"), nil, list)}
}

// NewsPost is one news item with 'To all news'; an unknown slug shows
// nothing but the way back.
func NewsPost(c Context, n *library.NewsItem) Page {
	back := ui.Button(c.T("news.toAll"), "primary", ui.Navigate(PathNews))
	if n == nil {
		return Page{Screen: SubPage(c, "news-post", c.T("news.title"), ui.Navigate(PathNews), ui.Stack("md", back))}
	}
	children := []*ui.Node{}
	if n.Image != "" {
		img := ui.Image(n.Image, "")
		img.Aspect = "wide"
		children = append(children, img)
	}
	children = append(children, ui.Text("caption", n.Date.Format("January 2, 2006")), ui.Text("title", n.Title),
		richText(n.Body), back)
	return Page{Screen: SubPage(c, "news-post", n.Title, ui.Navigate(PathNews), ui.Stack("md", children...))}
}

// LegalPage is the privacy policy or the terms: public and unwrapped, dated,
// with the operator's details already filled in.
func LegalPage(c Context, id string, l library.Legal, body []ui.RichBlock) Page {
	// The bare layout has no padding of its own; without the stack's, the
	// text would touch the screen's edges.
	text := ui.Stack("md",
		ui.Text("title", l.Title),
		ui.Text("caption", strings.ReplaceAll(c.T("legal.updated"), "{date}", brand.Date(l.Updated))),
		richText(body),
	)
	text.Padded = true
	s := ui.Screen(id, l.Title, text)
	s.Layout = "bare"
	return Page{Screen: s}
}
