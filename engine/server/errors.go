package server

import (
	"errors"
	"log/slog"
	"net/http"
	"strings"

	"github.com/gofiber/fiber/v3"
	"github.com/valyala/fasthttp"

	"glimpse/engine"
	"glimpse/engine/store"
	"glimpse/engine/ui"
)

// statusOf is the one mapping from error codes to HTTP statuses.
func statusOf(code engine.Code) int {
	switch code {
	case engine.CodeInvalid:
		return http.StatusUnprocessableEntity
	case engine.CodeUnauthenticated:
		return http.StatusUnauthorized
	case engine.CodeForbidden:
		return http.StatusForbidden
	case engine.CodeNotFound:
		return http.StatusNotFound
	case engine.CodeConflict, engine.CodeStaleClient:
		return http.StatusConflict
	case engine.CodeRateLimited:
		return http.StatusTooManyRequests
	case engine.CodeUnavailable:
		return http.StatusServiceUnavailable
	default:
		return http.StatusInternalServerError
	}
}

// handleError answers every error in the action-result shape, so the
// renderer shows Message as the form's error line and Fields under inputs.
// Internal causes are logged, never sent.
func (s *Server) handleError(c fiber.Ctx, err error) error {
	var fe *fiber.Error
	status := 0
	if errors.As(err, &fe) {
		// Fiber's own errors are about the HTTP exchange itself (a wrong
		// method, a request head too large); their status says exactly what
		// the client did wrong, so it is kept rather than folded into a code.
		code := fe.Code
		if code == http.StatusRequestHeaderFieldsTooLarge && c.RequestCtx().UserValue(requestLineTooLongKey{}) != nil {
			code = http.StatusRequestURITooLong
		}
		err = &engine.Error{Code: codeOfStatus(code), Message: http.StatusText(code), Err: fe}
		if code >= 400 && code < 500 {
			status = code
		}
	}
	var e *engine.Error
	if !errors.As(err, &e) {
		e = &engine.Error{Code: engine.CodeInternal, Err: err}
	}
	// A database that is away (stopped, failing over, unreachable) is not a
	// bug: the person is told to try again and the status says so, and the
	// request has already given up within the store's selection timeout.
	if e.Code == engine.CodeInternal && store.IsUnavailable(err) {
		e = &engine.Error{Code: engine.CodeUnavailable, Message: "Something went wrong. Please try again later.", Err: err}
	}
	if status == 0 {
		status = statusOf(e.Code)
	}
	level := slog.LevelInfo
	if status >= 500 {
		level = slog.LevelError
	}
	s.Logger.Log(c.Context(), level, "request failed", "requestId", requestID(c), "code", e.Code,
		"status", status, "error", err.Error())
	if e.Code == engine.CodeStaleClient {
		return c.Status(status).JSON(ui.Result{Reload: true})
	}
	msg := e.Message
	if e.Code == engine.CodeInternal || msg == "" && len(e.Fields) == 0 {
		msg = "Something went wrong"
	}
	return c.Status(status).JSON(ui.Result{Errors: &ui.ResultErrors{Fields: e.Fields, Form: msg}})
}

func codeOfStatus(status int) engine.Code {
	switch status {
	case http.StatusNotFound, http.StatusMethodNotAllowed:
		return engine.CodeNotFound
	case http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusUnprocessableEntity,
		http.StatusRequestURITooLong, http.StatusRequestHeaderFieldsTooLarge, http.StatusRequestTimeout:
		return engine.CodeInvalid
	case http.StatusTooManyRequests:
		return engine.CodeRateLimited
	case http.StatusUnauthorized:
		return engine.CodeUnauthenticated
	case http.StatusForbidden:
		return engine.CodeForbidden
	}
	return engine.CodeInternal
}

// requestLineTooLongKey marks (as a fasthttp user value) a request whose
// head overflowed the read buffer within its first line: Fiber reports every
// overflow as 431, but a request line that long is a URI too long (414).
type requestLineTooLongKey struct{}

// noteRequestLineTooLong wraps fasthttp's error handler (Fiber's, which then
// calls handleError) to tell an overlong request line from overlong header
// fields. fasthttp drops the partly read head, and its error describes the
// buffer only by its first and last 200 bytes; the line is taken as too long
// when neither holds a line break. A head whose first line and last header
// are both longer than 200 bytes is therefore called 414 rather than 431:
// either way the client is told its request was too large.
func noteRequestLineTooLong(next func(*fasthttp.RequestCtx, error)) func(*fasthttp.RequestCtx, error) {
	return func(ctx *fasthttp.RequestCtx, err error) {
		var small *fasthttp.ErrSmallBuffer
		if errors.As(err, &small) {
			_, contents, ok := strings.Cut(err.Error(), "contents: ")
			if ok && !strings.Contains(contents, `\n`) {
				ctx.SetUserValue(requestLineTooLongKey{}, true)
			}
		}
		next(ctx, err)
	}
}
