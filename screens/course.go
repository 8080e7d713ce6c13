package screens

import (
	"strconv"
	"strings"

	"glimpse/engine/ui"
)

// LessonView is one lesson as the course screen lists it.
type LessonView struct {
	Number   int
	Title    string
	Subtitle string
	Image    string
	PDF      string // where the lesson's PDF opens
}

// Course is the PDF course for its owners: the badge, the titles and the
// ten lessons, each opening its PDF in the same window.
func Course(c Context, lessons []LessonView) Page {
	badge := ui.Badge(c.T("course.badge"), "brand")
	children := []*ui.Node{
		badge,
		ui.Text("title", c.T("course.title")),
		ui.Text("heading", c.T("course.heading")),
	}
	for _, l := range lessons {
		n := strconv.Itoa(l.Number)
		card := ui.Card(nil,
			ui.Text("overline", strings.ReplaceAll(c.T("course.lesson"), "{n}", n)),
			ui.Text("subheading", l.Title),
			ui.Text("body", l.Subtitle),
			ui.Button(strings.ReplaceAll(c.T("course.view"), "{n}", n), "primary", ui.OpenURL(l.PDF, false)),
		)
		if l.Image != "" {
			card.Image = &ui.ImageRef{Src: l.Image, Alt: ""}
		}
		children = append(children, card)
	}
	return Page{Screen: SubPage(c, "course", c.T("course.title"), nil, ui.Stack("md", children...))}
}
