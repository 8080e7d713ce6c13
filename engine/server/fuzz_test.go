package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/gofiber/fiber/v3"

	"glimpse/content"
	"glimpse/engine"
	"glimpse/engine/app"
	"glimpse/engine/config"
	"glimpse/engine/imageproxy"
	"glimpse/engine/server"
	"glimpse/engine/store/storetest"
)

// fuzzActions are the actions whose JSON bodies FuzzActionBody throws bytes
// at: every request type with values of its own, and one that takes none,
// so the envelope decoder, the values decoder and the validator all run.
var fuzzActions = []string{
	"session.sign_in",
	"session.from_url",
	"event.track",
	"studio.save",
	"studio.sign_in",
	"studio.find",
	"session.sign_out",
}

// FuzzActionBody posts arbitrary bytes as the body of an action through the
// in-process Fiber app, exactly as a browser's request would arrive (same
// origin, valid CSRF token and cookie). Whatever the body, the answer must be
// a JSON result or a 4xx error: a 5xx or a panic means the decode and
// validate path let malformed input reach somewhere it should not.
func FuzzActionBody(f *testing.F) {
	for i, body := range []string{
		`{"values":{"email":"a@b.co","password":"123456"},"path":"/sign-in"}`,
		`{"values":{"creds":"eyJlbWFpbCI6ImFAYi5jbyIsInBhc3N3b3JkIjoieCJ9"}}`,
		`{"values":{"login":"abc"}}`,
		`{"values":{"event":"x","props":{"a":1,"b":[1,2,{"c":null}]}}}`,
		`{"values":{"/doc/kind":"article","/doc/slug":"../../etc","/restore":-1}}`,
		`{"values":{"/form/q":"free month","/find":{"sort":"date","brand":"../_x_"}}}`,
		`{"values":null}`,
		`{"values":[]}`,
		`{"values":"x"}`,
		`{"values":{"email":{"$gt":""},"password":["x"]}}`,
		`{"values":{"event":"` + strings.Repeat("e", 200) + `"}}`,
		`{`,
		``,
		`null`,
		"\xff\xfe{}",
		`{"values":{"props":{"1":1,"2":2,"3":3,"4":4,"5":5,"6":6,"7":7,"8":8,"9":9,"10":10,"11":11,"12":12,"13":13,"14":14,"15":15,"16":16,"17":17,"18":18,"19":19,"20":20,"21":21},"event":"x"}}`,
	} {
		f.Add(uint8(i), []byte(body))
	}
	c := newFuzzClient(f)
	f.Fuzz(func(t *testing.T, which uint8, body []byte) {
		name := fuzzActions[int(which)%len(fuzzActions)]
		status, raw, ctype := c.post(t, name, body)
		if status >= 500 {
			t.Fatalf("POST /ui/actions/%s %q = %d %s", name, body, status, raw)
		}
		if !strings.HasPrefix(ctype, "application/json") || !json.Valid(raw) {
			t.Fatalf("POST /ui/actions/%s %q answered %q %q, want JSON", name, body, ctype, raw)
		}
	})
}

// fuzzClient is a browser-like client for fuzz targets: the harness takes a
// *testing.T, but a fuzz target's server has to be built once, on the
// *testing.F, and outlive every input.
type fuzzClient struct {
	srv     *server.Server
	cookies string
	csrf    string
}

func newFuzzClient(f *testing.F) *fuzzClient {
	f.Helper()
	cfg, err := config.Load(func(k string) string { return map[string]string{"GLIMPSE_ENVIRONMENT": config.Development}[k] })
	if err != nil {
		f.Fatal(err)
	}
	cfg.PasswordMemoryKiB, cfg.PasswordPasses = 1024, 1 // cheap argon2id: auth.NewHasherCosting
	logger := slog.New(slog.DiscardHandler)
	clock := engine.NewManualClock(start)
	a, err := app.Open(context.Background(), cfg, logger, clock, storetest.Open(f))
	if err != nil {
		f.Fatal(err)
	}
	srv, err := server.New(server.Deps{Config: cfg, Clock: clock, Logger: logger, Auth: a.Auth, Brands: a.Brands,
		Breach: a.Breach, Profiles: a.Profiles, Library: a.Library, Lessons: a.Lessons, Staff: a.Staff,
		Content: a.Content, Images: imageproxy.New(imageproxy.Config{Secret: []byte("test")}),
		Secret: a.Secret, Version: "test", Static: content.Static, Sealer: a.Sealer,
		Renderer: fstest.MapFS{"index.html": {Data: []byte(`<!doctype html><head></head>`)},
			"assets/app.js": {Data: []byte(`console.info("x")`)}},
		Ready: a.Store.Ping})
	if err != nil {
		f.Fatal(err)
	}
	c := &fuzzClient{srv: srv}
	// The page shell sets the CSRF cookie and carries the token, as for a browser.
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	req.Host = "127.0.0.1:8080"
	res, err := srv.App().Test(req, fiber.TestConfig{Timeout: time.Minute, FailOnTimeout: true})
	if err != nil {
		f.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	m := regexp.MustCompile(`<meta name="glimpse-csrf" content="([^"]+)">`).FindSubmatch(raw)
	if m == nil {
		f.Fatalf("no CSRF meta tag in %s", raw)
	}
	c.csrf = string(m[1])
	var parts []string
	for _, ck := range res.Cookies() {
		parts = append(parts, ck.Name+"="+ck.Value)
	}
	c.cookies = strings.Join(parts, "; ")
	return c
}

func (c *fuzzClient) post(t *testing.T, name string, body []byte) (status int, raw []byte, contentType string) {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/ui/actions/"+name, bytes.NewReader(body))
	req.Host = "127.0.0.1:8080"
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-SDUI-Version", "1")
	req.Header.Set("X-CSRF-Token", c.csrf)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	req.Header.Set("Cookie", c.cookies)
	res, err := c.srv.App().Test(req, fiber.TestConfig{Timeout: time.Minute, FailOnTimeout: true})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ = io.ReadAll(res.Body)
	return res.StatusCode, raw, res.Header.Get("Content-Type")
}
