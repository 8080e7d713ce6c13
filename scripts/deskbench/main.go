// Command deskbench times the support desk's search as an agent meets it:
// signed in to the studio of a running Glimpse (make run, or the real
// binary on a make seed-scale database), it asks for the desk's screen with
// each query the way the renderer does after "Find" (GET /ui/screen of
// /studio/support?q=…) and prints p50 and p99 per kind of query
// (docs/benchmarks.md §11).
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"
)

func main() {
	base := flag.String("base", "http://127.0.0.1:8080", "the running Glimpse")
	email := flag.String("email", "support@example.com", "a support or admin staff member")
	password := flag.String("password", "glimpse-support", "their password")
	rounds := flag.Int("rounds", 50, "requests per query")
	var queries queryList
	flag.Var(&queries, "q", "kind=query to time (repeatable), e.g. prefix=subscriber12 card=4242")
	flag.Parse()
	if len(queries) == 0 {
		fmt.Fprintln(os.Stderr, "deskbench: name at least one -q kind=query")
		os.Exit(2)
	}
	if err := run(*base, *email, *password, *rounds, queries); err != nil {
		fmt.Fprintln(os.Stderr, "deskbench:", err)
		os.Exit(1)
	}
}

type queryList []string

func (q *queryList) String() string     { return strings.Join(*q, ",") }
func (q *queryList) Set(v string) error { *q = append(*q, v); return nil }

func run(base, email, password string, rounds int, queries []string) error {
	jar, _ := cookiejar.New(nil)
	c := &client{base: base, http: &http.Client{Jar: jar, Timeout: time.Minute}}
	if err := c.boot(); err != nil {
		return err
	}
	body, err := c.action("/studio", "studio.sign_in", map[string]any{"email": email, "password": password})
	if err != nil {
		return fmt.Errorf("sign in: %w", err)
	}
	if !bytes.Contains(body, []byte("/studio")) {
		return fmt.Errorf("not signed in: %.200s", body)
	}
	fmt.Printf("%-10s %-28s %8s %8s %8s\n", "kind", "query", "p50 ms", "p99 ms", "matches")
	for _, kq := range queries {
		kind, q, ok := strings.Cut(kq, "=")
		if !ok {
			return fmt.Errorf("-q %q: want kind=query", kq)
		}
		path := "/studio/support?q=" + url.QueryEscape(q)
		var times []time.Duration
		var last []byte
		for range rounds {
			start := time.Now()
			last, err = c.screen(path)
			if err != nil {
				return err
			}
			times = append(times, time.Since(start))
		}
		fmt.Printf("%-10s %-28s %8.2f %8.2f %8d\n", kind, q, ms(pct(times, 50)), ms(pct(times, 99)), matches(last))
	}
	return nil
}

// matchLink is a listed match's way to its dossier (the JSON may escape
// the ampersand).
var matchLink = regexp.MustCompile(`/studio/support\?q=[^"]*?(&|\\u0026)email=`)

// matches counts the list of matches' items, or 1 when the one match's
// dossier opened at once.
func matches(screen []byte) int {
	if n := len(matchLink.FindAll(screen, -1)); n > 0 {
		return n
	}
	if bytes.Contains(screen, []byte(`"Charges"`)) {
		return 1
	}
	return 0
}

type client struct {
	base, csrf string
	http       *http.Client
}

var csrfMeta = regexp.MustCompile(`<meta name="glimpse-csrf" content="([^"]+)">`)

func (c *client) boot() error {
	req, _ := http.NewRequest(http.MethodGet, c.base+"/studio", nil)
	req.Header.Set("Accept", "text/html")
	body, err := c.do(req)
	if err != nil {
		return err
	}
	m := csrfMeta.FindSubmatch(body)
	if m == nil {
		return errors.New("no CSRF token in the page shell")
	}
	c.csrf = string(m[1])
	return nil
}

func (c *client) screen(path string) ([]byte, error) {
	req, _ := http.NewRequest(http.MethodGet, c.base+"/ui/screen?path="+url.QueryEscape(path), nil)
	req.Header.Set("X-SDUI-Version", "1")
	req.Header.Set("Accept", "application/json")
	body, err := c.do(req)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var answer struct {
		Screen json.RawMessage `json:"screen"`
	}
	if err := json.Unmarshal(body, &answer); err != nil || len(answer.Screen) == 0 {
		return nil, fmt.Errorf("%s: no screen: %.200s", path, body)
	}
	return body, nil
}

func (c *client) action(path, name string, values map[string]any) ([]byte, error) {
	raw, _ := json.Marshal(map[string]any{"values": values, "path": path})
	req, _ := http.NewRequest(http.MethodPost, c.base+"/ui/actions/"+name, bytes.NewReader(raw))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-SDUI-Version", "1")
	req.Header.Set("X-CSRF-Token", c.csrf)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	req.Header.Set("Origin", c.base)
	return c.do(req)
}

func (c *client) do(req *http.Request) ([]byte, error) {
	res, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, err
	}
	if tok := res.Header.Get("X-CSRF-Token"); tok != "" {
		c.csrf = tok
	}
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("status %d: %.300s", res.StatusCode, body)
	}
	return body, nil
}

func pct(d []time.Duration, p int) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
