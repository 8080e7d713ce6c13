// Command deskbench times the support desk's search as an agent meets it:
// signed in to the studio of a running Glimpse (make run, or the real
// binary on a make seed-scale database), it asks for the desk's screen with
// each query the way the renderer does after "Find" (GET /ui/screen of
// /studio/support?q=…) and prints p50 and p99 per kind of query
// (docs/benchmarks.md §11).
package main

import (
	"bytes"
	"flag"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"glimpse/scripts/sduiclient"
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
	c := sduiclient.New(base)
	if err := c.Boot("/studio"); err != nil {
		return err
	}
	body, err := c.Action("/studio", "studio.sign_in", map[string]any{"email": email, "password": password})
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
			answer, raw, err := c.Screen(path)
			if err != nil {
				return err
			}
			if len(answer.Screen) == 0 {
				return fmt.Errorf("%s: no screen: %.200s", path, raw)
			}
			times = append(times, time.Since(start))
			last = raw
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

func pct(d []time.Duration, p int) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
