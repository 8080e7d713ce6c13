// Package apitest runs a fake Instagram API on 127.0.0.1 for tests of the api
// package and of anything built on it. It serves the JSON replies kept in
// fixtures/instagram/api (see the README there) by route, checks the app
// credentials and the access token as the real API would, pages by the after
// cursor, and has knobs to inject error replies and delays and to count
// requests. What it reproduces, and what it does not, is listed in
// docs/instagram.md §3.10.
package apitest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"glimpse/engine/instagram/api"
)

// The app credentials the fake accepts; Server.Config uses them.
const (
	AppID       = "1029384756102938"
	AppSecret   = "apitest-app-secret-5f0c9e1d2b3a4c5d"
	RedirectURI = "https://glimpse.example/instagram/callback"
	// Code is the authorization code the fake's consent screen hands out and
	// its code exchange accepts.
	Code = "AQBapitestAuthorizationCode0123456789"
)

// realAPIOrigin is rewritten to the fake's address in every reply, so the
// fixtures' paging links point at the fake as they point at the API.
const realAPIOrigin = "https://graph.instagram.com"

// Server is the fake API. Its methods are safe for concurrent use.
type Server struct {
	// URL is the fake's origin, e.g. http://127.0.0.1:40123.
	URL string

	dir        string
	shortToken string
	longToken  string

	mu       sync.Mutex
	tokens   map[string]bool
	failures map[string][]reply
	delay    time.Duration
	counts   map[string]int
}

type reply struct {
	status  int
	fixture string
	header  http.Header
}

// NewServer starts the fake on 127.0.0.1 serving the fixtures in
// fixturesDir (DefaultFixtures when empty) and stops it when the test ends.
func NewServer(tb testing.TB, fixturesDir string) *Server {
	tb.Helper()
	if fixturesDir == "" {
		fixturesDir = DefaultFixtures(tb)
	}
	s := &Server{dir: fixturesDir, tokens: map[string]bool{}, failures: map[string][]reply{},
		counts: map[string]int{}}
	for _, name := range []string{"token_short.json", "token_long.json", "token_refresh.json"} {
		tok := s.fixtureToken(tb, name)
		s.tokens[tok] = true
		switch name {
		case "token_short.json":
			s.shortToken = tok
		case "token_long.json":
			s.longToken = tok
		}
	}
	srv := httptest.NewServer(http.HandlerFunc(s.serve))
	tb.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

// DefaultFixtures returns fixtures/instagram/api of the module the test runs
// in, found by walking up from the working directory to go.mod.
func DefaultFixtures(tb testing.TB) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "fixtures", "instagram", "api")
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Fatal("apitest: no go.mod above the working directory")
		}
		dir = parent
	}
}

func (s *Server) fixtureToken(tb testing.TB, name string) string {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join(s.dir, name))
	if err != nil {
		tb.Fatalf("apitest: %v", err)
	}
	var t struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.Unmarshal(b, &t); err != nil || t.AccessToken == "" {
		tb.Fatalf("apitest: %s has no access_token", name)
	}
	return t.AccessToken
}

// Config returns a client configuration pointing every base URL at the fake,
// with the credentials it accepts.
func (s *Server) Config() api.Config {
	return api.Config{AppID: AppID, AppSecret: AppSecret, RedirectURI: RedirectURI,
		AuthBaseURL: s.URL, APIBaseURL: s.URL, TokenBaseURL: s.URL}
}

// Token returns the long-lived token of token_long.json, which the fake
// accepts, valid for 60 days from now.
func (s *Server) Token() api.Token {
	now := time.Now().UTC()
	return api.Token{AccessToken: s.longToken, IssuedAt: now, ExpiresAt: now.Add(api.LongLivedLifetime)}
}

// AddToken makes the fake accept another access token.
func (s *Server) AddToken(token string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tokens[token] = true
}

// FailNext makes the next request to path (without the version prefix, e.g.
// "/me/media" or "/oauth/access_token") get the fixture named with status
// and the extra headers, instead of its normal reply. Calls queue up. Any
// status works, so a 200 swaps one reply for another (e.g. the data-wrapped
// token_short_data.json); an empty fixture sends an empty body.
func (s *Server) FailNext(path string, status int, fixture string, header http.Header) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failures[path] = append(s.failures[path], reply{status: status, fixture: fixture, header: header})
}

// SetDelay holds every reply back by d (or until the client gives up), for
// timeout tests.
func (s *Server) SetDelay(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.delay = d
}

// Requests returns how many requests reached path (without the version
// prefix); "" counts every request.
func (s *Server) Requests(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if path == "" {
		total := 0
		for _, n := range s.counts {
			total += n
		}
		return total
	}
	return s.counts[path]
}

var versionPrefix = regexp.MustCompile(`^/v\d+\.\d+(/.*)$`)

// cursor names a fixture: the fixtures' after cursors are fixture names
// without .json, so paging needs no state.
var cursor = regexp.MustCompile(`^[a-z0-9_]{1,64}$`)

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	versioned := false
	if m := versionPrefix.FindStringSubmatch(path); m != nil {
		path, versioned = m[1], true
	}
	// Reading the body first lets the server notice a client that gives up
	// during the delay (net/http watches the connection only after that).
	formErr := r.ParseForm()
	s.mu.Lock()
	s.counts[path]++
	delay := s.delay
	var injected *reply
	if queue := s.failures[path]; len(queue) > 0 {
		injected = &queue[0]
		s.failures[path] = queue[1:]
	}
	s.mu.Unlock()

	if delay > 0 {
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		}
	}
	if injected != nil {
		s.send(w, injected.status, injected.fixture, injected.header)
		return
	}
	if formErr != nil {
		s.send(w, http.StatusBadRequest, "error_100.json", nil)
		return
	}
	switch {
	case path == "/oauth/authorize" && r.Method == http.MethodGet:
		s.authorize(w, r)
	case path == "/oauth/access_token" && r.Method == http.MethodPost:
		s.exchangeCode(w, r)
	case path == "/access_token" && r.Method == http.MethodGet:
		if r.Form.Get("grant_type") != "ig_exchange_token" || r.Form.Get("client_secret") != AppSecret {
			s.send(w, http.StatusBadRequest, "error_100.json", nil)
			return
		}
		if r.Form.Get("access_token") != s.shortToken {
			s.send(w, http.StatusBadRequest, "error_190.json", nil)
			return
		}
		s.send(w, http.StatusOK, "token_long.json", nil)
	case path == "/refresh_access_token" && r.Method == http.MethodGet:
		if r.Form.Get("grant_type") != "ig_refresh_token" {
			s.send(w, http.StatusBadRequest, "error_100.json", nil)
			return
		}
		if !s.valid(r) {
			s.send(w, http.StatusBadRequest, "error_190.json", nil)
			return
		}
		s.send(w, http.StatusOK, "token_refresh.json", nil)
	case versioned && r.Method == http.MethodGet:
		s.graph(w, r, path)
	default:
		s.send(w, http.StatusBadRequest, "error_100.json", nil)
	}
}

// authorize stands in for the consent screen: it approves at once and
// redirects with the code and the state, "#_" appended as Instagram does.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	if r.Form.Get("client_id") != AppID || r.Form.Get("redirect_uri") != RedirectURI ||
		r.Form.Get("response_type") != "code" {
		s.send(w, http.StatusBadRequest, "error_100.json", nil)
		return
	}
	q := url.Values{"code": {Code}, "state": {r.Form.Get("state")}}
	http.Redirect(w, r, RedirectURI+"?"+q.Encode()+"#_", http.StatusFound)
}

func (s *Server) exchangeCode(w http.ResponseWriter, r *http.Request) {
	f := r.PostForm
	if f.Get("client_id") != AppID || f.Get("client_secret") != AppSecret ||
		f.Get("grant_type") != "authorization_code" || f.Get("redirect_uri") != RedirectURI ||
		f.Get("code") != Code {
		s.send(w, http.StatusBadRequest, "error_oauth_code.json", nil)
		return
	}
	s.send(w, http.StatusOK, "token_short.json", nil)
}

// valid reports whether the request carries a token the fake accepts, as the
// access_token parameter or a bearer header.
func (s *Server) valid(r *http.Request) bool {
	tok := r.Form.Get("access_token")
	if tok == "" {
		tok = strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tokens[tok]
}

func (s *Server) graph(w http.ResponseWriter, r *http.Request, path string) {
	if !s.valid(r) {
		s.send(w, http.StatusBadRequest, "error_190.json", nil)
		return
	}
	parts := strings.Split(strings.Trim(path, "/"), "/")
	switch {
	case path == "/me":
		s.send(w, http.StatusOK, "me.json", nil)
	case len(parts) == 2 && parts[1] == "media":
		s.page(w, r, "media_page1")
	case len(parts) == 2 && parts[1] == "comments":
		s.page(w, r, "comments_page1")
	default:
		s.send(w, http.StatusBadRequest, "error_100.json", nil)
	}
}

// page serves the first page, or the fixture the after cursor names.
func (s *Server) page(w http.ResponseWriter, r *http.Request, first string) {
	name := first
	if after := r.Form.Get("after"); after != "" {
		if !cursor.MatchString(after) {
			s.send(w, http.StatusBadRequest, "error_100.json", nil)
			return
		}
		name = after
	}
	if _, err := os.Stat(filepath.Join(s.dir, name+".json")); err != nil {
		s.send(w, http.StatusBadRequest, "error_100.json", nil)
		return
	}
	s.send(w, http.StatusOK, name+".json", nil)
}

// send writes a fixture as the reply.
func (s *Server) send(w http.ResponseWriter, status int, fixture string, header http.Header) {
	var body []byte
	if fixture != "" {
		var err error
		if body, err = os.ReadFile(filepath.Join(s.dir, fixture)); err != nil {
			http.Error(w, "apitest: "+err.Error(), http.StatusInternalServerError)
			return
		}
	}
	contentType := "application/json"
	if !strings.HasSuffix(fixture, ".json") {
		contentType = "text/html; charset=utf-8"
	}
	s.write(w, status, contentType, s.rewrite(body), header)
}

func (s *Server) write(w http.ResponseWriter, status int, contentType string, body []byte, header http.Header) {
	for k, vs := range header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

func (s *Server) rewrite(body []byte) []byte {
	return []byte(strings.ReplaceAll(string(body), realAPIOrigin, s.URL))
}
