package server

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"html/template"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v3"

	"glimpse/engine"
	"glimpse/engine/billing"
	"glimpse/engine/report"
	"glimpse/engine/store"
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
	return s.serveFile(c, screens.PathAnalytics, s.profileReport)
}

func (s *Server) profileReport(c fiber.Ctx, r *request) error {
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

// serveFile answers a file a person downloads or opens (a PDF) with serve.
// A file that cannot be served answers the renderer, which fetches a
// download itself and asks for JSON, with the usual error, which it shows in
// the app. Anyone else (a browser following the link on its own: a new tab,
// a link in a mail, a page without the renderer) gets a page a person can
// read, saying why, with the way back to back: never an error body a
// browser would save under the file's name.
func (s *Server) serveFile(c fiber.Ctx, back string, serve func(c fiber.Ctx, r *request) error) error {
	r, err := s.newRequest(c)
	if err == nil {
		err = serve(c, r)
	}
	if err == nil || c.Accepts(fiber.MIMETextHTML, fiber.MIMEApplicationJSON) == fiber.MIMEApplicationJSON {
		return err
	}
	return s.fileErrorPage(c, r, err, back)
}

// fileErrorPage is serveFile's page for a file that cannot be served: the
// brand, what went wrong in the words the error carries (an internal
// cause is logged, never shown) and a link back into the app (to sign in,
// for a person who is not).
func (s *Server) fileErrorPage(c fiber.Ctx, r *request, err error, back string) error {
	if r == nil {
		b := s.Brands.ForHost(c.Hostname())
		r = &request{fiber: c, brand: b, copy: screens.Context{Brand: b, Copy: s.Brands.Copy(b)}}
	}
	status, msg := http.StatusInternalServerError, r.copy.T("error.generic")
	var e *engine.Error
	switch {
	case store.IsUnavailable(err):
		status = http.StatusServiceUnavailable
	case errors.As(err, &e) && e.Code != engine.CodeInternal:
		status = statusOf(e.Code)
		if e.Message != "" {
			msg = e.Message
		}
		if e.Code == engine.CodeUnauthenticated {
			back = screens.PathSignIn
		}
	}
	level := slog.LevelInfo
	if status >= 500 {
		level = slog.LevelError
	}
	s.Logger.Log(c.Context(), level, "file failed", "requestId", requestID(c), "path", c.Path(),
		"status", status, "error", err.Error())
	var page bytes.Buffer
	if err := fileErrorTemplate.Execute(&page, fileErrorView{Brand: r.brand.Name, Title: r.copy.T("download.failedTitle"),
		Message: msg, Back: back, BackLabel: strings.ReplaceAll(r.copy.T("download.back"), "{brand}", r.brand.Name),
		Style: template.CSS(fileErrorStyle)}); err != nil {
		return engine.Wrap(engine.CodeInternal, err, "")
	}
	c.Set("Content-Type", "text/html; charset=utf-8")
	c.Set("Cache-Control", "no-store")
	c.Set("Content-Security-Policy", fileErrorPolicy)
	return c.Status(status).Send(page.Bytes())
}

// fileErrorView is what fileErrorTemplate fills in, each value escaped.
type fileErrorView struct {
	Brand, Title, Message, Back, BackLabel string
	Style                                  template.CSS
}

// fileErrorStyle is the page's only style, allowed by its hash
// (fileErrorPolicy): the page loads nothing.
const fileErrorStyle = `body{margin:0;background:#f4f6fb;color:#141a33;font:16px/1.5 -apple-system,Segoe UI,Roboto,Helvetica,Arial,sans-serif}` +
	`main{max-width:430px;margin:0 auto;padding:32px 20px}.brand{font-weight:600;color:#5b6478}h1{font-size:22px;line-height:1.3;margin:8px 0 12px}` +
	`a{display:inline-block;margin-top:12px;background:#3d5afe;color:#fff;text-decoration:none;font-weight:600;padding:12px 20px;border-radius:8px}`

var fileErrorPolicy = func() string {
	sum := sha256.Sum256([]byte(fileErrorStyle))
	return "default-src 'none'; style-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
}()

var fileErrorTemplate = template.Must(template.New("file-error").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>{{.Title}} · {{.Brand}}</title><style>{{.Style}}</style></head>
<body><main><p class="brand">{{.Brand}}</p><h1>{{.Title}}</h1><p>{{.Message}}</p><a href="{{.Back}}">{{.BackLabel}}</a></main></body></html>
`))
