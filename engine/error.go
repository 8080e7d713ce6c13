// Package engine holds the vocabulary every other package shares: the error
// type with its closed set of codes, the clock and what runs on time (Every,
// WaitLimit), and identifiers. It imports nothing of ours so that every
// concept package can import it.
package engine

import (
	"errors"
	"fmt"
)

// Code is one of a closed set of error kinds. The server maps each code to an
// HTTP status in exactly one place.
type Code string

// The error codes. Add one only together with its HTTP mapping.
const (
	CodeInvalid         Code = "invalid"         // the request is malformed or fails validation
	CodeUnauthenticated Code = "unauthenticated" // no valid session
	CodeForbidden       Code = "forbidden"       // signed in, but not allowed
	CodeNotFound        Code = "not_found"       // the thing asked for does not exist
	CodeConflict        Code = "conflict"        // the write clashes with existing state
	CodeRateLimited     Code = "rate_limited"    // too many attempts; try later
	CodeUnavailable     Code = "unavailable"     // a dependency failed or timed out
	CodeInternal        Code = "internal"        // a bug or an unexpected failure
	CodeStaleClient     Code = "stale_client"    // the renderer must reload to get a newer build
)

// Error is the one error type of the application. Message and Fields are safe
// to show a person; Err is only ever logged.
type Error struct {
	Code    Code
	Message string
	// Fields maps an input id to the message shown under that input.
	Fields map[string]string
	// Err is the underlying cause, kept for logs and errors.Is/As.
	Err error
}

func (e *Error) Error() string {
	switch {
	case e.Err != nil && e.Message != "":
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Err)
	case e.Err != nil:
		return fmt.Sprintf("%s: %v", e.Code, e.Err)
	default:
		return fmt.Sprintf("%s: %s", e.Code, e.Message)
	}
}

// Unwrap exposes the cause to errors.Is and errors.As.
func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error with a message safe to show a person.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Wrap returns an *Error of the given code around a cause that is only logged.
func Wrap(code Code, err error, message string) *Error {
	return &Error{Code: code, Message: message, Err: err}
}

// FieldErrors returns an invalid-input error carrying per-field messages.
func FieldErrors(fields map[string]string) *Error {
	return &Error{Code: CodeInvalid, Fields: fields}
}

// ErrorCode returns the code of the first *Error in err's chain, CodeInternal
// for any other non-nil error, and "" for nil.
func ErrorCode(err error) Code {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeInternal
}

// IsNotFound reports whether err is (or wraps) a not-found *Error.
func IsNotFound(err error) bool { return ErrorCode(err) == CodeNotFound }
