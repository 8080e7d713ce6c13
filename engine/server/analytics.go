package server

import (
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v3"

	"glimpse/engine"

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
	if s.entitlements(r)[billing.ProfileReport] {
		if p.Result != nil {
			state.ReportURL = PathProfileReport
		} else {
			state.ReportPending = true
		}
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

// PathAudience answers one page of an audience list as JSON (the Analytics
// screen's name_list nodes read it as the reader scrolls and searches).
const PathAudience = screens.PathAudience

// audienceRequest is a page of one group's names: a search, and where the
// page starts and how long it is.
type audienceRequest struct {
	Group  string `validate:"required,max=32"`
	Search string `validate:"max=64"`
	Offset int    `validate:"min=0,max=100000000"`
	Limit  int    `validate:"min=1,max=200"`
}

// serveAudience answers GET /ui/audience?group=&q=&offset=&limit=.
func (s *Server) serveAudience(c fiber.Ctx) error {
	r, err := s.newRequest(c)
	if err != nil {
		return err
	}
	if !r.authorised {
		return engine.Errorf(engine.CodeUnauthenticated, "%s", r.copy.T("error.generic"))
	}
	in := audienceRequest{Group: c.Query("group"), Search: c.Query("q"), Limit: 100}
	for name, to := range map[string]*int{"offset": &in.Offset, "limit": &in.Limit} {
		if v := c.Query(name); v != "" {
			if *to, err = strconv.Atoi(v); err != nil {
				return engine.Errorf(engine.CodeInvalid, "%s", r.copy.T("error.generic"))
			}
		}
	}
	if err := s.validate.Struct(in); err != nil {
		return engine.Wrap(engine.CodeInvalid, err, r.copy.T("error.generic"))
	}
	page, err := s.Profiles.Audience(c.Context(), r.principal.User.ID, in.Group, in.Search, in.Offset, in.Limit)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderCacheControl, "private, no-store")
	return c.JSON(page)
}
