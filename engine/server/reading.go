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

func (s *Server) insightsScreen(r *request) (screens.Page, error) {
	var latest = s.library().News
	if len(latest) == 0 {
		return screens.Insights(r.copy, s.library().Insights, nil), nil
	}
	return screens.Insights(r.copy, s.library().Insights, &latest[0]), nil
}

func (s *Server) trendsScreen(r *request) (screens.Page, error) {
	return screens.ReadingArticle(r.copy, "top-trends", s.library().Trends), nil
}

func (s *Server) hacksScreen(r *request) (screens.Page, error) {
	return screens.ReadingArticle(r.copy, "top-hacks", s.library().Hacks), nil
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
	return func(r *request) (screens.Page, error) {
		l := page()
		body := l.Render(map[string]string{"operator_name": s.Config.OperatorName,
			"operator_address": s.Config.OperatorAddress, "support_email": r.brand.SupportEmail,
			"product_name": r.brand.Name})
		return screens.LegalPage(r.copy, id, l, body), nil
	}
}
