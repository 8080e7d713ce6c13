package api_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"glimpse/engine"
	"glimpse/engine/instagram/api"
	"glimpse/engine/instagram/api/apitest"
)

// The fault tests run every call a connected profile's refresh makes
// (token refresh, profile, media) against each documented failure of the API
// and check the three things a person and the refresh job depend on: the
// class of the error and the message shown (AppError), that the call returns
// within the configured timeout, and that the next call works once the API
// does, so no fault leaves a job stuck.

// faultFixtures is the default fixture set plus replies the API sends when
// it misbehaves: a body cut off mid-stream and a body of the wrong shape.
func faultFixtures(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	src := apitest.DefaultFixtures(t)
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for name, body := range map[string]string{
		"truncated.json":   `{"data":[{"id":"17900000000000001","caption":"cut`,
		"wrong_shape.json": `{"data":"not a list","access_token":["x"],"id":{"a":1}}`,
		"not_json.json":    "\x00\xffnot json at all",
		"error_garbled.json": `{"error":{"message":"Invalid OAuth access token.","type":"OAuthException","code":"190",` +
			`"error_subcode":"x","fbtrace_id":7,"is_transient":"no"}}`,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// faultCall is one API call the refresh job makes.
type faultCall struct {
	name string
	path string // as the fake counts it
	call func(ctx context.Context, c *api.Client, tok api.Token) error
}

var faultCalls = []faultCall{
	{"refresh", "/refresh_access_token", func(ctx context.Context, c *api.Client, tok api.Token) error {
		_, err := c.Refresh(ctx, tok)
		return err
	}},
	{"profile", "/me", func(ctx context.Context, c *api.Client, tok api.Token) error {
		_, err := c.Profile(ctx, tok)
		return err
	}},
	{"media", "/me/media", func(ctx context.Context, c *api.Client, tok api.Token) error {
		_, err := c.Media(ctx, tok, 5)
		return err
	}},
}

func TestFaultsEveryDocumentedError(t *testing.T) {
	t.Parallel()
	faults := []struct {
		name    string
		status  int
		fixture string
		want    error
		code    engine.Code
		message string
		// rest is how long the token rests after the fault (0: not at all).
		rest time.Duration
	}{
		{"190 token expired", 400, "error_190.json", api.ErrReauthorize, engine.CodeForbidden, api.MessageReauthorize, 0},
		{"190/460 password changed", 400, "error_190_460.json", api.ErrReauthorize, engine.CodeForbidden, api.MessageReauthorize, 0},
		{"190 with fields of surprising types", 400, "error_garbled.json", api.ErrReauthorize, engine.CodeForbidden, api.MessageReauthorize, 0},
		{"401 without a body", 401, "", api.ErrReauthorize, engine.CodeForbidden, api.MessageReauthorize, 0},
		{"4 app rate limit", 400, "error_4.json", api.ErrRateLimited, engine.CodeRateLimited, api.MessageRateLimited, api.DefaultBackoff},
		{"17 user rate limit", 400, "error_17.json", api.ErrRateLimited, engine.CodeRateLimited, api.MessageRateLimited, api.DefaultBackoff},
		{"32 page rate limit", 400, "error_32.json", api.ErrRateLimited, engine.CodeRateLimited, api.MessageRateLimited, api.DefaultBackoff},
		{"613 custom rate limit", 400, "error_613.json", api.ErrRateLimited, engine.CodeRateLimited, api.MessageRateLimited, api.DefaultBackoff},
		{"10 permission", 400, "error_10.json", api.ErrPermission, engine.CodeForbidden, api.MessagePermission, 0},
		{"403 without a body", 403, "", api.ErrPermission, engine.CodeForbidden, api.MessagePermission, 0},
		{"500 with code 1", 500, "error_500.json", api.ErrUnavailable, engine.CodeUnavailable, api.MessageUnavailable, 0},
		{"502 HTML page", 502, "error_502.html", api.ErrUnavailable, engine.CodeUnavailable, api.MessageUnavailable, 0},
		{"503 transient code 2", 503, "error_2.json", api.ErrUnavailable, engine.CodeUnavailable, api.MessageUnavailable, 0},
		{"200 truncated JSON", 200, "truncated.json", api.ErrUnavailable, engine.CodeUnavailable, api.MessageUnavailable, 0},
		{"200 JSON of the wrong shape", 200, "wrong_shape.json", api.ErrUnavailable, engine.CodeUnavailable, api.MessageUnavailable, 0},
		{"200 not JSON", 200, "not_json.json", api.ErrUnavailable, engine.CodeUnavailable, api.MessageUnavailable, 0},
	}
	for _, call := range faultCalls {
		for _, fault := range faults {
			t.Run(call.name+"/"+fault.name, func(t *testing.T) {
				t.Parallel()
				s := apitest.NewServer(t, faultFixtures(t))
				clock := engine.NewManualClock(time.Now())
				cfg := s.Config()
				cfg.Clock = clock
				cfg.Timeout = 2 * time.Second
				client := api.New(cfg)
				tok := s.Token()

				s.FailNext(call.path, fault.status, fault.fixture, nil)
				err := call.call(t.Context(), client, tok)
				assertError(t, err, fault.want, tok.AccessToken)
				var app *engine.Error
				if !errors.As(api.AppError(err), &app) || app.Code != fault.code || app.Message != fault.message {
					t.Fatalf("AppError(%v) = %v, want %s %q", err, app, fault.code, fault.message)
				}
				var rl *api.RateLimitError
				if errors.As(err, &rl) && rl.RetryAfter != fault.rest {
					t.Errorf("RetryAfter = %s, want %s", rl.RetryAfter, fault.rest)
				}

				// Backoff: a resting token does not reach the API again.
				if fault.rest > 0 {
					before := s.Requests("")
					if err := call.call(t.Context(), client, tok); !errors.Is(err, api.ErrRateLimited) {
						t.Errorf("inside the backoff: %v, want ErrRateLimited", err)
					}
					if s.Requests("") != before {
						t.Errorf("a call inside the backoff reached the API")
					}
					clock.Advance(fault.rest)
				}
				// The API answers again: so does the client.
				if err := call.call(t.Context(), client, tok); err != nil {
					t.Errorf("after the fault: %v", err)
				}
			})
		}
	}
}

// A hang longer than the timeout returns ErrUnavailable within about the
// timeout on every call, and the client works once the API answers again.
func TestFaultsHang(t *testing.T) {
	t.Parallel()
	for _, call := range faultCalls {
		t.Run(call.name, func(t *testing.T) {
			t.Parallel()
			s := apitest.NewServer(t, "")
			cfg := s.Config()
			// Long enough for the request after the hang to answer on a
			// loaded machine (CI runs three suites at once under the race
			// detector): at 200 ms it timed out there once.
			const timeout = 2 * time.Second
			cfg.Timeout = timeout
			client := api.New(cfg)
			tok := s.Token()
			s.SetDelay(30 * time.Second)

			began := time.Now()
			err := call.call(t.Context(), client, tok)
			took := time.Since(began)
			assertError(t, err, api.ErrUnavailable, tok.AccessToken)
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("err = %v, want it to wrap context.DeadlineExceeded", err)
			}
			var app *engine.Error
			if !errors.As(api.AppError(err), &app) || app.Message != api.MessageUnavailable {
				t.Errorf("AppError = %v, want %q", app, api.MessageUnavailable)
			}
			// One request's timeout, plus slack for a loaded machine.
			if took > timeout+2*time.Second {
				t.Errorf("gave up after %s with a %s timeout", took, timeout)
			}

			s.SetDelay(0)
			if err := call.call(t.Context(), client, tok); err != nil {
				t.Errorf("after the hang: %v", err)
			}
		})
	}
}
