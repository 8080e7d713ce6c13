package server

import (
	"context"
	"log/slog"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/gofiber/fiber/v3"
	"github.com/gofiber/fiber/v3/middleware/requestid"

	"glimpse/engine"
	"glimpse/engine/redact"
)

func requestID(c fiber.Ctx) string { return requestid.FromContext(c) }

// newRequestIDs returns a generator of request ids: a random per-process
// prefix and a counter. Ids only need to be unique, not secret, and this
// keeps a random read off every request.
func newRequestIDs() func() string {
	prefix := engine.NewID()[:12]
	var n atomic.Uint64
	return func() string {
		// One allocation: the id is assembled on the stack.
		var b [32]byte
		id := append(append(b[:0], prefix...), '-')
		return string(strconv.AppendUint(id, n.Add(1), 36))
	}
}

// logRequests writes one line per request with the query's secrets redacted
// (engine/redact: the same list and redaction as error reports), also inside
// the screen endpoint's ?path=, which carries the page's own query.
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
	// LogAttrs with typed attributes writes the same line as Info with
	// key-value pairs, without boxing each value.
	s.Logger.LogAttrs(context.Background(), slog.LevelInfo, "request", slog.String("requestId", requestID(c)),
		slog.String("method", c.Method()), slog.String("path", c.Path()),
		slog.String("query", redact.Query(string(c.Request().URI().QueryString()))),
		slog.Int("status", status), slog.Duration("duration", time.Since(start)))
	return nil
}
