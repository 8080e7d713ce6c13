package server

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

	"github.com/getsentry/sentry-go"
	"github.com/gofiber/fiber/v3"

	"glimpse/engine"
)

// Error reporting (docs/error-reporting.md). With GLIMPSE_SENTRY_DSN set,
// panics and internal errors go to a Sentry-compatible service, and the page
// shell tells the renderer to load its reporter. Without it nothing here
// runs and nothing is sent.

// PathErrorTunnel is where the renderer's reporter posts its envelopes. It is
// same-origin, so the page's CSP (connect-src 'self') and ad blockers let the
// reports through; the server forwards them to the configured DSN only.
const PathErrorTunnel = "/errors/envelope"

// Reporting settings the spec fixes: "production environment (by default),
// release set to app name and version, trace sampling rate 0.1, personal data
// sending enabled, debug off".
const (
	reportingTracesSampleRate = 0.1
	tunnelTimeout             = 5 * time.Second
	maxEnvelope               = 1 << 20 // the SDKs keep envelopes far below this
)

// scrubbedHeaders are request headers never sent: they carry the session,
// the CSRF token or credentials.
var scrubbedHeaders = []string{"Cookie", "Authorization", "Proxy-Authorization", "X-Csrf-Token", "Set-Cookie"}

// scrubbedParams are query parameters never sent: the legacy credentials
// link, one-time sign-in links, OAuth codes and tokens.
var scrubbedParams = []string{"creds", "login", "token", "code", "access_token", "state"}

// reporter sends error events for one server.
type reporter struct {
	hub    *sentry.Hub
	dsn    *sentry.Dsn
	raw    string // the DSN as configured, which the renderer's envelopes must name
	meta   string // the <meta> tag for the page shell
	http   *http.Client
	logger *slog.Logger
}

type reporterKey struct{}

// reporterStateKey names the reporter in the Fiber app's state, where
// FlushReports finds it.
const reporterStateKey = "glimpse.reporter"

// FlushReports waits up to timeout for queued reports to be sent, so errors
// of the last requests before a shutdown are not lost. It reports whether the
// queue emptied; with reporting off it returns true at once.
func (s *Server) FlushReports(timeout time.Duration) bool {
	r, ok := s.app.State().Get(reporterStateKey)
	if !ok {
		return true
	}
	return r.(*reporter).hub.Flush(timeout)
}

// errReportingOff is newReporter's answer when no DSN is configured: not a
// failure, but the caller must serve without a reporter.
var errReportingOff = errors.New("error reporting is not configured")

// newReporter returns errReportingOff when no DSN is configured.
func newReporter(dsn, environment, version string, logger *slog.Logger, transport http.RoundTripper) (*reporter, error) {
	if dsn == "" {
		return nil, errReportingOff
	}
	parsed, err := sentry.NewDsn(dsn)
	if err != nil {
		return nil, fmt.Errorf("error reporting: %w", err)
	}
	if environment == "" {
		environment = "production" // the spec's environment
	}
	release := "glimpse@" + version
	client, err := sentry.NewClient(sentry.ClientOptions{
		Dsn:         dsn,
		Environment: environment,
		Release:     release,
		Debug:       false,
		// "Personal data sending enabled" (spec): user info such as the
		// client address is sent. DataCollection is sentry-go's successor
		// to SendDefaultPII; it also keeps cookies and bodies out and
		// deny-lists our secret headers and parameters. scrubEvent below
		// repeats that for the request we attach ourselves.
		DataCollection: &sentry.DataCollection{
			UserInfo:    sentry.Set(true),
			Cookies:     &sentry.KeyValueCollectionBehavior{Mode: sentry.CollectionOff},
			HTTPBodies:  []sentry.BodyType{},
			HTTPHeaders: &sentry.HeaderCollectionConfig{Request: &sentry.KeyValueCollectionBehavior{Mode: sentry.CollectionDenyList, Terms: scrubbedHeaders}},
			QueryParams: &sentry.KeyValueCollectionBehavior{Mode: sentry.CollectionDenyList, Terms: scrubbedParams},
		},
		EnableTracing:    true,
		TracesSampleRate: reportingTracesSampleRate,
		AttachStacktrace: true,
		HTTPTransport:    transport,
		BeforeSend:       scrubEvent,
		BeforeSendTransaction: func(e *sentry.Event, _ *sentry.EventHint) *sentry.Event {
			return scrubEvent(e, nil)
		},
	})
	if err != nil {
		return nil, fmt.Errorf("error reporting: %w", err)
	}
	settings, err := json.Marshal(map[string]any{
		"dsn": dsn, "environment": environment, "release": release,
		"tracesSampleRate": reportingTracesSampleRate, "tunnel": PathErrorTunnel,
	})
	if err != nil {
		return nil, fmt.Errorf("error reporting: %w", err)
	}
	return &reporter{
		hub: sentry.NewHub(client, sentry.NewScope()), dsn: parsed, raw: dsn,
		meta:   `<meta name="glimpse-sentry" content="` + html.EscapeString(string(settings)) + `">`,
		http:   &http.Client{Timeout: tunnelTimeout, Transport: transport},
		logger: logger,
	}, nil
}

// reportErrors is the middleware that reports a request's panic or internal
// error, continuing the renderer's trace from its sentry-trace and baggage
// headers. It sits inside recover.New: it sees the panic first, reports it
// and panics again so recover still answers 500. It is nil when reporting is
// off, so requests then pass through no reporting code at all.
func (s *Server) reportErrors() fiber.Handler {
	r, err := newReporter(s.Config.SentryDSN, s.Config.Environment, s.Version, s.Logger, nil)
	if err != nil {
		if !errors.Is(err, errReportingOff) {
			// config.Load has checked the DSN's shape; a failure here only
			// loses reports, which must not stop the app from serving.
			s.Logger.Error("error reporting is off", slog.Any("err", err))
		}
		return nil
	}
	s.app.State().Set(reporterStateKey, r)
	return func(c fiber.Ctx) (err error) {
		c.Locals(reporterKey{}, r)
		hub := r.hub.Clone()
		// Only the renderer's API calls are traced: they are what the
		// browser's trace continues into, and tracing every asset fetch
		// would drown them.
		var tx *sentry.Span
		if strings.HasPrefix(c.Path(), "/ui/") {
			tx = sentry.StartTransaction(sentry.SetHubOnContext(c.Context(), hub), c.Method()+" "+c.Path(),
				sentry.ContinueFromHeaders(c.Get(sentry.SentryTraceHeader), c.Get(sentry.SentryBaggageHeader)),
				sentry.WithOpName("http.server"), sentry.WithTransactionSource(sentry.SourceURL))
		}
		defer func() {
			v := recover()
			if v != nil {
				r.capture(hub, c, v, nil)
			}
			if tx != nil {
				tx.Status = sentry.HTTPtoSpanStatus(c.Response().StatusCode())
				if v != nil {
					tx.Status = sentry.SpanStatusInternalError
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
}

// capture sends one panic value or error with the request it happened in.
func (r *reporter) capture(hub *sentry.Hub, c fiber.Ctx, panicValue any, err error) {
	req := &sentry.Request{
		URL:         c.BaseURL() + c.Path(),
		Method:      c.Method(),
		QueryString: string(c.Request().URI().QueryString()),
		Headers:     map[string]string{},
	}
	for k, v := range c.GetReqHeaders() {
		req.Headers[k] = strings.Join(v, ", ")
	}
	hub.WithScope(func(scope *sentry.Scope) {
		scope.SetTag("request_id", requestID(c))
		// Personal data sending is on (spec), so the address is kept; the
		// secrets are removed by scrubEvent.
		scope.SetUser(sentry.User{IPAddress: c.IP()})
		scope.AddEventProcessor(func(e *sentry.Event, _ *sentry.EventHint) *sentry.Event {
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
// and CSRF headers, secret query parameters, and request bodies (which hold
// passwords). It runs on every event and transaction.
func scrubEvent(e *sentry.Event, _ *sentry.EventHint) *sentry.Event {
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
	e.Request.QueryString = scrubQuery(e.Request.QueryString)
	if u, err := url.Parse(e.Request.URL); err == nil && u.RawQuery != "" {
		u.RawQuery = scrubQuery(u.RawQuery)
		e.Request.URL = u.String()
	}
	return e
}

// scrubQuery replaces the values of secret parameters. An unparsable query
// is dropped whole rather than risk sending it.
func scrubQuery(raw string) string {
	if raw == "" {
		return ""
	}
	q, err := url.ParseQuery(raw)
	if err != nil {
		return ""
	}
	for _, name := range scrubbedParams {
		if q.Has(name) {
			q.Set(name, "[Filtered]")
		}
	}
	return q.Encode()
}

// reportingMeta is the page shell's <meta name="glimpse-sentry"> tag, or ""
// when reporting is off: the renderer then never loads its reporter.
func reportingMeta(c fiber.Ctx) string {
	if r, ok := c.Locals(reporterKey{}).(*reporter); ok {
		return r.meta
	}
	return ""
}

// tunnelErrors forwards an envelope from the renderer to the configured
// service. Only envelopes addressed to our own DSN are forwarded, so the
// route cannot be used to post anything anywhere else.
func (s *Server) tunnelErrors(c fiber.Ctx) error {
	r, ok := c.Locals(reporterKey{}).(*reporter)
	if !ok {
		return engine.Errorf(engine.CodeNotFound, "Not found")
	}
	body, err := io.ReadAll(io.LimitReader(requestBody(c), maxEnvelope+1))
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
	if got, err := sentry.NewDsn(header.DSN); err != nil || got.String() != r.dsn.String() {
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
