package api_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"glimpse/engine"
	"glimpse/engine/instagram/api"
	"glimpse/engine/instagram/api/apitest"
)

// t0 is the manual clock's start.
var t0 = time.Date(2025, 5, 1, 12, 0, 0, 0, time.UTC)

type fixture struct {
	client *api.Client
	server *apitest.Server
	clock  *engine.ManualClock
	token  api.Token
}

// setup starts a fake API and a client pointed at it, with a manual clock.
func setup(t *testing.T, configure ...func(*api.Config)) fixture {
	t.Helper()
	s := apitest.NewServer(t, "")
	clock := engine.NewManualClock(t0)
	cfg := s.Config()
	cfg.Clock = clock
	for _, f := range configure {
		f(&cfg)
	}
	return fixture{client: api.New(cfg), server: s, clock: clock, token: s.Token()}
}

func TestAuthorizeURLAndCallback(t *testing.T) {
	t.Parallel()
	f := setup(t)
	got, err := url.Parse(f.client.AuthorizeURL("state-123"))
	if err != nil {
		t.Fatal(err)
	}
	want := url.Values{
		"client_id":     {apitest.AppID},
		"redirect_uri":  {apitest.RedirectURI},
		"response_type": {"code"},
		"scope":         {"instagram_business_basic,instagram_business_manage_comments,instagram_business_manage_insights"},
		"state":         {"state-123"},
	}
	if diff := cmp.Diff(want, got.Query()); diff != "" {
		t.Errorf("authorize query (-want +got):\n%s", diff)
	}
	if got.Path != "/oauth/authorize" {
		t.Errorf("authorize path = %q", got.Path)
	}

	// The fake consent screen redirects with the code and the state.
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noFollow.Get(got.String())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	location, err := url.Parse(resp.Header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	code, err := api.CallbackCode(location.Query(), "state-123")
	if err != nil {
		t.Fatal(err)
	}
	if code != apitest.Code {
		t.Errorf("code = %q, want %q", code, apitest.Code)
	}
}

func TestCallbackCode(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		query    string
		state    string
		wantCode string
		wantErr  error
	}{
		{"code with the #_ suffix", "code=AQBx%23_&state=s1", "s1", "AQBx", nil},
		{"state mismatch", "code=AQBx&state=other", "s1", "", api.ErrInvalidRequest},
		{"state missing", "code=AQBx", "s1", "", api.ErrInvalidRequest},
		{"no expected state", "code=AQBx&state=", "", "", api.ErrInvalidRequest},
		{"declined", "error=access_denied&error_reason=user_denied&error_description=The+user+denied&state=s1", "s1", "", api.ErrDenied},
		{"other error", "error=server_error&state=s1", "s1", "", api.ErrInvalidRequest},
		{"no code", "state=s1", "s1", "", api.ErrInvalidRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			q, _ := url.ParseQuery(tt.query)
			code, err := api.CallbackCode(q, tt.state)
			if !errors.Is(err, tt.wantErr) || (err == nil) != (tt.wantErr == nil) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if code != tt.wantCode {
				t.Errorf("code = %q, want %q", code, tt.wantCode)
			}
		})
	}
}

func TestOAuthFlow(t *testing.T) {
	t.Parallel()
	f := setup(t)
	ctx := t.Context()

	short, err := f.client.ExchangeCode(ctx, apitest.Code+"#_")
	if err != nil {
		t.Fatal(err)
	}
	wantShort := api.ShortToken{
		AccessToken: "IGAAshortLivedFixtureToken0000000000000000000001",
		UserID:      "17841405793187218", // above 2^53: must survive digit for digit
		Permissions: []string{"instagram_business_basic", "instagram_business_manage_comments", "instagram_business_manage_insights"},
	}
	if diff := cmp.Diff(wantShort, short); diff != "" {
		t.Errorf("short token (-want +got):\n%s", diff)
	}

	// The other documented shape, wrapped in data[0].
	f.server.FailNext("/oauth/access_token", http.StatusOK, "token_short_data.json", nil)
	wrapped, err := f.client.ExchangeCode(ctx, apitest.Code)
	if err != nil {
		t.Fatal(err)
	}
	wantShort.Permissions = wantShort.Permissions[:2]
	if diff := cmp.Diff(wantShort, wrapped); diff != "" {
		t.Errorf("data-wrapped short token (-want +got):\n%s", diff)
	}

	long, err := f.client.LongLived(ctx, short)
	if err != nil {
		t.Fatal(err)
	}
	wantLong := api.Token{AccessToken: "IGAAlongLivedFixtureToken00000000000000000000002",
		IssuedAt: t0, ExpiresAt: t0.Add(5183944 * time.Second)}
	if diff := cmp.Diff(wantLong, long); diff != "" {
		t.Errorf("long-lived token (-want +got):\n%s", diff)
	}

	f.clock.Advance(8 * 24 * time.Hour)
	if !api.NeedsRefresh(long, f.clock.Now()) {
		t.Fatal("an 8-day-old token should need a refresh")
	}
	refreshed, err := f.client.Refresh(ctx, long)
	if err != nil {
		t.Fatal(err)
	}
	now := f.clock.Now()
	wantRefreshed := api.Token{AccessToken: "IGAArefreshedFixtureToken0000000000000000000003",
		IssuedAt: now, ExpiresAt: now.Add(5184000 * time.Second)}
	if diff := cmp.Diff(wantRefreshed, refreshed); diff != "" {
		t.Errorf("refreshed token (-want +got):\n%s", diff)
	}
}

func TestOAuthFailures(t *testing.T) {
	t.Parallel()
	f := setup(t)
	ctx := t.Context()

	_, err := f.client.ExchangeCode(ctx, "AQBwrongCodeXYZ")
	assertError(t, err, api.ErrInvalidRequest, "AQBwrongCodeXYZ")

	_, err = f.client.LongLived(ctx, api.ShortToken{AccessToken: "IGAAnotAShortTokenAtAll000000"})
	assertError(t, err, api.ErrReauthorize, "IGAAnotAShortTokenAtAll000000")

	_, err = f.client.Refresh(ctx, api.Token{AccessToken: "IGAAexpiredTokenNobodyKnows0000"})
	assertError(t, err, api.ErrReauthorize, "IGAAexpiredTokenNobodyKnows0000")

	// Refreshing a token younger than 24 h: the API answers with an error.
	f.server.FailNext("/refresh_access_token", http.StatusBadRequest, "error_100.json", nil)
	_, err = f.client.Refresh(ctx, f.token)
	assertError(t, err, api.ErrNotFound, f.token.AccessToken)

	f.server.FailNext("/oauth/access_token", http.StatusOK, "insights_empty.json", nil)
	_, err = f.client.ExchangeCode(ctx, apitest.Code)
	assertError(t, err, api.ErrUnavailable)

	f.server.FailNext("/access_token", http.StatusOK, "error_502.html", nil)
	_, err = f.client.LongLived(ctx, api.ShortToken{AccessToken: "IGAAshortLivedFixtureToken0000000000000000000001"})
	assertError(t, err, api.ErrUnavailable, "IGAAshortLivedFixtureToken0000000000000000000001")
}

func TestNeedsRefresh(t *testing.T) {
	t.Parallel()
	const day = 24 * time.Hour
	sixty := api.Token{AccessToken: "t", IssuedAt: t0, ExpiresAt: t0.Add(60 * day)}
	tests := []struct {
		name string
		tok  api.Token
		at   time.Duration // after t0
		want bool
	}{
		{"fresh", sixty, 0, false},
		{"23 h old", sixty, 23 * time.Hour, false},
		{"exactly 7 days old, 53 days left", sixty, 7 * day, false},
		{"just over 7 days old", sixty, 7*day + time.Second, true},
		{"59 days old", sixty, 59 * day, true},
		{"expired", sixty, 60 * day, false},
		{"short lifetime, 23 h old", api.Token{AccessToken: "t", IssuedAt: t0, ExpiresAt: t0.Add(36 * time.Hour)}, 23 * time.Hour, false},
		{"short lifetime, 24 h old", api.Token{AccessToken: "t", IssuedAt: t0, ExpiresAt: t0.Add(36 * time.Hour)}, 24 * time.Hour, true},
		{"issue time unknown, assumed 60 days before expiry", api.Token{AccessToken: "t", ExpiresAt: t0.Add(60 * day)}, time.Hour, false},
		{"issue time unknown, 8 days in", api.Token{AccessToken: "t", ExpiresAt: t0.Add(60 * day)}, 8 * day, true},
		{"expiry unknown, 1 h old", api.Token{AccessToken: "t", IssuedAt: t0}, time.Hour, false},
		{"expiry unknown, 25 h old", api.Token{AccessToken: "t", IssuedAt: t0}, 25 * time.Hour, true},
		{"nothing known", api.Token{AccessToken: "t"}, 0, true},
		{"no token", api.Token{}, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := api.NeedsRefresh(tt.tok, t0.Add(tt.at)); got != tt.want {
				t.Errorf("NeedsRefresh = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestProfile(t *testing.T) {
	t.Parallel()
	f := setup(t)
	got, err := f.client.Profile(t.Context(), f.token)
	if err != nil {
		t.Fatal(err)
	}
	want := api.Profile{ID: "8123456789012345", UserID: "17841400000000001", Username: "acme.bakery",
		Name: "Acme Bakery", AccountType: "BUSINESS", MediaCount: 5, FollowersCount: 2310, FollowsCount: 418,
		ProfilePictureURL: "https://scontent.example/v/t51.2885-19/acme-bakery.jpg"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("profile (-want +got):\n%s", diff)
	}
}

func ts(s string) time.Time {
	tm, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return tm
}

var allMedia = []api.Media{
	{ID: "17918000000000005", Caption: "New sourdough!", MediaType: "CAROUSEL_ALBUM", ProductType: "FEED",
		MediaURL: "https://scontent.example/v/sourdough.jpg", Permalink: "https://www.instagram.com/p/Cx1AbCdEfG5/",
		Timestamp: ts("2025-03-14T09:21:05Z"), LikeCount: 214, CommentsCount: 17},
	{ID: "17918000000000004", Caption: "Morning bake, behind the scenes", MediaType: "VIDEO", ProductType: "REELS",
		MediaURL: "https://scontent.example/v/morning-bake.mp4", ThumbnailURL: "https://scontent.example/v/morning-bake-thumb.jpg",
		Permalink: "https://www.instagram.com/reel/Cx1AbCdEfG4/", Timestamp: ts("2025-03-10T07:02:40Z"), LikeCount: 389, CommentsCount: 25},
	{ID: "17918000000000003", Caption: "Croissant Friday", MediaType: "IMAGE", ProductType: "FEED",
		MediaURL: "https://scontent.example/v/croissants.jpg", Permalink: "https://www.instagram.com/p/Cx1AbCdEfG3/",
		Timestamp: ts("2025-03-07T12:30:00Z"), LikeCount: 120, CommentsCount: 4},
	{ID: "17918000000000002", Caption: "This one was flagged, so it has no media_url", MediaType: "IMAGE", ProductType: "FEED",
		Permalink: "https://www.instagram.com/p/Cx1AbCdEfG2/", Timestamp: ts("2025-02-28T18:45:12Z"), LikeCount: 56},
	{ID: "17918000000000001", Caption: "Like counts hidden on this one", MediaType: "IMAGE", ProductType: "FEED",
		MediaURL: "https://scontent.example/v/first-loaf.jpg", Permalink: "https://www.instagram.com/p/Cx1AbCdEfG1/",
		Timestamp: ts("2025-02-20T08:00:00Z"), LikesHidden: true, CommentsCount: 2},
}

func TestMediaPagination(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		limit        int
		want         []api.Media
		wantRequests int
	}{
		{"both pages, stopping where next is absent", 50, allMedia, 2},
		{"limit within the first page", 2, allMedia[:2], 1},
		{"limit within the second page", 4, allMedia[:4], 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := setup(t)
			got, err := f.client.Media(t.Context(), f.token, tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("media (-want +got):\n%s", diff)
			}
			if n := f.server.Requests("/me/media"); n != tt.wantRequests {
				t.Errorf("requests = %d, want %d", n, tt.wantRequests)
			}
		})
	}
}

func TestMediaPictureURL(t *testing.T) {
	t.Parallel()
	want := []string{"https://scontent.example/v/sourdough.jpg", "https://scontent.example/v/morning-bake-thumb.jpg",
		"https://scontent.example/v/croissants.jpg", "", "https://scontent.example/v/first-loaf.jpg"}
	var got []string
	for _, m := range allMedia {
		got = append(got, m.PictureURL())
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("picture URLs (-want +got):\n%s", diff)
	}
}

func TestMediaStopsOnARepeatedCursor(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.server.FailNext("/me/media", http.StatusOK, "media_loop.json", nil)
	got, err := f.client.Media(t.Context(), f.token, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || f.server.Requests("/me/media") != 2 {
		t.Errorf("got %d items in %d requests, want 2 in 2", len(got), f.server.Requests("/me/media"))
	}
}

func TestMediaPageCap(t *testing.T) {
	t.Parallel()
	// An API that always has a next page, with a new cursor each time.
	var requests atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := requests.Add(1)
		fmt.Fprintf(w, `{"data":[{"id":"%d","timestamp":"2025-01-01T00:00:00+0000"}],
			"paging":{"cursors":{"after":"c%d"},"next":"https://graph.instagram.com/v23.0/me/media?after=c%d"}}`, n, n, n)
	}))
	t.Cleanup(srv.Close)
	c := api.New(api.Config{APIBaseURL: srv.URL})
	got, err := c.Media(t.Context(), api.Token{AccessToken: "IGAAcapTestToken00000000000000"}, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != api.MaxPages || requests.Load() != api.MaxPages {
		t.Errorf("got %d items in %d requests, want %d in %d", len(got), requests.Load(), api.MaxPages, api.MaxPages)
	}
}

func TestMediaNeverSendsTheTokenElsewhere(t *testing.T) {
	t.Parallel()
	// paging.next points at another host; the client must rebuild the
	// request on its own base URL from the cursor.
	var mu sync.Mutex
	var hosts []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hosts = append(hosts, r.Host)
		mu.Unlock()
		if r.URL.Query().Get("after") == "" {
			fmt.Fprint(w, `{"data":[{"id":"1"}],"paging":{"next":"https://evil.example/v23.0/me/media?after=p2&access_token=x"}}`)
			return
		}
		fmt.Fprint(w, `{"data":[{"id":"2"}]}`)
	}))
	t.Cleanup(srv.Close)
	c := api.New(api.Config{APIBaseURL: srv.URL})
	got, err := c.Media(t.Context(), api.Token{AccessToken: "IGAAnextTestToken0000000000000"}, 10)
	if err != nil {
		t.Fatal(err)
	}
	host := strings.TrimPrefix(srv.URL, "http://")
	mu.Lock()
	defer mu.Unlock()
	if diff := cmp.Diff([]string{host, host}, hosts); diff != "" || len(got) != 2 {
		t.Errorf("hosts (-want +got):\n%s; got %d items", diff, len(got))
	}
}

func TestComments(t *testing.T) {
	t.Parallel()
	f := setup(t)
	got, err := f.client.Comments(t.Context(), f.token, "17918000000000005", 10)
	if err != nil {
		t.Fatal(err)
	}
	want := []api.Comment{
		{ID: "17990000000000011", Username: "jane.doe", UserID: "2847000000000001", Text: "Looks amazing 😍",
			Timestamp: ts("2025-03-14T10:02:11Z"), Replies: []api.Comment{
				{ID: "17990000000000012", Username: "acme.bakery", UserID: "17841400000000001", Text: "Thank you Jane!",
					Timestamp: ts("2025-03-14T10:15:00Z")},
			}},
		// username comes from "from" when the top-level field is absent.
		{ID: "17990000000000013", Username: "sam.k", UserID: "2847000000000002", Text: "Do you deliver?",
			Timestamp: ts("2025-03-14T11:20:45Z")},
		{ID: "17990000000000014", Username: "lee_bakes", UserID: "2847000000000003", Text: "Best bread in town",
			Timestamp: ts("2025-03-15T08:05:00Z")},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("comments (-want +got):\n%s", diff)
	}
	if n := f.server.Requests("/17918000000000005/comments"); n != 2 {
		t.Errorf("requests = %d, want 2", n)
	}

	if _, err := f.client.Comments(t.Context(), f.token, "", 10); !errors.Is(err, api.ErrInvalidRequest) {
		t.Errorf("no media ID: err = %v", err)
	}
	if _, err := f.client.Comments(t.Context(), f.token, "1", 0); !errors.Is(err, api.ErrInvalidRequest) {
		t.Errorf("zero limit: err = %v", err)
	}
}

func header(kv ...string) http.Header {
	h := http.Header{}
	for i := 0; i < len(kv); i += 2 {
		h.Set(kv[i], kv[i+1])
	}
	return h
}

func TestErrorClasses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name           string
		status         int
		fixture        string
		header         http.Header
		want           error
		wantRetryAfter time.Duration
		wantCode       engine.Code
	}{
		{"190 expired", 400, "error_190.json", nil, api.ErrReauthorize, 0, engine.CodeForbidden},
		{"190 password changed", 400, "error_190_460.json", nil, api.ErrReauthorize, 0, engine.CodeForbidden},
		{"4 app limit with X-App-Usage", 400, "error_4.json",
			header("X-App-Usage", `{"call_count":100,"total_cputime":12,"total_time":30,"estimated_time_to_regain_access":7}`),
			api.ErrRateLimited, 7 * time.Minute, engine.CodeRateLimited},
		{"17 user limit with the BUC header", 400, "error_17.json",
			header("X-Business-Use-Case-Usage", `{"17841400000000001":[{"type":"instagram","call_count":100,"total_cputime":4,"total_time":9,"estimated_time_to_regain_access":12}]}`),
			api.ErrRateLimited, 12 * time.Minute, engine.CodeRateLimited},
		{"32 page limit with Retry-After", 400, "error_32.json", header("Retry-After", "120"),
			api.ErrRateLimited, 2 * time.Minute, engine.CodeRateLimited},
		{"613 without headers backs off by default", 400, "error_613.json", nil,
			api.ErrRateLimited, api.DefaultBackoff, engine.CodeRateLimited},
		{"80002 business use case", 400, "error_80002.json",
			header("X-Business-Use-Case-Usage", `{"1":[{"type":"instagram","call_count":100,"estimated_time_to_regain_access":30}],"2":[{"estimated_time_to_regain_access":45}]}`),
			api.ErrRateLimited, 45 * time.Minute, engine.CodeRateLimited},
		{"429 without a body", 429, "", nil, api.ErrRateLimited, api.DefaultBackoff, engine.CodeRateLimited},
		{"10 permission", 400, "error_10.json", nil, api.ErrPermission, 0, engine.CodeForbidden},
		{"403 without a body", 403, "", nil, api.ErrPermission, 0, engine.CodeForbidden},
		{"100 invalid parameter", 400, "error_100.json", nil, api.ErrNotFound, 0, engine.CodeNotFound},
		{"2 transient", 503, "error_2.json", nil, api.ErrUnavailable, 0, engine.CodeUnavailable},
		{"500 with code 1", 500, "error_500.json", nil, api.ErrUnavailable, 0, engine.CodeUnavailable},
		{"502 with an HTML body", 502, "error_502.html", nil, api.ErrUnavailable, 0, engine.CodeUnavailable},
		{"200 with an HTML body", 200, "error_502.html", nil, api.ErrUnavailable, 0, engine.CodeUnavailable},
		{"other 4xx", 418, "", nil, api.ErrInvalidRequest, 0, engine.CodeInternal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := setup(t)
			f.server.FailNext("/me", tt.status, tt.fixture, tt.header)
			_, err := f.client.Profile(t.Context(), f.token)
			assertError(t, err, tt.want, f.token.AccessToken)
			var rl *api.RateLimitError
			if errors.As(err, &rl) != (tt.wantRetryAfter > 0) {
				t.Fatalf("RateLimitError = %v, want one: %v", rl, tt.wantRetryAfter > 0)
			}
			if rl != nil && rl.RetryAfter != tt.wantRetryAfter {
				t.Errorf("RetryAfter = %s, want %s", rl.RetryAfter, tt.wantRetryAfter)
			}
			var app *engine.Error
			if !errors.As(api.AppError(err), &app) || app.Code != tt.wantCode || app.Message == "" {
				t.Errorf("AppError = %#v, want code %s with a message", app, tt.wantCode)
			}
		})
	}
}

func TestAPIErrorFields(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.server.FailNext("/me", 400, "error_190.json", nil)
	_, err := f.client.Profile(t.Context(), f.token)
	var got *api.Error
	if !errors.As(err, &got) {
		t.Fatalf("err = %v, want an *api.Error", err)
	}
	want := &api.Error{Kind: api.ErrReauthorize, Status: 400, Code: 190, Subcode: 463, Type: "OAuthException",
		Message: "Error validating access token: Session has expired on Friday, 14-Mar-25 10:00:00 PDT.", TraceID: "AbCdEf190x"}
	if diff := cmp.Diff(*want, *got, cmp.Comparer(func(a, b error) bool { return a == b }), cmp.AllowUnexported(api.Error{})); diff != "" {
		t.Errorf("error (-want +got):\n%s", diff)
	}
}

func TestRateLimitRestsTheToken(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.server.FailNext("/me", 400, "error_17.json",
		header("X-Business-Use-Case-Usage", `{"1":[{"type":"instagram","call_count":100,"estimated_time_to_regain_access":12}]}`))
	if _, err := f.client.Profile(t.Context(), f.token); !errors.Is(err, api.ErrRateLimited) {
		t.Fatalf("err = %v", err)
	}
	f.clock.Advance(2 * time.Minute)
	_, err := f.client.Media(t.Context(), f.token, 5)
	var rl *api.RateLimitError
	if !errors.As(err, &rl) || rl.RetryAfter != 10*time.Minute {
		t.Fatalf("err = %v, want a RateLimitError with 10m left", err)
	}
	if n := f.server.Requests(""); n != 1 {
		t.Errorf("requests = %d, want 1: a rested token must not reach the API", n)
	}
	// Another token is not held back.
	f.server.AddToken("IGAAotherAccountToken000000000000")
	if _, err := f.client.Profile(t.Context(), api.Token{AccessToken: "IGAAotherAccountToken000000000000"}); err != nil {
		t.Errorf("other token: %v", err)
	}
	f.clock.Advance(10 * time.Minute)
	if _, err := f.client.Profile(t.Context(), f.token); err != nil {
		t.Errorf("after the rest: %v", err)
	}
}

func TestUsageHeaderOnSuccessRestsTheToken(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.server.FailNext("/me", 200, "me.json", header("X-App-Usage", `{"call_count":97,"total_cputime":10,"total_time":20}`))
	if _, err := f.client.Profile(t.Context(), f.token); err != nil {
		t.Fatal(err)
	}
	_, err := f.client.Profile(t.Context(), f.token)
	var rl *api.RateLimitError
	if !errors.As(err, &rl) || rl.RetryAfter != api.DefaultBackoff || rl.Err != nil {
		t.Fatalf("err = %v, want our own refusal for %s", err, api.DefaultBackoff)
	}
}

func TestLimiterRefusesRatherThanWaitPastTheDeadline(t *testing.T) {
	t.Parallel()
	f := setup(t)
	for i := range api.DefaultBurst {
		if _, err := f.client.Profile(t.Context(), f.token); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	start := time.Now()
	_, err := f.client.Profile(t.Context(), f.token)
	var rl *api.RateLimitError
	if !errors.As(err, &rl) || rl.RetryAfter != time.Hour/api.DefaultCallsPerHour || rl.Err != nil {
		t.Fatalf("err = %v, want our own refusal", err)
	}
	if waited := time.Since(start); waited > time.Second {
		t.Errorf("refused after %s; it must refuse at once", waited)
	}
	if n := f.server.Requests("/me"); n != api.DefaultBurst {
		t.Errorf("requests = %d, want %d", n, api.DefaultBurst)
	}
}

func TestTimeout(t *testing.T) {
	t.Parallel()
	f := setup(t, func(c *api.Config) { c.Timeout = 50 * time.Millisecond })
	f.server.SetDelay(5 * time.Second)
	start := time.Now()
	_, err := f.client.Profile(t.Context(), f.token)
	assertError(t, err, api.ErrUnavailable, f.token.AccessToken)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want it to wrap context.DeadlineExceeded", err)
	}
	if waited := time.Since(start); waited > 2*time.Second {
		t.Errorf("gave up after %s", waited)
	}
	_, err = f.client.ExchangeCode(t.Context(), apitest.Code)
	assertError(t, err, api.ErrUnavailable, apitest.Code)
}

func TestContextCancel(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.server.SetDelay(5 * time.Second)
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err := f.client.Media(ctx, f.token, 10)
	if !errors.Is(err, context.Canceled) || errors.Is(err, api.ErrUnavailable) {
		t.Errorf("err = %v, want context.Canceled only", err)
	}

	done, cancelNow := context.WithCancel(t.Context())
	cancelNow()
	_, err = f.client.Refresh(done, f.token)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled before: err = %v", err)
	}
	_, err = f.client.Profile(done, f.token)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled before, through the limiter: err = %v", err)
	}
}

func TestNoSecretsInErrors(t *testing.T) {
	t.Parallel()
	const token = "IGAAsecretTokenThatMustNotLeak0000000000"
	// An API that quotes our request back, secrets and all.
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		msg := fmt.Sprintf("bad request %s?%s form %s token %s secret %s", r.URL.Path, r.URL.RawQuery,
			r.PostForm.Encode(), r.Form.Get("access_token"), r.Form.Get("client_secret"))
		w.WriteHeader(http.StatusBadRequest)
		_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "code": 10,
			"error_user_msg": msg, "error_user_title": token, "fbtrace_id": token}})
	}))
	t.Cleanup(echo.Close)
	// A port nothing listens on: the transport error would quote the URL.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String()
	ln.Close()

	for _, base := range []string{echo.URL, closed} {
		c := api.New(api.Config{AppID: apitest.AppID, AppSecret: apitest.AppSecret, RedirectURI: apitest.RedirectURI,
			APIBaseURL: base, TokenBaseURL: base, Timeout: 2 * time.Second})
		ctx := t.Context()
		tok := api.Token{AccessToken: token}
		var errs []error
		_, err := c.ExchangeCode(ctx, "AQBsecretCodeThatMustNotLeak")
		errs = append(errs, err)
		_, err = c.LongLived(ctx, api.ShortToken{AccessToken: token})
		errs = append(errs, err)
		_, err = c.Refresh(ctx, tok)
		errs = append(errs, err)
		_, err = c.Profile(ctx, tok)
		errs = append(errs, err)
		_, err = c.Media(ctx, tok, 3)
		errs = append(errs, err)
		_, err = c.Comments(ctx, tok, "1", 3)
		errs = append(errs, err)
		for i, err := range errs {
			if err == nil {
				t.Fatalf("%s call %d: no error", base, i)
			}
			text := fmt.Sprintf("%v %+v %#v", err, err, api.AppError(err))
			for _, secret := range []string{token, apitest.AppSecret, "AQBsecretCodeThatMustNotLeak"} {
				if strings.Contains(text, secret) {
					t.Errorf("%s call %d: error text holds a secret: %s", base, i, text)
				}
			}
		}
	}
}

// assertError checks that err is classified as want and that its text holds
// none of the secrets.
func assertError(t *testing.T, err error, want error, secrets ...string) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("err = %v, want %v", err, want)
	}
	for _, secret := range append(secrets, apitest.AppSecret) {
		if strings.Contains(err.Error(), secret) {
			t.Errorf("error %q holds a secret", err)
		}
	}
}

func TestConcurrentCalls(t *testing.T) {
	t.Parallel()
	f := setup(t)
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	for range 20 {
		wg.Go(func() {
			_, err := f.client.Media(t.Context(), f.token, 5)
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}
