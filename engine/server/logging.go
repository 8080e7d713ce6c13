package server

import (
	"log/slog"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gofiber/fiber/v3"
	"github.com/gofiber/fiber/v3/middleware/requestid"

	"glimpse/engine"
)

// secretParams are query parameters whose values never reach a log line.
var secretParams = map[string]bool{"creds": true, "login": true, "token": true, "code": true,
	"password": true, "id": true, "email": true}

func requestID(c fiber.Ctx) string { return requestid.FromContext(c) }

// newRequestIDs returns a generator of request ids: a random per-process
// prefix and a counter. Ids only need to be unique, not secret, and this
// keeps a random read off every request.
func newRequestIDs() func() string {
	prefix := engine.NewID()[:12]
	var n atomic.Uint64
	return func() string { return prefix + "-" + strconv.FormatUint(n.Add(1), 36) }
}

// logRequests writes one line per request with the query's secrets redacted.
// The screen endpoint carries the page's own query inside ?path=, so that is
// redacted one level deeper too.
func (s *Server) logRequests(c fiber.Ctx) error {
	if !s.Logger.Enabled(c.Context(), slog.LevelInfo) {
		return c.Next()
	}
	start := time.Now()
	err := c.Next()
	status := c.Response().StatusCode()
	if err != nil {
		// The error handler has not run yet; it logs failures itself.
		return err
	}
	s.Logger.Info("request", "requestId", requestID(c), "method", c.Method(),
		"path", c.Path(), "query", redactQuery(string(c.Request().URI().QueryString())),
		"status", status, "duration", time.Since(start))
	return nil
}

// redactQuery replaces the values of secret parameters (also inside a path
// parameter that carries a URL) with "redacted".
func redactQuery(raw string) string {
	if raw == "" {
		return ""
	}
	q, err := url.ParseQuery(raw)
	if err != nil {
		return "unparseable"
	}
	for k, vs := range q {
		for i, v := range vs {
			switch {
			case secretParams[strings.ToLower(k)]:
				vs[i] = "redacted"
			case k == "path":
				if p, query, ok := strings.Cut(v, "?"); ok {
					vs[i] = p + "?" + redactQuery(query)
				}
			}
		}
	}
	return q.Encode()
}
