package server

import (
	"strings"

	"glimpse/engine/billing"
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
	if s.Instagram != nil {
		state.ConnectURL = PathInstagramConnect
	}
	switch r.query.Get("instagram") {
	case "denied":
		state.Notice = r.copy.T("instagram.denied")
	case "failed":
		state.Notice = r.copy.T("instagram.failed")
	}
	if state.Notice == "" && p.Problem != "" {
		state.Notice = p.Problem
	}
	if p.Result != nil && s.entitlements(r)[billing.ProfileReport] {
		state.ReportURL = PathProfileReport
	}
	if p.Source == profile.SourceDemo {
		state.Source = r.copy.T("analytics.demoSource")
	}
	if p.Result != nil {
		// Our own files are shown directly; pictures from Instagram go
		// through the image proxy under a signed URL.
		for _, tp := range append(p.Result.MostLiked, p.Result.MostCommented...) {
			switch {
			case strings.HasPrefix(tp.PictureURL, "/static/"):
				state.Pictures[tp.ID] = tp.PictureURL
			case strings.HasPrefix(tp.PictureURL, "https://"):
				state.Pictures[tp.ID] = s.Images.URL(tp.PictureURL)
			}
		}
	}
	return screens.Analytics(r.copy, state), nil
}
