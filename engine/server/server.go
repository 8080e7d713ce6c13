// Package server is the HTTP face of Glimpse: GET /ui/screen composes a
// screen for a path, POST /ui/actions/:name runs a named action, and the rest
// serves the renderer's files, static images and health checks. Every error
// is an *engine.Error mapped to a status in one place (errors.go).
package server

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-playground/validator/v10"
	"github.com/gofiber/fiber/v3"
	"github.com/gofiber/fiber/v3/middleware/compress"
	"github.com/gofiber/fiber/v3/middleware/recover"
	"github.com/gofiber/fiber/v3/middleware/requestid"
	"golang.org/x/time/rate"

	"glimpse/engine"
	"glimpse/engine/assets"
	"glimpse/engine/auth"
	"glimpse/engine/billing"
	"glimpse/engine/brand"
	"glimpse/engine/breach"
	"glimpse/engine/config"
	"glimpse/engine/experiment"
	"glimpse/engine/imageproxy"
	"glimpse/engine/instagram"
	"glimpse/engine/instagram/api"
	"glimpse/engine/lesson"
	"glimpse/engine/library"
	"glimpse/engine/mail"
	"glimpse/engine/metrics"
	"glimpse/engine/privacy"
	"glimpse/engine/profile"
	"glimpse/engine/retention"
	"glimpse/engine/staff"
	"glimpse/engine/support"
	"glimpse/engine/tracking"
	"glimpse/screens"
)

// Deps is everything the server needs, built once by main.
type Deps struct {
	Config   config.Config
	Clock    engine.Clock
	Logger   *slog.Logger
	Auth     *auth.Service
	Brands   *brand.Registry
	Breach   *breach.Service
	Profiles *profile.Service
	// Instagram is the Instagram Login client; nil when no app is
	// configured, and then only data-export uploads are offered.
	Instagram *api.Client
	// Sealer encrypts stored Instagram tokens.
	Sealer *instagram.Sealer
	// Images proxies post pictures from Instagram's CDN.
	Images *imageproxy.Proxy
	// Lessons are the course's lessons and the Reels playbook.
	Lessons []lesson.Doc
	// Billing sells plans and keeps subscriptions.
	Billing *billing.Service
	// Retention keeps the unsubscribe flow's attempts.
	Retention *retention.Service
	// Accounts creates subscribers' accounts and gets them back in (nil:
	// made from Auth, Billing and Mail).
	Accounts *auth.Accounts
	// Privacy runs data exports, account deletion and Meta's callbacks.
	Privacy *privacy.Service
	// Events keeps analytics events (nil keeps them only in the log).
	Events *tracking.Store
	// Experiments are the A/B experiments on the unsubscribe flow (nil:
	// none run, and the studio's experiment screens send testers back).
	Experiments *experiment.Service
	// Support is the support desk (nil: the studio has none, and its
	// screens and actions answer that it is unavailable).
	Support *support.Desk
	// Staff and Content serve the editors' studio.
	Staff   *staff.Service
	Content *library.Repo
	// Schedules publishes items at the times editors set (nil: the studio
	// offers no scheduling).
	Schedules *library.Scheduler
	// Library is the reading content, held in memory.
	Library *library.Library
	Secret  []byte // keys CSRF tokens
	Version string
	// Renderer holds the built renderer (index.html and assets/).
	Renderer fs.FS
	// Static holds content images served under /static/.
	Static fs.FS
	// Ready reports whether dependencies (the database) answer.
	Ready func(ctx context.Context) error
	// ValidateResponses checks every /ui/* body against the JSON Schema
	// before sending it (on in tests and development).
	ValidateResponses bool
	// Mail is the outbox; DevMailbox shows it at /dev/mail (config
	// GLIMPSE_DEV_MAILBOX, never with an https base URL).
	Mail       *mail.Outbox
	DevMailbox bool
	// Business counts checkouts, sign-in failures, webhooks and the page
	// cache (business.go); nil unless GLIMPSE_METRICS_ADDR is set.
	Business *metrics.Business
}

// Server holds the Fiber app and its dependencies.
type Server struct {
	Deps
	app        *fiber.App
	validate   *validator.Validate
	files      *assets.Files
	shellCopy  brandCache // each brand's <meta name="glimpse-copy"> tag (files.go)
	routes     []route
	pages      *pageCache
	lib        atomic.Pointer[library.Library]
	libVersion atomic.Uint64
	lessonPDFs sync.Map // brand name → *lesson.Cache
	brandJSON  brandCache
	csrfMACs   sync.Pool // HMAC-SHA256 states keyed by Secret, reused by csrfToken (security.go)
	csrfTokens tokenMemo // tokens already computed by csrfToken (security.go)
	actions    map[string]actionSpec
	trackLimit *keyedLimiter
	uploads    uploadGate
	flow       *retention.Flow
	accounts   *auth.Accounts
	metrics    *metrics.HTTP // request metrics; nil unless GLIMPSE_METRICS_ADDR is set

	// detached counts the work run after its answer (detach, account.go).
	detached sync.WaitGroup
}

// New builds the HTTP app.
func New(d Deps) (*Server, error) {
	s := &Server{Deps: d, validate: validator.New(validator.WithRequiredStructEnabled())}
	// Field errors are reported by the fields' JSON names, which are the ids
	// of the inputs that show them.
	s.validate.RegisterTagNameFunc(func(f reflect.StructField) string {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			return f.Name
		}
		return name
	})
	files, err := assets.New(d.Renderer, d.Static)
	if err != nil {
		return nil, err
	}
	s.files = files
	s.lib.Store(d.Library)
	var experiments retention.Experiments
	if d.Experiments != nil {
		experiments = d.Experiments
	}
	s.flow = retention.NewFlow(d.Retention, d.Billing, experiments, d.Logger)
	s.accounts = d.Accounts
	if s.accounts == nil {
		var mailer auth.Mailer
		if d.Mail != nil {
			mailer = d.Mail
		}
		s.accounts = auth.NewAccounts(d.Auth, d.Billing, mailer, AccountLinks())
	}
	if s.routes, err = s.routeTable(); err != nil {
		return nil, err
	}
	s.pages = newPageCache(defaultPageCacheBytes)
	d.Business.SetPageCache(s.pages.counts)
	if s.actions, err = s.actionTable(); err != nil {
		return nil, err
	}
	s.trackLimit = newKeyedLimiter(d.Clock, rate.Every(trackEvery), trackBurst, 100000)
	trust, trustConfig, proxyHeader := fiberTrust(d.Config.TrustedProxies)
	s.app = fiber.New(fiber.Config{
		AppName:      "glimpse " + d.Version,
		ErrorHandler: s.handleError,
		// Bodies over the limit are streamed to the handler, not refused:
		// uploads read the stream under their own cap, and every other
		// action reads at most maxActionBody; finishRequestBody deals with
		// whatever a handler leaves unread.
		BodyLimit:         maxActionBody,
		StreamRequestBody: true,
		ReadTimeout:       15 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       60 * time.Second,
		// Client addresses: see resolveClientIP.
		TrustProxy:       trust,
		TrustProxyConfig: trustConfig,
		ProxyHeader:      proxyHeader,
		// The request line and headers must fit here; a longer head is
		// answered 431 (or 414 for a long request line) by handleError.
		ReadBufferSize: maxRequestHead,
	})
	s.app.Server().ErrorHandler = noteRequestLineTooLong(s.app.Server().ErrorHandler)
	if d.Config.MetricsAddr != "" {
		// First, so it times and sees the status of everything below;
		// labelled by the tables' patterns and names only (engine/metrics).
		patterns := make([]string, len(s.routes))
		for i, rt := range s.routes {
			patterns[i] = rt.path
		}
		s.metrics = metrics.NewHTTP(metrics.Tables{Screen: "/ui/screen", Screens: patterns,
			Action: "/ui/actions/:name", Actions: slices.Sorted(maps.Keys(s.actions))})
		s.app.Use(s.metrics.Handler)
	}
	s.app.Use(s.resolveClientIP)
	s.app.Use(s.finishRequestBody)
	s.app.Use(recover.New())
	if report := s.reportErrors(); report != nil {
		s.app.Use(report) // inside recover: reports a panic, then lets recover answer 500
	}
	s.app.Use(requestid.New(requestid.Config{Generator: newRequestIDs()}))
	s.app.Use(s.logRequests)
	s.app.Use(s.securityHeaders)
	s.app.Use(compress.New())

	for _, e := range s.endpointTable() {
		rest := make([]any, 0, len(e.handlers)-1)
		for _, h := range e.handlers[1:] {
			rest = append(rest, h)
		}
		s.app.Add([]string{e.method}, e.path, e.handlers[0], rest...)
	}
	return s, nil
}

// maxRequestHead bounds a request's line and headers together: 8 KiB, like
// nginx's default, leaves room for other cookies on the same site.
const maxRequestHead = 8 << 10

// maxBodyDrain is how much of a request body left unread by its handler is
// read and discarded to keep the connection alive (net/http drains the same
// amount); a longer remainder closes the connection instead.
const maxBodyDrain = 256 << 10

// finishRequestBody makes sure no request leaves part of its body on the
// connection. With StreamRequestBody fasthttp pre-reads only the first 8 KiB
// of a body and hands the rest to the handler as a stream; whatever a handler
// answers without reading (a CSRF refusal, an unknown action, a body over the
// limit, a refused upload) would otherwise be parsed as the next request on a
// kept-alive connection: request smuggling behind any proxy that reuses
// connections. A short remainder is drained; anything else, or a chunked body
// (whose stream cannot be read again safely once it ended), closes the
// connection after the response.
func (s *Server) finishRequestBody(c fiber.Ctx) error {
	err := c.Next()
	req := c.Request()
	if !req.IsBodyStream() {
		// Never streamed, or read whole by c.Body(), which ends the stream.
		return err
	}
	if req.Header.ContentLength() < 0 {
		c.RequestCtx().SetConnectionClose()
		return err
	}
	// A fixed-length stream answers io.EOF at once when fully read, so this
	// reads only what the handler left.
	if _, derr := io.CopyN(io.Discard, req.BodyStream(), maxBodyDrain+1); !errors.Is(derr, io.EOF) {
		c.RequestCtx().SetConnectionClose()
	}
	return err
}

// SetLibrary swaps in newly published content. Cached pages are keyed by the
// content version, so the next request composes from the new content.
func (s *Server) SetLibrary(lib *library.Library) {
	s.lib.Store(lib)
	s.libVersion.Add(1)
}

func (s *Server) library() *library.Library { return s.lib.Load() }

// App returns the Fiber app, for tests and for listening.
func (s *Server) App() *fiber.App { return s.app }

// Metrics returns the request metrics, nil unless GLIMPSE_METRICS_ADDR is
// set; they are served on that listener only (engine/app/metrics.go).
func (s *Server) Metrics() *metrics.HTTP { return s.metrics }

func (s *Server) handleReady(c fiber.Ctx) error {
	if s.Ready != nil {
		ctx, cancel := context.WithTimeout(c.Context(), 2*time.Second)
		defer cancel()
		if err := s.Ready(ctx); err != nil {
			return engine.Wrap(engine.CodeUnavailable, err, "not ready")
		}
	}
	return c.SendString("ready")
}

// AccountLinks are the addresses account mails lead to (the app's purchase
// mail uses them too). They are paths: the outbox puts the origin of the
// mail's brand in front (mail.Outbox.WithOrigins), so a partner brand's
// buyer lands on the partner's host.
func AccountLinks() auth.Links {
	return auth.Links{CreateAccount: screens.PathAccessRecovery, ResetPassword: screens.PathPasswordRecovery,
		SignIn: screens.PathSignIn}
}
