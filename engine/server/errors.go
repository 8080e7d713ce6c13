package server

import (
	"errors"
	"log/slog"
	"net/http"

	"github.com/gofiber/fiber/v3"

	"glimpse/engine"
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
	if errors.As(err, &fe) {
		err = &engine.Error{Code: codeOfStatus(fe.Code), Message: http.StatusText(fe.Code), Err: fe}
	}
	var e *engine.Error
	if !errors.As(err, &e) {
		e = &engine.Error{Code: engine.CodeInternal, Err: err}
	}
	status := statusOf(e.Code)
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
	case http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusUnprocessableEntity:
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
