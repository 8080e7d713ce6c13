package server

import (
	"errors"
	"log/slog"
	"time"

	"github.com/gofiber/fiber/v3"

	"glimpse/engine"
	"glimpse/engine/sentry"
)

// Error reporting is engine/sentry's (docs/error-reporting.md); this is its
// wiring. With GLIMPSE_SENTRY_DSN unset no reporter exists, so requests pass
// through no reporting code and nothing is sent.

// PathErrorTunnel is where the renderer's reporter posts its envelopes.
const PathErrorTunnel = sentry.PathTunnel

// reporterStateKey names the reporter in the Fiber app's state, where the
// tunnel, the page shell and FlushReports find it.
const reporterStateKey = "glimpse.reporter"

// reportErrors is the reporter's middleware, or nil when reporting is off.
func (s *Server) reportErrors() fiber.Handler {
	r, err := sentry.New(sentry.Options{DSN: s.Config.SentryDSN, Environment: s.Config.Environment,
		Version: s.Version, Logger: s.Logger})
	if err != nil {
		if !errors.Is(err, sentry.ErrOff) {
			// config.Load has checked the DSN's shape; a failure here only
			// loses reports, which must not stop the app from serving.
			s.Logger.Error("error reporting is off", slog.Any("err", err))
		}
		return nil
	}
	s.app.State().Set(reporterStateKey, r)
	return r.Capture
}

// reporter is the app's reporter, or nil when reporting is off.
func reporter(app *fiber.App) *sentry.Reporter {
	r, _ := app.State().Get(reporterStateKey)
	rep, _ := r.(*sentry.Reporter)
	return rep
}

// FlushReports waits up to timeout for queued reports to be sent, so errors
// of the last requests before a shutdown are not lost. It reports whether the
// queue emptied; with reporting off it returns true at once.
func (s *Server) FlushReports(timeout time.Duration) bool {
	if r := reporter(s.app); r != nil {
		return r.Flush(timeout)
	}
	return true
}

// reportingMeta is the page shell's <meta name="glimpse-sentry"> tag, or ""
// when reporting is off: the renderer then never loads its reporter.
func reportingMeta(c fiber.Ctx) string {
	if r := reporter(c.App()); r != nil {
		return r.Meta()
	}
	return ""
}

// tunnelErrors forwards the renderer's envelopes; without a reporter there
// is no such route.
func (s *Server) tunnelErrors(c fiber.Ctx) error {
	if r := reporter(s.app); r != nil {
		return r.Tunnel(c)
	}
	return engine.Errorf(engine.CodeNotFound, "Not found")
}
