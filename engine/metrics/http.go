package metrics

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gofiber/fiber/v3"
	"github.com/prometheus/client_golang/prometheus"

	"glimpse/engine"
)

// Unknown is the label value of what is not in a closed set: a request no
// route matched, a screen path the screen table does not list, an action
// name the action table does not have.
const Unknown = "unknown"

// Tables names the server's two dynamic endpoints and the closed sets behind
// them, so their requests are labelled by what they ask for instead of by
// the endpoint alone.
type Tables struct {
	// Screen is the route of the screen endpoint ("/ui/screen"), whose
	// ?path= is labelled by the pattern of Screens it matches.
	Screen string
	// Screens are the screen table's patterns, in table order: an exact
	// path, or a prefix ending in "/*".
	Screens []string
	// Action is the route of the action endpoint ("/ui/actions/:name"),
	// whose last segment is the action's name.
	Action string
	// Actions are the action table's names.
	Actions []string
}

// HTTP is the server's request metrics: a Fiber middleware (Handler) and a
// prometheus.Collector. Every label value is resolved to an index into
// slices built before the first request, and each series is created once, on
// its first use; a request after that allocates nothing here.
type HTTP struct {
	requests *prometheus.CounterVec   // route, code
	errors   *prometheus.CounterVec   // route, error
	duration *prometheus.HistogramVec // route
	inFlight prometheus.Gauge

	tables       Tables
	actionPrefix string         // "/ui/actions/"
	actionParam  string         // "name"
	actions      map[string]int // name → index of its label
	screens      []screenPattern

	// labels holds every route label value: Unknown first, then the
	// screens' and the actions' (in Tables order, each with its own
	// Unknown), then the Fiber routes', added on the first request.
	labels        []string
	screenUnknown int
	actionUnknown int

	routesOnce sync.Once
	fiber      map[string]int // Fiber route path → index of its label

	// The series, created on first use: [label index] and
	// [label index*len(x)+x index].
	durations []lazy[prometheus.Observer]
	counts    []lazy[prometheus.Counter]
	failures  []lazy[prometheus.Counter]
}

// screenPattern is one screen table pattern, split for matching.
type screenPattern struct {
	path   string // exact path, or the prefix of a "/*" pattern with its "/"
	prefix bool
	label  int
}

// classes are the status classes of the code label.
var classes = []string{"1xx", "2xx", "3xx", "4xx", "5xx"}

// errorKinds are the values of the error label: the engine's error codes
// and "http" for Fiber's own errors about the exchange (a wrong method, a
// head too large). Anything else is "internal", as the server answers it.
var errorKinds = []string{
	string(engine.CodeInvalid), string(engine.CodeUnauthenticated), string(engine.CodeForbidden),
	string(engine.CodeNotFound), string(engine.CodeConflict), string(engine.CodeRateLimited),
	string(engine.CodeUnavailable), string(engine.CodeInternal), string(engine.CodeStaleClient), "http",
}

// The indexes in errorKinds of Fiber's errors and of any other error.
var (
	httpKind     = slices.Index(errorKinds, "http")
	internalKind = slices.Index(errorKinds, string(engine.CodeInternal))
)

// durationBuckets are Prometheus's default buckets with one added at 0.3s,
// the latency objective of a screen, so its share can be read exactly
// (https://prometheus.io/docs/practices/histograms/#apdex-score).
var durationBuckets = []float64{.005, .01, .025, .05, .1, .25, .3, .5, 1, 2.5, 5, 10}

// NewHTTP returns the request metrics of a server with tables t.
func NewHTTP(t Tables) *HTTP {
	h := &HTTP{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "glimpse_http_requests_total",
			Help: "HTTP requests answered, by route template (screen pattern, action name) and status class.",
		}, []string{"route", "code"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "glimpse_http_errors_total",
			Help: "HTTP requests answered with an error, by route template and error code (engine.Code, or http for protocol errors).",
		}, []string{"route", "error"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "glimpse_http_request_duration_seconds",
			Help:    "Time from the request reaching the app to its response being ready, by route template.",
			Buckets: durationBuckets,
		}, []string{"route"}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "glimpse_http_requests_in_flight",
			Help: "HTTP requests being answered now.",
		}),
		tables:  t,
		actions: make(map[string]int, len(t.Actions)),
		labels:  []string{Unknown},
	}
	h.actionPrefix, h.actionParam = t.Action, ""
	if i := strings.LastIndex(t.Action, "/:"); i >= 0 {
		h.actionPrefix, h.actionParam = t.Action[:i+1], t.Action[i+2:]
	}
	screen := t.Screen + "?path="
	for _, p := range t.Screens {
		sp := screenPattern{path: p, label: h.label(screen + p)}
		if strings.HasSuffix(p, "/*") {
			sp.path, sp.prefix = strings.TrimSuffix(p, "*"), true
		}
		h.screens = append(h.screens, sp)
	}
	h.screenUnknown = h.label(screen + Unknown)
	for _, name := range t.Actions {
		h.actions[name] = h.label(h.actionPrefix + name)
	}
	h.actionUnknown = h.label(h.actionPrefix + Unknown)
	return h
}

// label adds a route label value and returns its index.
func (h *HTTP) label(v string) int {
	h.labels = append(h.labels, v)
	return len(h.labels) - 1
}

// Labels returns every value the route label can take: the closed set the
// metrics test checks the exposed series against. Before the first request
// the Fiber routes' are not among them yet.
func (h *HTTP) Labels() []string { return append([]string(nil), h.labels...) }

// Describe implements prometheus.Collector.
func (h *HTTP) Describe(ch chan<- *prometheus.Desc) {
	h.requests.Describe(ch)
	h.errors.Describe(ch)
	h.duration.Describe(ch)
	h.inFlight.Describe(ch)
}

// Collect implements prometheus.Collector.
func (h *HTTP) Collect(ch chan<- prometheus.Metric) {
	h.requests.Collect(ch)
	h.errors.Collect(ch)
	h.duration.Collect(ch)
	h.inFlight.Collect(ch)
}

// Handler is the middleware that measures every request. It must be the
// app's first, so the time and the status include every other middleware's;
// it runs the app's error handler itself (as Fiber's logger middleware
// does), since the status of a failed request is only known after it.
func (h *HTTP) Handler(c fiber.Ctx) error {
	start := time.Now()
	h.inFlight.Inc()
	defer h.inFlight.Dec()
	err := c.Next()
	if err != nil {
		if herr := c.App().ErrorHandler(c, err); herr != nil {
			_ = c.SendStatus(fiber.StatusInternalServerError)
		}
	}
	status := c.Response().StatusCode()
	route := h.route(c)
	h.observe(route, status, time.Since(start))
	if err != nil {
		h.failure(route, errorKind(err, status)).Inc()
	}
	return nil
}

// observe counts one answered request of route (a label index).
func (h *HTTP) observe(route, status int, d time.Duration) {
	class := min(max(status/100, 1), len(classes)) - 1
	h.counts[route*len(classes)+class].get(func() prometheus.Counter {
		return h.requests.WithLabelValues(h.labels[route], classes[class])
	}).Inc()
	h.durations[route].get(func() prometheus.Observer {
		return h.duration.WithLabelValues(h.labels[route])
	}).Observe(d.Seconds())
}

// failure is the error counter of route and kind (indexes).
func (h *HTTP) failure(route, kind int) prometheus.Counter {
	return h.failures[route*len(errorKinds)+kind].get(func() prometheus.Counter {
		return h.errors.WithLabelValues(h.labels[route], errorKinds[kind])
	})
}

// route is the label index of the request's route. Fiber falls back to the
// raw path when no route was entered, so only a path it has registered is
// taken; a request stopped by a group's middleware (a stale client refused
// under /ui) is labelled by the group's prefix.
func (h *HTTP) route(c fiber.Ctx) int {
	h.routesOnce.Do(func() { h.addRoutes(c.App()) })
	if !c.Matched() && !c.IsMiddleware() {
		return 0
	}
	path := c.FullPath()
	switch {
	case path == h.tables.Screen && c.Matched():
		return h.screen(c.Query("path"))
	case path == h.tables.Action && c.Matched():
		if i, ok := h.actions[c.Params(h.actionParam)]; ok {
			return i
		}
		return h.actionUnknown
	}
	if i, ok := h.fiber[path]; ok {
		return i
	}
	return 0
}

// addRoutes labels app's routes by their paths, the one time the routes
// are all known. An app-wide middleware's "/" is left out: a request that
// ends there matched no route.
func (h *HTTP) addRoutes(app *fiber.App) {
	routes := make(map[string]bool)
	for _, r := range app.GetRoutes(true) {
		routes[r.Path] = true
	}
	for _, r := range app.GetRoutes() {
		if r.Path != "/" {
			routes[r.Path] = true
		}
	}
	h.fiber = make(map[string]int, len(routes))
	for _, r := range app.GetRoutes() {
		if _, done := h.fiber[r.Path]; routes[r.Path] && !done {
			h.fiber[r.Path] = h.label(r.Path)
		}
	}
	h.durations = make([]lazy[prometheus.Observer], len(h.labels))
	h.counts = make([]lazy[prometheus.Counter], len(h.labels)*len(classes))
	h.failures = make([]lazy[prometheus.Counter], len(h.labels)*len(errorKinds))
}

// screen is the label index of the screen table's pattern that path (the
// screen endpoint's ?path=) matches, in table order as the server matches
// it (engine/server/screen.go); its own query, fragment and trailing
// slashes do not count.
func (h *HTTP) screen(path string) int {
	if i := strings.IndexAny(path, "?#"); i >= 0 {
		path = path[:i]
	}
	if strings.IndexByte(path, '%') >= 0 {
		if p, err := url.PathUnescape(path); err == nil {
			path = p
		}
	}
	if path = strings.TrimRight(path, "/"); path == "" {
		path = "/"
	}
	for _, p := range h.screens {
		if path == p.path || (p.prefix && strings.HasPrefix(path, p.path)) {
			return p.label
		}
	}
	return h.screenUnknown
}

// errorKind is the index in errorKinds of err, answered with status.
func errorKind(err error, status int) int {
	kind := engine.CodeInternal
	var ee *engine.Error
	var fe *fiber.Error
	switch {
	case errors.As(err, &ee):
		kind = ee.Code
	case errors.As(err, &fe):
		return httpKind
	}
	if kind == engine.CodeInternal && status == http.StatusServiceUnavailable {
		// The server answers a database that is away as unavailable.
		kind = engine.CodeUnavailable
	}
	if i := slices.Index(errorKinds, string(kind)); i >= 0 {
		return i
	}
	return internalKind
}

// lazy holds a series made on its first use; two requests making it at
// once get the same one from the vector.
type lazy[T any] struct{ p atomic.Pointer[T] }

func (l *lazy[T]) get(create func() T) T {
	if p := l.p.Load(); p != nil {
		return *p
	}
	v := create()
	l.p.CompareAndSwap(nil, &v)
	return v
}
