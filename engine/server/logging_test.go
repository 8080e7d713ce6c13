package server_test

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"glimpse/engine/server"
)

// loggedRequest is what the access log writes of a request, less its id and
// duration.
type loggedRequest struct {
	Method, Path, Query string
	Status              int
}

// requestLines decodes the access log's lines from a JSON log.
func requestLines(t *testing.T, logs string) []loggedRequest {
	t.Helper()
	var out []loggedRequest
	for line := range strings.Lines(logs) {
		var l struct {
			Msg string `json:"msg"`
			loggedRequest
		}
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatalf("a log line is not JSON: %v\n%s", err, line)
		}
		if l.Msg == "request" {
			out = append(out, l.loggedRequest)
		}
	}
	return out
}

// TestLogRedactsLinkSecrets: the secrets links carry in their query (the
// cancel-by-email link's from, issue #20; the create-account link's id) are
// redacted in the access log, whether the browser asks for the page itself
// or the renderer asks for its screen (the page's URL inside ?path=), and
// the cancel action that spends the link logs nothing of it either.
func TestLogRedactsLinkSecrets(t *testing.T) {
	t.Parallel()
	const secret = "SECRET-7c1d"
	var logs syncBuffer
	h := newHarnessDeps(t, func(d *server.Deps) { d.Logger = slog.New(slog.NewJSONHandler(&logs, nil)) })
	h.bootPage()
	before := len(logs.String())

	h.do(httptest.NewRequest(http.MethodGet, "/unsubscription?from="+secret, nil))
	h.screen("/unsubscription?from=" + secret)
	h.screen("/access-recovery?id=" + secret + "&x=1")
	if res := h.actionAt("/unsubscription?from="+secret, "unsubscription.cancel", nil); res.status != http.StatusOK {
		t.Fatalf("unsubscription.cancel: %d %s", res.status, res.raw)
	}

	out := logs.String()[before:]
	if strings.Contains(out, secret) {
		t.Errorf("the log holds the secret:\n%s", out)
	}
	want := []loggedRequest{
		{Method: "GET", Path: "/unsubscription", Query: "from=redacted", Status: 200},
		{Method: "GET", Path: "/ui/screen", Query: "path=%2Funsubscription%3Ffrom%3Dredacted", Status: 200},
		{Method: "GET", Path: "/ui/screen", Query: "path=%2Faccess-recovery%3Fid%3Dredacted%26x%3D1", Status: 200},
		{Method: "POST", Path: "/ui/actions/unsubscription.cancel", Status: 200},
	}
	if diff := cmp.Diff(want, requestLines(t, out)); diff != "" {
		t.Errorf("request lines (-want +got):\n%s", diff)
	}
}
