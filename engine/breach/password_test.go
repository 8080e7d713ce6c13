package breach_test

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"glimpse/engine"
	"glimpse/engine/breach"
)

// "password" hashes to 5BAA6 1E4C9B93F3F0682250B6CF8331B7EE68FD8.
const (
	passwordPrefix = "5BAA6"
	passwordSuffix = "1E4C9B93F3F0682250B6CF8331B7EE68FD8"
)

func TestRangeCount(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		body    string
		suffix  string
		want    int
		wantErr bool
	}{
		{name: "found, CRLF", body: "0018A45C4D1DEF81644B54AB7F969B88D65:1\r\n" + passwordSuffix + ":9545824\r\n00D4F6E8FA6EECAD2A3AA415EEC418D38EC:2\r\n", suffix: passwordSuffix, want: 9545824},
		{name: "found, LF, no final newline", body: "0018A45C4D1DEF81644B54AB7F969B88D65:1\n" + passwordSuffix + ":3", suffix: passwordSuffix, want: 3},
		{name: "case-insensitive match", body: strings.ToLower(passwordSuffix) + ":12\r\n", suffix: passwordSuffix, want: 12},
		{name: "absent", body: "0018A45C4D1DEF81644B54AB7F969B88D65:1\r\n", suffix: passwordSuffix, want: 0},
		{name: "padding lines ignored", body: "0018A45C4D1DEF81644B54AB7F969B88D65:0\r\n00D4F6E8FA6EECAD2A3AA415EEC418D38EC:0\r\n", suffix: "0018A45C4D1DEF81644B54AB7F969B88D65", want: 0},
		{name: "padding line for the suffix itself", body: passwordSuffix + ":0\r\n", suffix: passwordSuffix, want: 0},
		{name: "blank lines skipped", body: "\r\n" + passwordSuffix + ":5\r\n\r\n", suffix: passwordSuffix, want: 5},
		{name: "empty body", body: "", suffix: passwordSuffix, want: 0},
		{name: "no colon", body: passwordSuffix + "\r\n", suffix: passwordSuffix, wantErr: true},
		{name: "short suffix", body: "ABC:1\r\n", suffix: passwordSuffix, wantErr: true},
		{name: "not hex", body: "ZZZZZ45C4D1DEF81644B54AB7F969B88D65:1\r\n", suffix: passwordSuffix, wantErr: true},
		{name: "bad count", body: passwordSuffix + ":many\r\n", suffix: passwordSuffix, wantErr: true},
		{name: "negative count", body: passwordSuffix + ":-1\r\n", suffix: passwordSuffix, wantErr: true},
		{name: "HTML error page", body: "<html><body>oops</body></html>", suffix: passwordSuffix, wantErr: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := breach.RangeCount(strings.NewReader(tc.body), tc.suffix)
			if (err != nil) != tc.wantErr || got != tc.want {
				t.Errorf("RangeCount = %d, %v; want %d, error %v", got, err, tc.want, tc.wantErr)
			}
		})
	}
}

// FuzzRangeCount checks the parser never panics, never reports a padding
// line as a hit and finds a well-formed line wherever it is.
func FuzzRangeCount(f *testing.F) {
	f.Add("0018A45C4D1DEF81644B54AB7F969B88D65:1\r\n00D4F6E8FA6EECAD2A3AA415EEC418D38EC:0\r\n", 7)
	f.Add("\n\n:\r\n", 1)
	f.Add(passwordSuffix+":0", 0)
	f.Fuzz(func(t *testing.T, body string, count int) {
		if _, err := breach.RangeCount(strings.NewReader(body), passwordSuffix); err != nil {
			return
		}
		if count < 1 {
			return
		}
		// The body parsed, so adding a well-formed line for the suffix must
		// be found (a later line for the same suffix wins, as none repeats
		// in a real range).
		withHit := body + "\r\n" + strings.ToLower(passwordSuffix) + fmt.Sprintf(":%d\r\n", count)
		got, err := breach.RangeCount(strings.NewReader(withHit), passwordSuffix)
		if err != nil || got != count {
			t.Fatalf("RangeCount(%q) = %d, %v; want %d", withHit, got, err, count)
		}
		withPadding := body + "\r\n" + passwordSuffix + ":0\r\n"
		if got, err := breach.RangeCount(strings.NewReader(withPadding), passwordSuffix); err != nil || got != mustCount(t, body) {
			t.Fatalf("a padding line changed the count: %d, %v", got, err)
		}
	})
}

func mustCount(t *testing.T, body string) int {
	t.Helper()
	n, err := breach.RangeCount(strings.NewReader(body), passwordSuffix)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestRangeClient(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var got []*http.Request
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Clone(context.Background()))
		mu.Unlock()
		if r.URL.Path != "/range/"+passwordPrefix {
			// Every prefix exists in the real API; an unknown one here
			// just has padding.
			fmt.Fprint(w, "0018A45C4D1DEF81644B54AB7F969B88D65:0\r\n")
			return
		}
		fmt.Fprint(w, "0018A45C4D1DEF81644B54AB7F969B88D65:0\r\n"+passwordSuffix+":9545824\r\n00D4F6E8FA6EECAD2A3AA415EEC418D38EC:4\r\n")
	}))
	t.Cleanup(srv.Close)
	client := breach.NewRangeClient(breach.RangeConfig{BaseURL: srv.URL, UserAgent: testAgent})

	cases := []struct {
		password string
		want     int
	}{
		{"password", 9545824},
		{"a long and unusual passphrase nobody has used", 0},
	}
	for _, tc := range cases {
		n, err := client.Breached(context.Background(), tc.password)
		if err != nil || n != tc.want {
			t.Errorf("Breached(%q) = %d, %v; want %d", tc.password, n, err, tc.want)
		}
	}

	mu.Lock()
	defer mu.Unlock()
	for i, r := range got {
		sum := sha1.Sum([]byte(cases[i].password))
		full := strings.ToUpper(hex.EncodeToString(sum[:]))
		gotReq := map[string]string{"path": r.URL.Path, "padding": r.Header.Get("Add-Padding"), "agent": r.Header.Get("User-Agent")}
		wantReq := map[string]string{"path": "/range/" + full[:5], "padding": "true", "agent": testAgent}
		if diff := cmp.Diff(wantReq, gotReq); diff != "" {
			t.Errorf("request %d (-want +got):\n%s", i, diff)
		}
		// Only the prefix may leave: not the rest of the hash, not the password.
		var dump bytes.Buffer
		_ = r.Header.Write(&dump)
		dump.WriteString(r.URL.String())
		if s := strings.ToUpper(dump.String()); strings.Contains(s, full[5:]) || strings.Contains(dump.String(), cases[i].password) {
			t.Errorf("request %d carries more than the prefix: %s", i, dump.String())
		}
	}
}

func TestRangeClientFailures(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		handler http.HandlerFunc
	}{
		{"503", respond(503, nil, "")},
		{"garbage", respond(200, nil, "<html>maintenance</html>")},
		{"timeout", func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(tc.handler)
			t.Cleanup(srv.Close)
			client := breach.NewRangeClient(breach.RangeConfig{BaseURL: srv.URL, Timeout: 200 * time.Millisecond})
			if _, err := client.Breached(context.Background(), "password"); !errors.Is(err, breach.ErrUnavailable) {
				t.Errorf("error %v, want ErrUnavailable", err)
			}
		})
	}
}

func TestLocalRangeCheckerFixtures(t *testing.T) {
	t.Parallel()
	checker := breach.NewLocalRangeChecker(os.DirFS("../../fixtures"))
	for _, pw := range []string{"password", "123456", "12345678", "qwerty", "111111", "iloveyou", "letmein", "instagram", "password1", "abc123"} {
		n, err := checker.Breached(context.Background(), pw)
		if err != nil || n <= 0 {
			t.Errorf("Breached(%q) = %d, %v; want a positive count", pw, n, err)
		}
	}
	// Neither hashes into a prefix the sample has a file for: 0, not an error.
	for _, pw := range []string{"correct horse battery staple glimpse", "Password"} {
		n, err := checker.Breached(context.Background(), pw)
		if err != nil || n != 0 {
			t.Errorf("Breached(%q) = %d, %v; want 0", pw, n, err)
		}
	}
}

// failingChecker fails every lookup.
type failingChecker struct{}

func (failingChecker) Breached(context.Context, string) (int, error) {
	return 0, fmt.Errorf("pwned passwords: %w: answered 503", breach.ErrUnavailable)
}

func TestCheckNewPassword(t *testing.T) {
	t.Parallel()
	local := breach.NewLocalRangeChecker(os.DirFS("../../fixtures"))
	cases := []struct {
		name     string
		checker  breach.PasswordChecker
		password string
		want     error
	}{
		{"breached password refused", local, "iloveyou", &engine.Error{Code: engine.CodeInvalid, Fields: map[string]string{"password": breach.MessagePasswordBreached}}},
		{"unknown password allowed", local, "glimpse-correct-horse-7", nil},
		{"lookup failure allowed", failingChecker{}, "iloveyou", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var logs bytes.Buffer
			logger := slog.New(slog.NewTextHandler(&logs, nil))
			got := breach.CheckNewPassword(context.Background(), tc.checker, tc.password, logger)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if strings.Contains(logs.String(), tc.password) {
				t.Errorf("the log holds the password: %s", logs.String())
			}
		})
	}
}
