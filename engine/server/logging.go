package server

import (
	"context"
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
	return func() string {
		// One allocation: the id is assembled on the stack.
		var b [32]byte
		id := append(append(b[:0], prefix...), '-')
		return string(strconv.AppendUint(id, n.Add(1), 36))
	}
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
	// LogAttrs with typed attributes writes the same line as Info with
	// key-value pairs, without boxing each value.
	s.Logger.LogAttrs(context.Background(), slog.LevelInfo, "request", slog.String("requestId", requestID(c)),
		slog.String("method", c.Method()), slog.String("path", c.Path()),
		slog.String("query", redactQuery(string(c.Request().URI().QueryString()))),
		slog.Int("status", status), slog.Duration("duration", time.Since(start)))
	return nil
}

// redactQuery replaces the values of secret parameters (also inside a path
// parameter that carries a URL) with "redacted", and writes the query in
// url.Values.Encode's form (keys sorted, values escaped alike).
func redactQuery(raw string) string {
	if raw == "" {
		return ""
	}
	if canonicalWithoutSecrets(raw) {
		// Nothing to redact, and parsing and encoding would give raw back:
		// the common case (?path=%2Fdashboard) costs a scan, no allocation.
		return raw
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

// canonicalWithoutSecrets reports, without allocating, that raw names no
// parameter redactQuery would redact (no secret name, no path carrying a
// query of its own) and is already what url.Values.Encode writes for it:
// name=value pairs joined by '&', every name non-empty and unreserved
// (A-Z a-z 0-9 - _ . ~) and in sorted order (equal names together, as Encode
// groups them), every value unreserved bytes, '+' (a space) or %XX escapes
// in upper case of bytes QueryEscape escapes. Anything else takes the full
// parse; a false answer only costs time.
func canonicalWithoutSecrets(raw string) bool {
	prev := ""
	for pair := range strings.SplitSeq(raw, "&") {
		name, value, ok := strings.Cut(pair, "=")
		if !ok || name == "" || name < prev {
			return false
		}
		for i := 0; i < len(name); i++ {
			if !unreserved(name[i]) {
				return false
			}
		}
		if isSecretParam(name) {
			return false
		}
		if name == "path" && strings.Contains(value, "%3F") {
			return false // a URL with a query: its parameters need a look
		}
		for i := 0; i < len(value); i++ {
			c := value[i]
			switch {
			case unreserved(c), c == '+':
			case c == '%':
				if i+2 >= len(value) || !upperHex(value[i+1]) || !upperHex(value[i+2]) {
					return false
				}
				b := unhex(value[i+1])<<4 | unhex(value[i+2])
				if unreserved(b) || b == ' ' {
					return false // QueryEscape writes it as itself or '+'
				}
				i += 2
			default:
				return false
			}
		}
		prev = name
	}
	return true
}

// isSecretParam is secretParams[strings.ToLower(name)] without allocating.
func isSecretParam(name string) bool {
	for secret := range secretParams {
		if strings.EqualFold(name, secret) {
			return true
		}
	}
	return false
}

func unreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.' || c == '~'
}

func upperHex(c byte) bool { return '0' <= c && c <= '9' || 'A' <= c && c <= 'F' }

func unhex(c byte) byte {
	if c <= '9' {
		return c - '0'
	}
	return c - 'A' + 10
}
