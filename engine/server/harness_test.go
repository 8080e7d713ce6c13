package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/gofiber/fiber/v3"

	"glimpse/content"
	"glimpse/engine"
	"glimpse/engine/app"
	"glimpse/engine/auth"
	"glimpse/engine/billing"
	"glimpse/engine/config"
	"glimpse/engine/imageproxy"
	"glimpse/engine/server"
	"glimpse/engine/store/storetest"
)

func TestMain(m *testing.M) { os.Exit(storetest.Main(m)) }

// start is the moment every harness clock begins at.
var start = time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)

// harness is a fully wired app on a fresh database, driven through
// fiber's in-memory transport like a browser: it keeps cookies and sends
// the CSRF token of the last screen it fetched.
type harness struct {
	t       testing.TB
	app     *app.App
	srv     *server.Server
	clock   *engine.ManualClock
	cookies map[string]string
	csrf    string
	host    string
}

func newHarness(t testing.TB, edit ...func(*config.Config)) *harness {
	return newHarnessDeps(t, nil, edit...)
}

// newHarnessDeps is newHarness with a last word on the server's
// dependencies (e.g. an Instagram client pointed at a fake).
func newHarnessDeps(t testing.TB, editDeps func(*server.Deps), edit ...func(*config.Config)) *harness {
	t.Helper()
	cfg, err := config.Load(func(k string) string {
		return map[string]string{"GLIMPSE_BRAND_HOSTS": "x.glimpse.test=_x_", "GLIMPSE_ENVIRONMENT": config.Development}[k]
	})
	if err != nil {
		t.Fatal(err)
	}
	cfg.PasswordMemoryKiB, cfg.PasswordPasses = 1024, 1 // cheap argon2id: auth.NewHasherCosting
	for _, e := range edit {
		e(&cfg)
	}
	clock := engine.NewManualClock(start)
	logger := slog.New(slog.DiscardHandler)
	if os.Getenv("GLIMPSE_TEST_LOGS") != "" {
		logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	a, err := app.Open(context.Background(), cfg, logger, clock, storetest.Open(t))
	if err != nil {
		t.Fatal(err)
	}
	rendererFS := fstest.MapFS{
		"index.html": {Data: []byte(`<!doctype html><head><title>Glimpse</title>` +
			`<script type="module" src="/assets/app-abc123.js"></script></head><body><div id="root"></div></body>`)},
		"assets/app-abc123.js":  {Data: []byte(`import("./main-def456.js")`)},
		"assets/main-def456.js": {Data: []byte(`console.info("x")`)},
		".vite/manifest.json": {Data: []byte(`{"index.html":{"file":"assets/app-abc123.js","isEntry":true,` +
			`"dynamicImports":["src/main.tsx"]},"src/main.tsx":{"file":"assets/main-def456.js","isDynamicEntry":true,` +
			`"imports":["index.html"]}}`)},
	}
	deps := server.Deps{Config: cfg, Clock: clock, Logger: logger, Auth: a.Auth, Brands: a.Brands, Breach: a.Breach, Profiles: a.Profiles, Library: a.Library, Lessons: a.Lessons, Staff: a.Staff, Content: a.Content, Schedules: a.Schedules,
		Billing: a.Billing, Mail: a.Outbox, Events: a.Events, Retention: a.Retention, Privacy: a.Privacy,
		Experiments: a.Experiments, Support: a.Support,
		Images: imageproxy.New(imageproxy.Config{Secret: []byte("test")}),
		Secret: a.Secret, Version: "test", Renderer: rendererFS, Static: content.Static,
		Ready: a.Store.Ping, ValidateResponses: true,
		Sealer: a.Sealer}
	if editDeps != nil {
		editDeps(&deps)
	}
	srv, err := server.New(deps)
	if err != nil {
		t.Fatal(err)
	}
	return &harness{t: t, app: a, srv: srv, clock: clock, cookies: map[string]string{}, host: "127.0.0.1:8080"}
}

// subscriber creates an account with a main weekly plan on the default brand.
func (h *harness) subscriber(email, password string) auth.User {
	h.t.Helper()
	ctx := context.Background()
	u, err := h.app.Auth.CreateUser(ctx, email, password)
	if err != nil {
		h.t.Fatal(err)
	}
	err = h.app.Auth.PutSubscription(ctx, billing.Subscription{ID: "sub-" + u.ID, UserID: u.ID, Email: u.Email,
		Bundle: "glimpse.web", PlanCode: "glimpse_weekly_trial", Status: billing.StatusActive, MainPlan: true,
		StartedAt: start.Add(-24 * time.Hour)})
	if err != nil {
		h.t.Fatal(err)
	}
	return u
}

type response struct {
	status int
	header http.Header
	body   map[string]any
	raw    []byte
}

func (h *harness) do(req *http.Request) response {
	h.t.Helper()
	h.withSession(req)
	// A busy CI machine can take more than fiber's default second.
	res, err := h.srv.App().Test(req, fiber.TestConfig{Timeout: time.Minute, FailOnTimeout: true})
	if err != nil {
		h.t.Fatal(err)
	}
	defer res.Body.Close()
	for _, c := range res.Cookies() {
		if c.MaxAge < 0 || c.Value == "" {
			delete(h.cookies, c.Name)
		} else {
			h.cookies[c.Name] = c.Value
		}
	}
	// As the renderer does: an answer that issues a new CSRF token (a
	// sign-in) is taken up for the next POST.
	if tok := res.Header.Get("X-CSRF-Token"); tok != "" {
		h.csrf = tok
	}
	raw, _ := io.ReadAll(res.Body)
	out := response{status: res.StatusCode, header: res.Header, raw: raw}
	if strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		if err := json.Unmarshal(raw, &out.body); err != nil {
			h.t.Fatalf("decode %s: %v", raw, err)
		}
	}
	return out
}

// screen fetches /ui/screen for path and remembers the CSRF token.
func (h *harness) screen(path string) response {
	h.t.Helper()
	req := httptest.NewRequest(http.MethodGet, "/ui/screen?path="+url.QueryEscape(path), nil)
	req.Header.Set("X-SDUI-Version", "1")
	res := h.do(req)
	// A kept page carries the token only in its X-CSRF-Token header (taken
	// up by do); others carry it in meta too.
	if meta, ok := res.body["meta"].(map[string]any); ok {
		if tok, _ := meta["csrf"].(string); tok != "" {
			h.csrf = tok
		}
	}
	return res
}

// bootPage loads the app's HTML as a browser does first, and takes the CSRF
// token from its meta tag.
func (h *harness) bootPage() {
	h.t.Helper()
	res := h.do(httptest.NewRequest(http.MethodGet, "/", nil))
	m := regexp.MustCompile(`<meta name="glimpse-csrf" content="([^"]+)">`).FindSubmatch(res.raw)
	if m == nil {
		h.t.Fatalf("no CSRF meta tag in %s", res.raw)
	}
	h.csrf = string(m[1])
}

// action posts values to a named action as the renderer does, from the
// screen its form is on: the studio's actions from /studio, the rest from
// /sign-in. (The server checks a form's values against the rules of the
// form on that screen.)
func (h *harness) action(name string, values map[string]any) response {
	h.t.Helper()
	path := "/sign-in"
	if strings.HasPrefix(name, "studio.") {
		path = "/studio"
	}
	return h.actionAt(path, name, values)
}

// actionAt posts values to a named action from the screen at path.
func (h *harness) actionAt(path, name string, values map[string]any) response {
	h.t.Helper()
	return h.do(h.request(path, name, values))
}

// request is the POST actionAt sends, with the session's cookies, for a
// test that sends several together (do is not safe for that).
func (h *harness) request(path, name string, values map[string]any) *http.Request {
	body, _ := json.Marshal(map[string]any{"values": values, "path": path})
	req := httptest.NewRequest(http.MethodPost, "/ui/actions/"+name, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-SDUI-Version", "1")
	req.Header.Set("X-CSRF-Token", h.csrf)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	return h.withSession(req)
}

// withSession addresses req to the harness's host with its cookies.
func (h *harness) withSession(req *http.Request) *http.Request {
	req.Host = h.host
	var parts []string
	for k, v := range h.cookies {
		parts = append(parts, k+"="+v)
	}
	if len(parts) > 0 {
		req.Header.Set("Cookie", strings.Join(parts, "; "))
	}
	return req
}

func (h *harness) signIn(email, password string) response {
	h.t.Helper()
	if h.csrf == "" {
		h.screen("/sign-in")
	}
	return h.action("session.sign_in", map[string]any{"email": email, "password": password})
}

// effects returns the effects of a result as a list of {type, to/id}.
func effects(r response) []map[string]any {
	var out []map[string]any
	list, _ := r.body["effects"].([]any)
	for _, e := range list {
		out = append(out, e.(map[string]any))
	}
	return out
}

func screenID(r response) string {
	s, _ := r.body["screen"].(map[string]any)
	id, _ := s["id"].(string)
	return id
}

func formError(r response) string {
	errs, _ := r.body["errors"].(map[string]any)
	msg, _ := errs["form"].(string)
	return msg
}

func fieldErrors(r response) map[string]any {
	errs, _ := r.body["errors"].(map[string]any)
	f, _ := errs["fields"].(map[string]any)
	return f
}

func asError(err error, target **engine.Error) bool { return errors.As(err, target) }
