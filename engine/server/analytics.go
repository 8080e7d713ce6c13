package server

import (
	"strings"

	"glimpse/engine/profile"
	"glimpse/screens"
)

// analyticsScreen shows the subscriber's profile analysis and its status.
func (s *Server) analyticsScreen(r *request) (screens.Page, error) {
	p, err := s.Profiles.Get(r.fiber.Context(), r.principal.User.ID)
	if err != nil {
		return screens.Page{}, err
	}
	state := screens.AnalyticsState{Status: p.Status, Result: p.Result, Pictures: map[string]string{}}
	state.Followers, state.Engagement = p.Series()
	state.CanUpload = p.Source == "" || p.Source == profile.SourceExport
	if p.Source == profile.SourceDemo {
		state.Source = r.ctx.T("analytics.demoSource")
	}
	if p.Result != nil {
		// Only our own files are shown directly; pictures from Instagram
		// will go through the image proxy, which arrives with the Instagram
		// connection. Until then they show a placeholder.
		for _, tp := range append(p.Result.MostLiked, p.Result.MostCommented...) {
			if strings.HasPrefix(tp.PictureURL, "/static/") {
				state.Pictures[tp.ID] = tp.PictureURL
			}
		}
	}
	return screens.Analytics(r.ctx, state), nil
}
