// Package sentry reports errors to a Sentry-compatible service (Sentry, or a
// self-hosted GlitchTip or Sentry) with github.com/getsentry/sentry-go:
// panics and internal errors of requests, the renderer's envelopes through a
// same-origin tunnel, and the page shell's settings for the renderer's
// reporter (docs/error-reporting.md). Secrets never leave the process: the
// request attached to an event is scrubbed of cookies, credential headers,
// bodies and the query parameters engine/redact names.
package sentry

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	sentrygo "github.com/getsentry/sentry-go"
	"github.com/gofiber/fiber/v3"
	"github.com/gofiber/fiber/v3/middleware/requestid"

	"glimpse/engine"
	"glimpse/engine/redact"
)

// PathTunnel is where the renderer's reporter posts its envelopes. It is
// same-origin, so the page's CSP (connect-src 'self') and ad blockers let the
// reports through; the tunnel forwards them to the configured DSN only.
const PathTunnel = "/errors/envelope"

// Reporting settings the spec fixes: "production environment (by default),
// release set to app name and version, trace sampling rate 0.1, personal data
// sending enabled, debug off".
const (
	tracesSampleRate = 0.1
	tunnelTimeout    = 5 * time.Second
	maxEnvelope      = 1 << 20 // the SDKs keep envelopes far below this
)

// scrubbedHeaders are request headers never sent: they carry the session,
// the CSRF token or credentials.
var scrubbedHeaders = []string{"Cookie", "Authorization", "Proxy-Authorization", "X-Csrf-Token", "Set-Cookie"}

// ErrOff is New's answer when no DSN is configured: not a failure, but the
// caller must serve without a Reporter.
var ErrOff = errors.New("error reporting is not configured")

// Options are a Reporter's settings.
type Options struct {
	// DSN is the project's DSN; empty turns reporting off.
	DSN string
	// Environment names where the app runs; empty is "production".
	Environment string
	// Version is the app's, reported in the release glimpse@<version>.
	Version string
	// Logger gets what cannot be reported (the service being down); nil
	// discards it.
	Logger *slog.Logger
	// Transport carries the reports; nil is http.DefaultTransport.
	Transport http.RoundTripper
}

// Reporter sends the error events of one server. It has its own client and
// hub (no sentry-go global state), so several servers in one process, as in
// tests, do not mix their reports.
type Reporter struct {
	hub    *sentrygo.Hub
	dsn    *sentrygo.Dsn
	meta   string
	http   *http.Client
	logger *slog.Logger
}

// New returns a Reporter, or ErrOff when no DSN is configured.
func New(o Options) (*Reporter, error) {
	if o.DSN == "" {
		return nil, ErrOff
	}
	parsed, err := sentrygo.NewDsn(o.DSN)
	if err != nil {
		return nil, fmt.Errorf("error reporting: %w", err)
	}
	environment := o.Environment
	if environment == "" {
		environment = "production" // the spec's environment
	}
	release := "glimpse@" + o.Version
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	client, err := sentrygo.NewClient(sentrygo.ClientOptions{
		Dsn:         o.DSN,
		Environment: environment,
		Release:     release,
		Debug:       false,
		// "Personal data sending enabled" (spec): user info such as the
		// client address is sent. DataCollection is sentry-go's successor
		// to SendDefaultPII; it also keeps cookies and bodies out and
		// deny-lists our secret headers and parameters. scrubEvent below
		// repeats that for the request we attach ourselves.
		DataCollection: &sentrygo.DataCollection{
			UserInfo:    sentrygo.Set(true),
			Cookies:     &sentrygo.KeyValueCollectionBehavior{Mode: sentrygo.CollectionOff},
			HTTPBodies:  []sentrygo.BodyType{},
			HTTPHeaders: &sentrygo.HeaderCollectionConfig{Request: &sentrygo.KeyValueCollectionBehavior{Mode: sentrygo.CollectionDenyList, Terms: scrubbedHeaders}},
			QueryParams: &sentrygo.KeyValueCollectionBehavior{Mode: sentrygo.CollectionDenyList, Terms: redact.Names()},
		},
		EnableTracing:    true,
		TracesSampleRate: tracesSampleRate,
		AttachStacktrace: true,
		HTTPTransport:    o.Transport,
		BeforeSend:       scrubEvent,
		BeforeSendTransaction: func(e *sentrygo.Event, _ *sentrygo.EventHint) *sentrygo.Event {
			return scrubEvent(e, nil)
		},
	})
	if err != nil {
		return nil, fmt.Errorf("error reporting: %w", err)
	}
	settings, err := json.Marshal(map[string]any{
		"dsn": o.DSN, "environment": environment, "release": release,
		"tracesSampleRate": tracesSampleRate, "tunnel": PathTunnel,
	})
	if err != nil {
		return nil, fmt.Errorf("error reporting: %w", err)
	}
	return &Reporter{
		hub: sentrygo.NewHub(client, sentrygo.NewScope()), dsn: parsed,
		meta:   `<meta name="glimpse-sentry" content="` + html.EscapeString(string(settings)) + `">`,
		http:   &http.Client{Timeout: tunnelTimeout, Transport: o.Transport},
		logger: o.Logger,
	}, nil
}

// Meta is the page shell's <meta name="glimpse-sentry"> tag: the settings
// the renderer's reporter starts with. A browser DSN is public by design.
func (r *Reporter) Meta() string { return r.meta }

// Flush waits up to timeout for queued reports to be sent, so errors of the
// last requests before a shutdown are not lost. It reports whether the queue
// emptied.
func (r *Reporter) Flush(timeout time.Duration) bool { return r.hub.Flush(timeout) }

// Capture is the Fiber middleware that reports a request's panic or internal
// error, continuing the renderer's trace from its sentry-trace and baggage
// headers. It belongs inside recover.New: it sees the panic first, reports
// it and panics again so recover still answers 500.
func (r *Reporter) Capture(c fiber.Ctx) (err error) {
	hub := r.hub.Clone()
	// Only the renderer's API calls are traced: they are what the browser's
	// trace continues into, and tracing every asset fetch would drown them.
	var tx *sentrygo.Span
	if strings.HasPrefix(c.Path(), "/ui/") {
		tx = sentrygo.StartTransaction(sentrygo.SetHubOnContext(c.Context(), hub), c.Method()+" "+c.Path(),
			sentrygo.ContinueFromHeaders(c.Get(sentrygo.SentryTraceHeader), c.Get(sentrygo.SentryBaggageHeader)),
			sentrygo.WithOpName("http.server"), sentrygo.WithTransactionSource(sentrygo.SourceURL))
	}
	defer func() {
		v := recover()
		if v != nil {
			r.capture(hub, c, v, nil)
		}
		if tx != nil {
			tx.Status = sentrygo.HTTPtoSpanStatus(c.Response().StatusCode())
			if v != nil {
				tx.Status = sentrygo.SpanStatusInternalError
			}
			tx.Finish()
		}
		if v != nil {
			panic(v)
		}
	}()
	err = c.Next()
	if err != nil && engine.ErrorCode(err) == engine.CodeInternal {
		r.capture(hub, c, nil, err)
	}
	return err
}

// capture sends one panic value or error with the request it happened in.
func (r *Reporter) capture(hub *sentrygo.Hub, c fiber.Ctx, panicValue any, err error) {
	req := &sentrygo.Request{
		URL:         c.BaseURL() + c.Path(),
		Method:      c.Method(),
		QueryString: string(c.Request().URI().QueryString()),
		Headers:     map[string]string{},
	}
	for k, v := range c.GetReqHeaders() {
		req.Headers[k] = strings.Join(v, ", ")
	}
	hub.WithScope(func(scope *sentrygo.Scope) {
		// The request id the access log writes, so a report and its log
		// line can be matched.
		scope.SetTag("request_id", requestid.FromContext(c))
		// Personal data sending is on (spec), so the address is kept; the
		// secrets are removed by scrubEvent.
		scope.SetUser(sentrygo.User{IPAddress: c.IP()})
		scope.AddEventProcessor(func(e *sentrygo.Event, _ *sentrygo.EventHint) *sentrygo.Event {
			e.Request = req
			return e
		})
		if panicValue != nil {
			hub.RecoverWithContext(c.Context(), panicValue)
		} else {
			hub.CaptureException(err)
		}
	})
}

// scrubEvent removes what must never leave the server: cookies, credentials
// and CSRF headers, secret query parameters (redacted as the access log
// redacts them), and request bodies (which hold passwords). It runs on every
// event and transaction.
func scrubEvent(e *sentrygo.Event, _ *sentrygo.EventHint) *sentrygo.Event {
	if e.Request == nil {
		return e
	}
	e.Request.Cookies = ""
	e.Request.Data = ""
	for k := range e.Request.Headers {
		lower := strings.ToLower(k)
		for _, h := range scrubbedHeaders {
			if lower == strings.ToLower(h) || strings.Contains(lower, "csrf") || strings.Contains(lower, "token") {
				delete(e.Request.Headers, k)
				break
			}
		}
	}
	e.Request.QueryString = redact.Query(e.Request.QueryString)
	if u, err := url.Parse(e.Request.URL); err == nil && u.RawQuery != "" {
		u.RawQuery = redact.Query(u.RawQuery)
		e.Request.URL = u.String()
	}
	return e
}

// Tunnel is the handler that forwards an envelope from the renderer to the
// configured service. Only envelopes addressed to our own DSN are forwarded,
// so the route cannot be used to post anything anywhere else. Whether the
// post is same-origin is the router's check, before this.
func (r *Reporter) Tunnel(c fiber.Ctx) error {
	// A large body is streamed to the handler (the server's
	// StreamRequestBody); a small one is buffered.
	var in io.Reader = bytes.NewReader(c.Body())
	if s := c.Request().BodyStream(); s != nil {
		in = s
	}
	body, err := io.ReadAll(io.LimitReader(in, maxEnvelope+1))
	if err != nil {
		return engine.Wrap(engine.CodeInvalid, err, "The request could not be read.")
	}
	if len(body) > maxEnvelope {
		return engine.Errorf(engine.CodeInvalid, "The report is too large.")
	}
	headerLine, _, _ := bytes.Cut(body, []byte("\n"))
	var header struct {
		DSN string `json:"dsn"`
	}
	if err := json.Unmarshal(headerLine, &header); err != nil {
		return engine.Wrap(engine.CodeInvalid, err, "The report could not be read.")
	}
	if got, err := sentrygo.NewDsn(header.DSN); err != nil || got.String() != r.dsn.String() {
		return engine.Errorf(engine.CodeForbidden, "This report is not for this app.")
	}
	ctx, cancel := context.WithTimeout(c.Context(), tunnelTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.dsn.GetAPIURL().String(), bytes.NewReader(body))
	if err != nil {
		return engine.Wrap(engine.CodeInternal, err, "")
	}
	req.Header.Set("Content-Type", "application/x-sentry-envelope")
	res, err := r.http.Do(req)
	if err != nil {
		// The service being down is not the renderer's problem and must
		// not be reported again (it would loop); say so and move on.
		r.logger.Warn("error report not forwarded", slog.Any("err", err))
		return engine.Wrap(engine.CodeUnavailable, err, "The report could not be delivered.")
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
	return c.SendStatus(res.StatusCode)
}
