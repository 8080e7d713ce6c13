package sentry

import (
	"errors"
	"testing"

	sentrygo "github.com/getsentry/sentry-go"
	"github.com/google/go-cmp/cmp"
)

// TestScrubEvent: what leaves the process of a request has no cookies, no
// body, no credential or CSRF header, and its query, in the URL and on its
// own, redacted as the access log redacts it (engine/redact), the cancel
// link's from (issue #20) and a page's URL inside ?path= included.
func TestScrubEvent(t *testing.T) {
	t.Parallel()
	e := &sentrygo.Event{Request: &sentrygo.Request{
		URL:         "https://glimpse.test/unsubscription?from=SECRET&page=2",
		Method:      "GET",
		QueryString: "path=%2Funsubscription%3Ffrom%3DSECRET&reset=SECRET&id=SECRET",
		Cookies:     "glimpse_session=SECRET",
		Data:        `{"password":"SECRET"}`,
		Headers: map[string]string{"Cookie": "glimpse_session=SECRET", "Authorization": "Bearer SECRET",
			"X-CSRF-Token": "SECRET", "X-Refresh-Token": "SECRET", "User-Agent": "test"},
	}}
	want := &sentrygo.Request{
		URL:         "https://glimpse.test/unsubscription?from=redacted&page=2",
		Method:      "GET",
		QueryString: "id=redacted&path=%2Funsubscription%3Ffrom%3Dredacted&reset=redacted",
		Headers:     map[string]string{"User-Agent": "test"},
	}
	if diff := cmp.Diff(want, scrubEvent(e, nil).Request); diff != "" {
		t.Errorf("scrubbed request (-want +got):\n%s", diff)
	}
	if got := scrubEvent(&sentrygo.Event{}, nil); got.Request != nil {
		t.Errorf("an event without a request gained one: %+v", got.Request)
	}
}

func TestNew(t *testing.T) {
	t.Parallel()
	if _, err := New(Options{}); !errors.Is(err, ErrOff) {
		t.Errorf("without a DSN: %v, want ErrOff", err)
	}
	if _, err := New(Options{DSN: "not a dsn"}); err == nil || errors.Is(err, ErrOff) {
		t.Errorf("a malformed DSN: %v, want an error", err)
	}
	r, err := New(Options{DSN: "https://key@sentry.glimpse.test/1", Version: "1.2.3"})
	if err != nil {
		t.Fatal(err)
	}
	want := `<meta name="glimpse-sentry" content="{&#34;dsn&#34;:&#34;https://key@sentry.glimpse.test/1&#34;,` +
		`&#34;environment&#34;:&#34;production&#34;,&#34;release&#34;:&#34;glimpse@1.2.3&#34;,` +
		`&#34;tracesSampleRate&#34;:0.1,&#34;tunnel&#34;:&#34;/errors/envelope&#34;}">`
	if diff := cmp.Diff(want, r.Meta()); diff != "" {
		t.Errorf("Meta (-want +got):\n%s", diff)
	}
}
