package server

import (
	"strings"

	"glimpse/engine/library"
	"glimpse/screens"
)

// redirect is returned by a screen function to send the person elsewhere
// (an unknown topic to the dashboard, an unknown part to its topic).
type redirect string

func (r redirect) Error() string { return "redirect to " + string(r) }

func (s *Server) insightsScreen(r *request) (screens.Page, error) { return s.pageScreen(r, "insights") }
func (s *Server) trendsScreen(r *request) (screens.Page, error)   { return s.pageScreen(r, "top-trends") }
func (s *Server) hacksScreen(r *request) (screens.Page, error)    { return s.pageScreen(r, "top-hacks") }

// pageScreen is the reading screen of a page of the published library.
func (s *Server) pageScreen(r *request, slug string) (screens.Page, error) {
	page, _ := screens.ReadingPage(r.copy, s.library(), library.KindPage, slug, s.operator())
	return page, nil
}

// articlesScreen serves /dashboard/articles/{topic}[/{part}].
func (s *Server) articlesScreen(r *request) (screens.Page, error) {
	rest := strings.Trim(strings.TrimPrefix(r.path, screens.PathArticles), "/")
	topicSlug, partSlug, _ := strings.Cut(rest, "/")
	topic, ok := s.library().Topics[topicSlug]
	if !ok {
		return screens.Page{}, redirect(screens.PathDashboard)
	}
	if partSlug == "" {
		return screens.TopicPage(r.copy, topic), nil
	}
	part, ok := topic.Part(partSlug)
	if !ok || strings.Contains(partSlug, "/") {
		return screens.Page{}, redirect(screens.PathArticles + "/" + topic.Slug)
	}
	return screens.TopicArticle(r.copy, topic, part), nil
}

func (s *Server) newsScreen(r *request) (screens.Page, error) {
	return screens.NewsList(r.copy, s.library().News), nil
}

func (s *Server) newsPostScreen(r *request) (screens.Page, error) {
	slug := strings.Trim(strings.TrimPrefix(r.path, screens.PathNews), "/")
	if n, ok := s.library().NewsItem(slug); ok {
		return screens.NewsPost(r.copy, &n), nil
	}
	return screens.NewsPost(r.copy, nil), nil
}

// byPath keys cached content pages by their path: they depend on nothing
// else but the brand, which every key includes.
func byPath(r *request) string { return r.path }

func (s *Server) legalScreen(id string, page func() library.Legal) func(r *request) (screens.Page, error) {
	return func(r *request) (screens.Page, error) { return screens.LegalOf(r.copy, id, page(), s.operator()), nil }
}

// operator is who runs the service, for the legal pages.
func (s *Server) operator() screens.Operator {
	return screens.Operator{Name: s.Config.OperatorName, Address: s.Config.OperatorAddress, TaxYears: s.Config.TaxRetentionYears}
}
