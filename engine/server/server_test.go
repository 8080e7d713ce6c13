package server_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"

	"glimpse/engine/billing"

	"github.com/google/go-cmp/cmp"

	"glimpse/engine/auth"
	"glimpse/engine/config"
	"glimpse/engine/server"
)

func redirect(to string) []map[string]any {
	return []map[string]any{{"type": "replace", "to": to}}
}

func TestGuards(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.subscriber("ann@example.com", "correct-horse")
	signedOut := map[string][]map[string]any{
		"/":                redirect("/sign-in"),
		"/dashboard":       redirect("/sign-in"),
		"/no/such/page":    redirect("/sign-in"),
		"/dashboard/x/y/z": redirect("/sign-in"),
	}
	expectEffects(t, h, "signed out", signedOut)
	if id := screenID(h.screen("/sign-in")); id != "sign-in" {
		t.Fatalf("signed out /sign-in shows %q", id)
	}
	if res := h.signIn("ann@example.com", "correct-horse"); !cmp.Equal(effects(res), redirect("/dashboard")) {
		t.Fatalf("sign-in answered %d %s", res.status, res.raw)
	}
	signedIn := map[string][]map[string]any{
		"/":             redirect("/dashboard"),
		"/sign-in":      redirect("/dashboard"),
		"/no/such/page": redirect("/dashboard"),
	}
	expectEffects(t, h, "signed in", signedIn)
	if id := screenID(h.screen("/dashboard")); id != "home" {
		t.Fatalf("signed in /dashboard shows %q", id)
	}
}

// expectEffects fetches each path and compares the effects it answers.
func expectEffects(t *testing.T, h *harness, who string, cases map[string][]map[string]any) {
	t.Helper()
	for path, want := range cases {
		if diff := cmp.Diff(want, effects(h.screen(path))); diff != "" {
			t.Errorf("%s %s (-want +got):\n%s", who, path, diff)
		}
	}
}

func TestSignInValidation(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	cases := []struct {
		name            string
		email, password string
		want            map[string]any
	}{
		{"bad email", "not-an-email", "123456", map[string]any{"email": "Wrong email format"}},
		{"short password", "ann@example.com", "12345", map[string]any{"password": "Min 6 symbols"}},
		{"both", "", "", map[string]any{"email": "Wrong email format", "password": "Min 6 symbols"}},
	}
	for _, tc := range cases {
		res := h.signIn(tc.email, tc.password)
		if res.status != http.StatusUnprocessableEntity {
			t.Errorf("%s: status %d, want 422", tc.name, res.status)
		}
		if diff := cmp.Diff(tc.want, fieldErrors(res)); diff != "" {
			t.Errorf("%s: field errors (-want +got):\n%s", tc.name, diff)
		}
	}
}

func TestSignInFailuresRevealNothing(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.subscriber("ann@example.com", "correct-horse")
	wrong := h.signIn("ann@example.com", "wrong-horse")
	unknown := h.signIn("nobody@example.com", "wrong-horse")
	for name, res := range map[string]response{"wrong password": wrong, "unknown email": unknown} {
		if res.status != http.StatusUnauthorized {
			t.Errorf("%s: status %d, want 401", name, res.status)
		}
		if got := formError(res); got != "The supplied auth credential is malformed or has expired." {
			t.Errorf("%s: form error %q", name, got)
		}
	}
	if _, ok := h.cookies["glimpse_session"]; ok {
		t.Fatal("a failed sign-in set a session cookie")
	}
}

func TestSignInRateLimitPerAccount(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.subscriber("ann@example.com", "correct-horse")
	for i := 0; i < auth.AccountFailureLimit; i++ {
		if res := h.signIn("ann@example.com", "wrong-horse"); res.status != http.StatusUnauthorized {
			t.Fatalf("attempt %d: status %d", i+1, res.status)
		}
	}
	blocked := h.signIn("ann@example.com", "correct-horse")
	if blocked.status != http.StatusTooManyRequests ||
		formError(blocked) != "We have blocked all requests from this device due to unusual activity. Try again later." {
		t.Fatalf("after %d failures: %d %s", auth.AccountFailureLimit, blocked.status, blocked.raw)
	}
	h.clock.Advance(auth.LimitWindow)
	if res := h.signIn("ann@example.com", "correct-horse"); !cmp.Equal(effects(res), redirect("/dashboard")) {
		t.Fatalf("after the window: %d %s", res.status, res.raw)
	}
}

func TestSignInRateLimitPerIP(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	for i := 0; i < auth.IPFailureLimit; i++ {
		h.signIn("someone"+strings.Repeat("x", i)+"@example.com", "wrong-horse")
	}
	if res := h.signIn("another@example.com", "wrong-horse"); res.status != http.StatusTooManyRequests {
		t.Fatalf("attempt past the IP limit: status %d", res.status)
	}
}

func TestSessionExpiresAfterFiveHours(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.subscriber("ann@example.com", "correct-horse")
	h.signIn("ann@example.com", "correct-horse")
	h.clock.Advance(5*time.Hour - time.Second)
	if id := screenID(h.screen("/dashboard")); id != "home" {
		t.Fatalf("just before 5 hours: %q", id)
	}
	h.clock.Advance(time.Second)
	if got := effects(h.screen("/dashboard")); !cmp.Equal(got, redirect("/sign-in")) {
		t.Fatalf("at 5 hours: %v", got)
	}
}

func TestSignOutEndsSessionAtOnce(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.subscriber("ann@example.com", "correct-horse")
	h.signIn("ann@example.com", "correct-horse")
	token := h.cookies["glimpse_session"]
	h.screen("/dashboard")
	if res := h.action("session.sign_out", nil); !cmp.Equal(effects(res), redirect("/sign-in")) {
		t.Fatalf("sign out: %d %s", res.status, res.raw)
	}
	if _, ok := h.cookies["glimpse_session"]; ok {
		t.Fatal("sign out left the session cookie")
	}
	if _, err := h.app.Auth.Authenticate(context.Background(), token); err == nil {
		t.Fatal("the old token still authenticates")
	}
	h.cookies["glimpse_session"] = token // a copied cookie is dead too
	if got := effects(h.screen("/dashboard")); !cmp.Equal(got, redirect("/sign-in")) {
		t.Fatalf("replayed token: %v", got)
	}
}

func TestNoSubscriptionOpensModal(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	if _, err := h.app.Auth.CreateUser(context.Background(), "lapsed@example.com", "correct-horse"); err != nil {
		t.Fatal(err)
	}
	res := h.signIn("lapsed@example.com", "correct-horse")
	want := []map[string]any{{"type": "open_overlay", "id": "no-subscription"}}
	if diff := cmp.Diff(want, effects(res)); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
}

func TestCSRFAndSameOrigin(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.screen("/sign-in")
	good := h.csrf
	h.csrf = "forged"
	if res := h.signIn("ann@example.com", "correct-horse"); res.status != http.StatusForbidden {
		t.Errorf("forged token: status %d", res.status)
	}
	h.csrf = good
	req := httptest.NewRequest(http.MethodPost, "/ui/actions/session.sign_in", strings.NewReader(`{}`))
	req.Header.Set("X-CSRF-Token", good)
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	if res := h.do(req); res.status != http.StatusForbidden {
		t.Errorf("cross-site: status %d", res.status)
	}
	req = httptest.NewRequest(http.MethodPost, "/ui/actions/session.sign_in", strings.NewReader(`{}`))
	req.Header.Set("X-CSRF-Token", good)
	req.Header.Set("Origin", "https://evil.example")
	if res := h.do(req); res.status != http.StatusForbidden {
		t.Errorf("foreign origin: status %d", res.status)
	}
}

func TestCredsParameterSignsIn(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.subscriber("ann@example.com", "correct-horse")
	h.bootPage()
	bad := h.action("session.from_url", map[string]any{"creds": "garbage"})
	if !cmp.Equal(effects(bad), redirect("/sign-in")) {
		t.Fatalf("bad creds: %d %s", bad.status, bad.raw)
	}
	creds := base64.StdEncoding.EncodeToString([]byte(`{"email":"ann@example.com","password":"correct-horse"}`))
	res := h.action("session.from_url", map[string]any{"creds": creds})
	if !cmp.Equal(effects(res), redirect("/dashboard")) {
		t.Fatalf("creds: %d %s", res.status, res.raw)
	}
	if screenID(h.screen("/dashboard")) != "home" {
		t.Fatal("creds did not sign in")
	}
}

func TestLoginLinkIsSingleUseAndShortLived(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.subscriber("ann@example.com", "correct-horse")
	ctx := context.Background()
	token, err := h.app.Auth.MintLoginLink(ctx, "ann@example.com")
	if err != nil {
		t.Fatal(err)
	}
	h.bootPage()
	if res := h.action("session.from_url", map[string]any{"login": token}); !cmp.Equal(effects(res), redirect("/dashboard")) {
		t.Fatalf("first use: %d %s", res.status, res.raw)
	}
	h.action("session.sign_out", nil)
	if res := h.action("session.from_url", map[string]any{"login": token}); !cmp.Equal(effects(res), redirect("/sign-in")) {
		t.Fatalf("second use: %d %s", res.status, res.raw)
	}
	late, err := h.app.Auth.MintLoginLink(ctx, "ann@example.com")
	if err != nil {
		t.Fatal(err)
	}
	h.clock.Advance(auth.LoginLinkLifetime)
	if res := h.action("session.from_url", map[string]any{"login": late}); !cmp.Equal(effects(res), redirect("/sign-in")) {
		t.Fatalf("expired link: %d %s", res.status, res.raw)
	}
}

func TestStaleRendererIsToldToReload(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	req := httptest.NewRequest(http.MethodGet, "/ui/screen?path=/sign-in", nil)
	req.Header.Set("X-SDUI-Version", "0")
	res := h.do(req)
	if res.status != http.StatusConflict || res.body["reload"] != true {
		t.Fatalf("stale renderer: %d %s", res.status, res.raw)
	}
}

func TestScreenETag(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	first := h.screen("/sign-in")
	tag := first.header.Get("ETag")
	if tag == "" {
		t.Fatal("no ETag")
	}
	req := httptest.NewRequest(http.MethodGet, "/ui/screen?path=/sign-in", nil)
	req.Header.Set("If-None-Match", tag)
	if res := h.do(req); res.status != http.StatusNotModified {
		t.Fatalf("revalidation: status %d", res.status)
	}
}

func TestBrandByHost(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.host = "x.glimpse.test"
	meta := h.screen("/sign-in").body["meta"].(map[string]any)
	if key := meta["brand"].(map[string]any)["key"]; key != "_x_" {
		t.Fatalf("brand for x.glimpse.test: %v", key)
	}
}

// A purchase whose card fails shows the brand's error text under the buy
// button and grants nothing; signed out, nothing is bought.
func TestCoursePurchaseDeclined(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	u := h.subscriber("ann@example.com", "correct-horse")
	ctx := context.Background()
	main, err := h.app.Billing.Subscription(ctx, "sub-"+u.ID)
	if err != nil {
		t.Fatal(err)
	}
	main.PaymentMethod = billing.PaymentMethod{Provider: "sandbox", ID: "pm_sandbox_decline_test", Brand: "visa", Last4: "0002"}
	if err := h.app.Billing.Put(ctx, main); err != nil {
		t.Fatal(err)
	}
	h.screen("/sign-in")
	if res := h.action("course.purchase", nil); res.status != http.StatusUnauthorized {
		t.Fatalf("signed-out purchase: %d %s", res.status, res.raw)
	}
	h.signIn("ann@example.com", "correct-horse")
	h.screen("/dashboard")
	res := h.action("course.purchase", nil)
	if res.status != http.StatusUnprocessableEntity || formError(res) != "The payment did not go through. Please update your card and try again." {
		t.Fatalf("purchase: %d %s", res.status, res.raw)
	}
	subs, _ := h.app.Billing.ForUser(ctx, u.ID)
	if len(subs) != 1 {
		t.Fatalf("a declined purchase left %d subscriptions", len(subs))
	}
	// A new card, and the same purchase goes through: the declined
	// attempt does not hold the add-on.
	// The card is changed on the provider's page (setup mode), as a browser
	// would: the action only opens it.
	r := h.actionAt("/checkout/card", "plan.update_card", map[string]any{"/subscription": main.ID})
	eff := effects(r)
	if r.status != http.StatusOK || len(eff) != 1 || eff[0]["type"] != "open_url" {
		t.Fatalf("update card: %d %s", r.status, r.raw)
	}
	if page := h.payPage(eff[0]["url"].(string), cardForm("4242 4242 4242 4242", "12/30")); page.status >= 400 {
		t.Fatalf("the provider's page refused the new card: %d %s", page.status, page.raw)
	}
	if home := h.screen("/dashboard"); !strings.Contains(string(home.raw), "Pay $19.99 with Visa ••4242") {
		t.Fatalf("the confirmation does not name the new card: %s", home.raw)
	}
	res = h.action("course.purchase", nil)
	if eff := effects(res); res.status != http.StatusOK || !strings.HasPrefix(eff[len(eff)-1]["to"].(string), "/dashboard/receipts/") {
		t.Fatalf("purchase after a new card: %d %s", res.status, res.raw)
	}
	// The history shows the failed attempt and the paid one.
	history := string(h.screen("/dashboard/billing").raw)
	if !strings.Contains(history, `"label":"Failed"`) || !strings.Contains(history, `"label":"Paid"`) {
		t.Fatalf("billing history: %s", history)
	}
}

func TestFilesAndHeaders(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	cases := []struct {
		path, status, ctype, cache string
	}{
		{"/dashboard", "200", "text/html; charset=utf-8", "no-cache, private"},
		{"/?creds=abc", "200", "text/html; charset=utf-8", "no-cache, private"},
		{"/assets/app-abc123.js", "200", "text/javascript; charset=utf-8", "public, max-age=31536000, immutable"},
		{"/static/home/news.svg", "200", "image/svg+xml", "public, max-age=86400"},
		{"/missing.js", "404", "application/json; charset=utf-8", ""},
		{"/healthz", "200", "text/plain; charset=utf-8", ""},
		{"/readyz", "200", "text/plain; charset=utf-8", ""},
	}
	for _, tc := range cases {
		res := h.do(httptest.NewRequest(http.MethodGet, tc.path, nil))
		got := []string{http.StatusText(res.status), res.header.Get("Content-Type"), res.header.Get("Cache-Control")}
		want := []string{http.StatusText(atoi(tc.status)), tc.ctype, tc.cache}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.path, diff)
		}
		if csp := res.header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") ||
			!strings.Contains(csp, "frame-ancestors 'none'") {
			t.Errorf("%s: CSP %q", tc.path, csp)
		}
		if res.header.Get("Referrer-Policy") != "no-referrer" || res.header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: missing security headers", tc.path)
		}
	}
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}

func TestPartnerPlanSelectsBrandOnUnmappedHost(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ctx := context.Background()
	u, err := h.app.Auth.CreateUser(ctx, "pat@example.com", "correct-horse")
	if err != nil {
		t.Fatal(err)
	}
	err = h.app.Auth.PutSubscription(ctx, billing.Subscription{ID: "x-1", UserID: u.ID, Email: u.Email,
		Bundle: "profilio.web", PlanCode: "profilio_x_weekly", Status: billing.StatusActive, MainPlan: true})
	if err != nil {
		t.Fatal(err)
	}
	// Signing in on a host of the partner brand works as on any brand.
	h.host = "x.glimpse.test"
	if res := h.signIn("pat@example.com", "correct-horse"); !cmp.Equal(effects(res), redirect("/dashboard")) {
		t.Fatalf("sign in on the partner host: %d %s", res.status, res.raw)
	}
	// On a host with no brand of its own, the plan code picks the brand.
	h.host = "127.0.0.1:8080"
	res := h.screen("/dashboard")
	if screenID(res) != "home" {
		t.Fatalf("dashboard on an unmapped host: %s", res.raw)
	}
	if key := res.body["meta"].(map[string]any)["brand"].(map[string]any)["key"]; key != "_x_" {
		t.Fatalf("brand = %v, want _x_", key)
	}
}

func TestReadingRoutes(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.subscriber("ann@example.com", "correct-horse")
	h.signIn("ann@example.com", "correct-horse")
	screens := map[string]string{
		"/dashboard/insights":                 "insights",
		"/dashboard/top-trends":               "top-trends",
		"/dashboard/top-hacks":                "top-hacks",
		"/dashboard/articles/secret-admirers": "topic",
		"/dashboard/articles/detect-stalkers/protecting-your-data-and-privacy": "article",
		"/dashboard/news":                    "news",
		"/dashboard/news/carousels-are-back": "news-post",
		"/dashboard/news/no-such-news":       "news-post",
	}
	for path, id := range screens {
		if got := screenID(h.screen(path)); got != id {
			t.Errorf("%s shows %q, want %q", path, got, id)
		}
	}
	expectEffects(t, h, "signed in", map[string][]map[string]any{
		"/dashboard/articles/no-such-topic":           redirect("/dashboard"),
		"/dashboard/articles":                         redirect("/dashboard"),
		"/dashboard/articles/secret-admirers/no-such": redirect("/dashboard/articles/secret-admirers"),
		"/dashboard/articles/secret-admirers/a/b/c":   redirect("/dashboard/articles/secret-admirers"),
	})
	unknown := h.screen("/dashboard/news/no-such-news")
	if contains(texts(unknown.body["screen"]), "Carousels Are Back — How to Use Them") {
		t.Error("an unknown news slug shows a post")
	}
}

func TestLegalPagesArePublicAndFilledIn(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(c *config.Config) { c.OperatorName = "Ana Example" })
	updated := map[string]string{"/privacy": "Last updated Nov 25, 2026", "/terms-of-use": "Last updated Mar 29, 2024"}
	for path, id := range map[string]string{"/privacy": "privacy", "/terms-of-use": "terms"} {
		res := h.screen(path)
		if screenID(res) != id {
			t.Fatalf("%s signed out: %s", path, res.raw)
		}
		if strings.Contains(string(res.raw), "{{") || !strings.Contains(string(res.raw), "Ana Example") {
			t.Errorf("%s: operator details not filled in", path)
		}
		if !contains(texts(res.body["screen"]), updated[path]) {
			t.Errorf("%s: date missing", path)
		}
	}
}

func TestSuccessfulSignInsDoNotCountTowardsTheIPLimit(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.subscriber("ann@example.com", "correct-horse")
	for i := 0; i < auth.IPFailureLimit+5; i++ {
		if res := h.signIn("ann@example.com", "correct-horse"); !cmp.Equal(effects(res), redirect("/dashboard")) {
			t.Fatalf("sign-in %d: %d %s", i+1, res.status, res.raw)
		}
	}
	if res := h.signIn("ann@example.com", "wrong-horse"); res.status != http.StatusUnauthorized {
		t.Fatalf("a wrong password after many good sign-ins: %d", res.status)
	}
}

// TestUnknownPathsAreNotCached: unique paths under a cached route
// (news posts that do not exist; pages_test.go has 10,000 at the cache
// itself) answer the "no such post" page but leave the
// page cache as it was, while a real post's page is kept.
func TestUnknownPathsAreNotCached(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.subscriber("cache@example.com", "correct horse")
	if res := h.signIn("cache@example.com", "correct horse"); res.status != http.StatusOK {
		t.Fatalf("sign-in: %d %s", res.status, res.raw)
	}
	h.screen("/dashboard")
	entries, _ := h.srv.PageCacheStats()
	for i := range 500 {
		res := h.screen("/dashboard/news/no-such-post-" + strconv.Itoa(i))
		if res.status != http.StatusOK || screenID(res) == "" {
			t.Fatalf("unknown post %d: %d %s", i, res.status, res.raw)
		}
	}
	after, bytes := h.srv.PageCacheStats()
	if after != entries {
		t.Errorf("unknown paths added %d cache entries (%d bytes held)", after-entries, bytes)
	}
	if bytes > 32<<20 {
		t.Errorf("page cache holds %d bytes, over its 32 MiB budget", bytes)
	}
	news := h.app.Library.News
	if len(news) == 0 {
		t.Skip("no news in the seed content")
	}
	h.screen("/dashboard/news/" + news[0].Slug)
	if n, _ := h.srv.PageCacheStats(); n != entries+1 {
		t.Errorf("a real post's page was not cached: %d entries, want %d", n, entries+1)
	}
}

// TestTrackEventsAreBoundedAndPropsNeverLogged: an event's props are checked
// (count, key and value sizes, scalars only) and never written to the log,
// and one client's events are written at a bounded rate. The probe that grew
// the log past 1 GB sent 20 props of 50 KB each, again and again.
func TestTrackEventsAreBoundedAndPropsNeverLogged(t *testing.T) {
	t.Parallel()
	var logs syncBuffer
	h := newHarnessDeps(t, func(d *server.Deps) { d.Logger = slog.New(slog.NewTextHandler(&logs, nil)) })
	h.bootPage()

	big := map[string]any{}
	for i := range 20 {
		big["p"+strconv.Itoa(i)] = strings.Repeat("v", 50_000)
	}
	tooMany := map[string]any{}
	for i := range 21 {
		tooMany["p"+strconv.Itoa(i)] = "x"
	}
	for name, props := range map[string]map[string]any{
		"20 props of 50 KB": big,
		"21 props":          tooMany,
		"a long key":        {strings.Repeat("k", 65): "x"},
		"a nested value":    {"k": map[string]any{"deep": strings.Repeat("v", 1000)}},
		"a list value":      {"k": []any{"a", "b"}},
	} {
		before := len(logs.String())
		res := h.action("event.track", map[string]any{"event": "probe", "props": props})
		if res.status != http.StatusUnprocessableEntity {
			t.Errorf("%s: status %d, want 422", name, res.status)
		}
		if grew := len(logs.String()) - before; grew > 2000 {
			t.Errorf("%s: the log grew by %d bytes", name, grew)
		}
	}

	res := h.action("event.track", map[string]any{"event": "opened", "props": map[string]any{"source": "SECRET-PROP-VALUE", "n": 3}})
	if res.status != http.StatusOK {
		t.Fatalf("a valid event: %d %s", res.status, res.raw)
	}
	if out := logs.String(); strings.Contains(out, "SECRET-PROP-VALUE") || !strings.Contains(out, "event=opened") ||
		!strings.Contains(out, "props=2") {
		t.Errorf("the event line should name the event and count its props, never show them:\n%s", out)
	}

	for range 100 {
		if res := h.action("event.track", map[string]any{"event": "flood"}); res.status != http.StatusOK {
			t.Fatalf("an event over the rate: %d, want 200 (dropped quietly)", res.status)
		}
	}
	if n := strings.Count(logs.String(), "event=flood"); n > 31 {
		t.Errorf("one client wrote %d event lines in a moment, want at most the burst", n)
	}
}

// trackFrom posts an analytics event as if through a proxy that forwarded
// for the given X-Forwarded-For.
func (h *harness) trackFrom(forwardedFor, event string) response {
	h.t.Helper()
	body, _ := json.Marshal(map[string]any{"values": map[string]any{"event": event}, "path": "/"})
	req := httptest.NewRequest(http.MethodPost, "/ui/actions/event.track", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-SDUI-Version", "1")
	req.Header.Set("X-CSRF-Token", h.csrf)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	req.Header.Set("X-Forwarded-For", forwardedFor)
	req.Header.Set("X-Glimpse-Client-Ip", "192.0.2.99") // a client's attempt at our own header
	return h.do(req)
}

// TestClientIPBehindTrustedProxies: with GLIMPSE_TRUSTED_PROXIES, each client
// behind the proxy has its own per-IP limits, taken from the right of
// X-Forwarded-For so a client cannot pick a fresh address per request;
// without it, X-Forwarded-For is ignored. (The in-memory transport's peer is
// 0.0.0.0; per-IP limits show through the analytics event lines.)
func TestClientIPBehindTrustedProxies(t *testing.T) {
	t.Parallel()
	count := func(logs *syncBuffer, event string) int { return strings.Count(logs.String(), "event="+event+" ") }

	var behind syncBuffer
	h := newHarnessDeps(t, func(d *server.Deps) { d.Logger = slog.New(slog.NewTextHandler(&behind, nil)) },
		func(c *config.Config) {
			c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("0.0.0.0/32"), netip.MustParsePrefix("10.0.0.0/8")}
		})
	h.bootPage()
	for i := range 40 {
		// The client writes a new address each time; our proxies append the real one.
		h.trackFrom("198.51.100."+strconv.Itoa(i)+", 203.0.113.7, 10.1.2.3", "a")
	}
	if n := count(&behind, "a"); n != 30 {
		t.Errorf("one client behind the proxy wrote %d event lines, want its burst of 30", n)
	}
	h.trackFrom("203.0.113.8", "b")
	if n := count(&behind, "b"); n != 1 {
		t.Errorf("a second client behind the same proxy shares the first one's limit (%d lines)", n)
	}

	var direct syncBuffer
	h = newHarnessDeps(t, func(d *server.Deps) { d.Logger = slog.New(slog.NewTextHandler(&direct, nil)) })
	h.bootPage()
	for i := range 40 {
		h.trackFrom("203.0.113."+strconv.Itoa(i), "c")
	}
	if n := count(&direct, "c"); n != 30 {
		t.Errorf("with no trusted proxy, X-Forwarded-For was believed: %d event lines, want 30", n)
	}
}

// TestCSRFTokenRotatesAtSignIn: a sign-in issues a new browser cookie and so
// a new CSRF token, sent in the X-CSRF-Token response header for the
// renderer; the token from before the sign-in no longer works.
func TestCSRFTokenRotatesAtSignIn(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.subscriber("rotate@example.com", "correct horse")
	h.bootPage()
	before, cookieBefore := h.csrf, h.cookies["glimpse_browser"]
	if res := h.action("event.track", map[string]any{"event": "before"}); res.status != http.StatusOK {
		t.Fatalf("the page's token does not work before sign-in: %d", res.status)
	}

	res := h.action("session.sign_in", map[string]any{"email": "rotate@example.com", "password": "correct horse"})
	if res.status != http.StatusOK {
		t.Fatalf("sign-in: %d %s", res.status, res.raw)
	}
	after := res.header.Get("X-CSRF-Token")
	if after == "" || after == before {
		t.Fatalf("sign-in sent token %q, want a new one (before: %q)", after, before)
	}
	if h.cookies["glimpse_browser"] == cookieBefore {
		t.Error("the browser cookie was not replaced at sign-in")
	}

	h.csrf = before
	if res := h.action("event.track", map[string]any{"event": "stale"}); res.status != http.StatusForbidden {
		t.Errorf("the token from before sign-in still works: %d", res.status)
	}
	h.csrf = after
	if res := h.action("event.track", map[string]any{"event": "fresh"}); res.status != http.StatusOK {
		t.Errorf("the new token does not work: %d %s", res.status, res.raw)
	}
	// Screens carry the same new token.
	h.screen("/dashboard")
	if h.csrf != after {
		t.Errorf("the dashboard's token %q differs from the one sent at sign-in %q", h.csrf, after)
	}

	// A failed sign-in rotates nothing.
	res = h.action("session.sign_in", map[string]any{"email": "rotate@example.com", "password": "wrong horse!"})
	if res.header.Get("X-CSRF-Token") != "" {
		t.Error("a failed sign-in issued a token")
	}
}
