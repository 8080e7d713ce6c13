package server

import (
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v3"

	"glimpse/engine"
	"glimpse/engine/billing"
	"glimpse/engine/report"
	"glimpse/screens"
)

// PathProfileReport is the stable URL of a subscriber's profile report.
const PathProfileReport = screens.PathProfileReport

// serveImage answers /img: a picture the server signed, fetched through the
// image proxy (allow-listed hosts only, never internal addresses).
func (s *Server) serveImage(c fiber.Ctx) error {
	img, err := s.Images.Fetch(c.Context(), c.Query("u"), c.Query("s"))
	if err != nil {
		return err
	}
	c.Set("Content-Type", img.ContentType)
	c.Set("Cache-Control", "private, max-age=86400")
	c.Set("X-Content-Type-Options", "nosniff")
	return c.Send(img.Body)
}

// serveProfileReport renders the signed-in subscriber's profile report as a
// PDF for owners of the profile-report add-on.
func (s *Server) serveProfileReport(c fiber.Ctx) error {
	r, err := s.newRequest(c)
	if err != nil {
		return err
	}
	if !r.authorised {
		return engine.Errorf(engine.CodeUnauthenticated, "%s", r.copy.T("report.signIn"))
	}
	if !s.entitlements(r)[billing.ProfileReport] {
		return engine.Errorf(engine.CodeForbidden, "%s", r.copy.T("report.notOwned"))
	}
	p, err := s.Profiles.Get(c.Context(), r.principal.User.ID)
	if err != nil {
		return err
	}
	if p.Result == nil {
		return engine.Errorf(engine.CodeNotFound, "%s", r.copy.T("report.notReady"))
	}
	followers, engagement := p.Series()
	source := ""
	if p.Source == "demo" {
		source = r.copy.T("analytics.demoSource")
	}
	pdf, err := report.Render(report.Report{Brand: r.brand.Name, Username: p.Username, GeneratedAt: s.Clock.Now(),
		Result: *p.Result, Followers: followers, Engagement: engagement, Source: source})
	if err != nil {
		return engine.Wrap(engine.CodeInternal, err, "")
	}
	name := strings.ToLower(strings.ReplaceAll(r.brand.Name, " ", "-")) + "-profile-report.pdf"
	c.Set("Content-Type", "application/pdf")
	c.Set("Content-Disposition", `attachment; filename="`+name+`"`)
	c.Set("Cache-Control", "private, no-store")
	c.Set("Content-Length", strconv.Itoa(len(pdf)))
	return c.Send(pdf)
}
