package server

import (
	"fmt"
	"strings"

	"github.com/gofiber/fiber/v3"

	"glimpse/engine"
	"glimpse/engine/billing"
	"glimpse/engine/lesson"
	"glimpse/engine/ui"
	"glimpse/screens"
)

// Paths of the course's PDFs: each lesson, and the Reels playbook at a
// static path under the site origin.
const (
	PathLessonPDFs    = "/course/lessons/"
	PathReelsPlaybook = screens.PathReelsPlaybook
	reelsSlug         = "reels-playbook"
)

// courseScreen shows the course to its owners; anyone else lands on the
// dashboard with the purchase modal open.
func (s *Server) courseScreen(r *request) (screens.Page, error) {
	if !s.entitlements(r)[billing.PDFCourse] {
		return screens.Page{}, redirectWith{to: screens.PathDashboard, then: ui.OpenOverlay(screens.CoursePurchaseOverlay)}
	}
	var views []screens.LessonView
	for _, d := range s.Lessons {
		if !d.IsLesson() {
			continue
		}
		views = append(views, screens.LessonView{Number: d.Number, Title: d.Title, Subtitle: d.Subtitle,
			Image: fmt.Sprintf("/static/lessons/lesson-%02d.svg", d.Number), PDF: PathLessonPDFs + d.Slug + ".pdf"})
	}
	return screens.Course(r.copy, views), nil
}

// serveLessonPDF serves a lesson's PDF to owners of the course.
func (s *Server) serveLessonPDF(c fiber.Ctx) error {
	slug := strings.TrimSuffix(c.Params("file"), ".pdf")
	if slug == reelsSlug {
		return engine.Errorf(engine.CodeNotFound, "Not found")
	}
	return s.servePDF(c, slug, billing.PDFCourse, "course.notOwned", screens.PathCourse)
}

// serveReelsPlaybook serves the Reels playbook to its owners.
func (s *Server) serveReelsPlaybook(c fiber.Ctx) error {
	return s.servePDF(c, reelsSlug, billing.ReelsPlaybook, "reels.notOwned", screens.PathMyPlan)
}

// servePDF checks the entitlement and sends the (cached) PDF of a document;
// one that cannot be sent is serveFile's error, with the way back to back.
func (s *Server) servePDF(c fiber.Ctx, slug string, need billing.Entitlement, notOwned, back string) error {
	return s.serveFile(c, back, func(c fiber.Ctx, r *request) error { return s.sendPDF(c, r, slug, need, notOwned) })
}

func (s *Server) sendPDF(c fiber.Ctx, r *request, slug string, need billing.Entitlement, notOwned string) error {
	if !r.authorised {
		return engine.Errorf(engine.CodeUnauthenticated, "%s", r.copy.T("report.signIn"))
	}
	if !s.entitlements(r)[need] {
		return engine.Errorf(engine.CodeForbidden, "%s", r.copy.T(notOwned))
	}
	for _, d := range s.Lessons {
		if d.Slug != slug {
			continue
		}
		pdf, etag, err := s.lessonCache(r.brand.Name).Get(d)
		if err != nil {
			return engine.Wrap(engine.CodeInternal, err, "")
		}
		c.Set("ETag", etag)
		c.Set("Cache-Control", "private, no-cache")
		if c.Get("If-None-Match") == etag {
			return c.SendStatus(fiber.StatusNotModified)
		}
		c.Set("Content-Type", "application/pdf")
		c.Set("Content-Disposition", `inline; filename="`+slug+`.pdf"`)
		return c.Send(pdf)
	}
	return engine.Errorf(engine.CodeNotFound, "Not found")
}

// lessonCache returns the PDF cache of a brand (the brand name is printed
// in the PDFs), making it on first use.
func (s *Server) lessonCache(brandName string) *lesson.Cache {
	if c, ok := s.lessonPDFs.Load(brandName); ok {
		return c.(*lesson.Cache)
	}
	c, _ := s.lessonPDFs.LoadOrStore(brandName, lesson.NewCache(func(d lesson.Doc) ([]byte, error) {
		return lesson.Render(d, brandName)
	}))
	return c.(*lesson.Cache)
}

// redirectWith is a redirect that runs one more action on arrival (the
// purchase modal on the dashboard).
type redirectWith struct {
	to   string
	then *ui.Action
}

func (r redirectWith) Error() string { return "redirect to " + r.to }
