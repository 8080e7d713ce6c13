// Command scalebench is `make scale-bench` (docs/benchmarks.md §7). It starts
// the real binary as README says (`GLIMPSE_DEMO=1 bin/glimpse serve`, info
// logging into a file) twice: on a database seeded with `glimpse seed-scale`
// at full size (-big, made beforehand: it takes long) and on a small one it
// seeds itself (the demo data plus -small subscribers, so that both have
// accounts of the same shape to go through). Then, in interleaved rounds, it
// walks the same journeys on both, each step as a browser sends it, one
// request at a time, and prints p50 and p99 per journey for both and the
// ratio big/small.
//
// Every journey takes an account not used before in the run, so it meets the
// server as a subscriber coming back does: nothing of theirs in the
// short-lived caches.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"glimpse/engine/app"
	"glimpse/engine/privacy"
	"glimpse/screens"
	"glimpse/scripts/sduiclient"
	"glimpse/scripts/serverproc"
)

func main() {
	bin := flag.String("bin", "bin/glimpse", "the glimpse binary")
	seeder := flag.String("seeder", "", "the binary that seeds and sizes the databases (default: -bin); lets an older -bin be measured")
	big := flag.String("big", "", "data directory seeded by `glimpse seed-scale` (required)")
	small := flag.Int("small", 1000, "subscribers seeded into the small database")
	rounds := flag.Int("rounds", 3, "interleaved rounds")
	per := flag.Int("per", 30, "accounts per journey per round")
	settle := flag.Duration("settle", 0, "wait this long after both servers are ready, before the journeys (their first background passes)")
	flag.Parse()
	if *big == "" {
		fmt.Fprintln(os.Stderr, "scalebench: -big DIR is required (seed it with: GLIMPSE_ENVIRONMENT=development GLIMPSE_DATA_DIR=DIR bin/glimpse seed-scale)")
		os.Exit(2)
	}
	if *seeder == "" {
		*seeder = *bin
	}
	if err := run(*bin, *seeder, *big, *small, *rounds, *per, *settle); err != nil {
		fmt.Fprintln(os.Stderr, "scalebench:", err)
		os.Exit(1)
	}
}

// journeys, in the order a round walks them.
var journeys = []string{"sign-in", "dashboard", "My Plan", "Analytics", "cancel attempt", "export", "delete account", "checkout"}

type target struct {
	name        string
	base        string
	subscribers int // seeded accounts: subscriber0 … subscriber(n-1)
	used        map[int]bool
	lat         map[string][]time.Duration
	proc        *serverproc.Process
}

func run(bin, seeder, bigDir string, smallN, rounds, per int, settle time.Duration) error {
	// Each journey of the signed-in ones takes an active account no earlier
	// one used (the warm-up's two included); the small database must have
	// them, or picking one would never end.
	if need, active := rounds*per+2, activeAmong(smallN); need > active {
		return fmt.Errorf("-rounds %d -per %d take %d accounts; the small database's %d subscribers have %d renewing: raise -small",
			rounds, per, need, smallN, active)
	}
	tmp, err := os.MkdirTemp("", "glimpse-scalebench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	smallDir := filepath.Join(tmp, "small")
	seed := exec.Command(seeder, "seed-scale", "-n", strconv.Itoa(smallN))
	seed.Env = append(os.Environ(), "GLIMPSE_DATA_DIR="+smallDir, "GLIMPSE_LOG_LEVEL=warn", "GLIMPSE_ENVIRONMENT=development")
	if out, err := seed.CombinedOutput(); err != nil {
		return fmt.Errorf("seed the small database: %w\n%s", err, out)
	}
	bigN, err := seededSize(seeder, bigDir)
	if err != nil {
		return err
	}

	var targets []*target
	for _, t := range []struct {
		name string
		dir  string
		n    int
	}{{"small", smallDir, smallN}, {"big", bigDir, bigN}} {
		addr := serverproc.FreeAddr()
		// A load balancer in front, as in production: each journey comes
		// from a client address of its own, so the per-address limits
		// (sign-in, checkout) count clients, not the benchmark.
		env := []string{"GLIMPSE_ADDR=" + addr, "GLIMPSE_DATA_DIR=" + t.dir, "GLIMPSE_DEMO=1",
			"GLIMPSE_TRUSTED_PROXIES=127.0.0.1/32", "GLIMPSE_ENVIRONMENT=development"}
		p, err := serverproc.Start(bin, filepath.Join(tmp, t.name+".log"), env, "serve")
		if err != nil {
			return err
		}
		defer p.Stop(30 * time.Second)
		// The big database's first start files what it must; give it time.
		if err := serverproc.WaitReady("http://"+addr+"/readyz", 10*time.Minute, 200*time.Millisecond); err != nil {
			return fmt.Errorf("%s: %w (log in %s)", t.name, err, p.Log)
		}
		targets = append(targets, &target{name: t.name, base: "http://" + addr, subscribers: t.n,
			used: map[int]bool{}, lat: map[string][]time.Duration{}, proc: p})
	}
	// A server starts its background passes at once (renewals, the profile
	// refresh, the sweeper), and over a large base the first of them take
	// minutes; -settle times the journeys after them, as a subscriber meets
	// a server that has been up a while.
	time.Sleep(settle)
	// One untimed walk each, so both have their connections, compiled
	// templates and first content loads behind them.
	for _, t := range targets {
		if err := t.round(2); err != nil {
			return fmt.Errorf("%s warm-up: %w", t.name, err)
		}
		t.lat = map[string][]time.Duration{}
	}
	cpuBefore := make([]time.Duration, len(targets))
	for i, t := range targets {
		cpuBefore[i] = t.proc.CPU()
	}
	roundsStart := time.Now()
	for r := 0; r < rounds; r++ {
		for _, t := range targets {
			if err := t.round(per); err != nil {
				return fmt.Errorf("%s round %d: %w", t.name, r+1, err)
			}
		}
	}
	roundsTook := time.Since(roundsStart)
	small, big := targets[0], targets[1]
	fmt.Printf("scale-bench: real %s serve (GLIMPSE_DEMO=1, info logging to a file), one request at a time,\n", bin)
	fmt.Printf("  %d interleaved rounds of %d accounts per journey; small = demo data + %d subscribers, big = %d subscribers\n",
		rounds, per, small.subscribers, big.subscribers)
	fmt.Printf("  %-15s %8s %8s %8s %8s %8s %8s %8s\n", "journey", "n", "small p50", "small p99", "big p50", "big p99", "p50 ×", "p99 ×")
	worst := 0.0
	for _, j := range journeys {
		s, b := small.lat[j], big.lat[j]
		sp50, sp99, bp50, bp99 := pct(s, 50), pct(s, 99), pct(b, 50), pct(b, 99)
		ratio := float64(bp99) / float64(sp99)
		worst = max(worst, ratio)
		fmt.Printf("  %-15s %8d %8.1f %9.1f %8.1f %8.1f %7.2f %7.2f\n", j, len(b), ms(sp50), ms(sp99), ms(bp50), ms(bp99),
			float64(bp50)/float64(sp50), ratio)
	}
	fmt.Printf("  worst p99 ratio: %.2f (aim ≤ 1.30); times in ms\n", worst)
	// What each server spent while the journeys ran, its background passes
	// included: over a large base, the passes' share shows here.
	fmt.Printf("  server CPU over the %s of timed rounds: small %.1f s, big %.1f s (settled %s first)\n",
		roundsTook.Round(time.Second), (small.proc.CPU() - cpuBefore[0]).Seconds(), (big.proc.CPU() - cpuBefore[1]).Seconds(), settle)
	return nil
}

// seededSize asks the database how many subscribers seed-scale put in it,
// through the binary's own reading of its settings.
func seededSize(bin, dir string) (int, error) {
	cmd := exec.Command(bin, "seed-scale", "-size")
	cmd.Env = append(os.Environ(), "GLIMPSE_DATA_DIR="+dir, "GLIMPSE_LOG_LEVEL=warn", "GLIMPSE_ENVIRONMENT=development")
	out, err := cmd.Output()
	if err != nil {
		return 0, fmt.Errorf("read the big database's size: %w", err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%s holds no scale seed (%q)", dir, out)
	}
	return n, nil
}

// round walks every journey with per new accounts.
func (t *target) round(per int) error {
	users := make([]*browser, per)
	for i := range users {
		users[i] = t.newBrowser()
		if err := users[i].boot(); err != nil {
			return err
		}
	}
	signedInAt := time.Now()
	steps := []struct {
		name string
		do   func(b *browser) error
	}{
		// Signing in reads the account, checks the password (argon2id)
		// and loads the subscriptions into the caches.
		{"sign-in", func(b *browser) error {
			body, err := b.actionBody("/sign-in", "session.sign_in", map[string]any{"email": b.email, "password": app.ScalePassword})
			if err == nil && !bytes.Contains(body, []byte(`"/dashboard"`)) {
				err = fmt.Errorf("%s was not signed in: %.200s", b.email, body)
			}
			return err
		}},
		{"dashboard", func(b *browser) error { return b.screen("/dashboard") }},
	}
	for _, s := range steps {
		for _, b := range users {
			if err := t.timed(s.name, func() error { return s.do(b) }); err != nil {
				return err
			}
		}
	}
	// My Plan is drawn with the dashboard's page (an overlay of it): what a
	// subscriber coming back to it later waits for, once this instance's
	// short-lived caches (5 s) have let their session and subscriptions go.
	time.Sleep(time.Until(signedInAt.Add(6 * time.Second)))
	later := []struct {
		name string
		do   func(b *browser) error
	}{
		{"My Plan", func(b *browser) error { return b.screen("/dashboard") }},
		{"Analytics", func(b *browser) error { return b.screen("/dashboard/analytics") }},
		// Cancel from My Plan: the start makes the attempt and answers
		// with its first step, which the browser then shows.
		{"cancel attempt", func(b *browser) error {
			if err := b.screen("/dashboard/unsubscribe?entry=my_plan"); err != nil {
				return err
			}
			if b.redirect == "" {
				return errors.New("the cancel flow's start sent no first step")
			}
			return b.screen(b.redirect)
		}},
	}
	for _, s := range later {
		for _, b := range users {
			if err := t.timed(s.name, func() error { return s.do(b) }); err != nil {
				return err
			}
		}
	}
	// Their data, then their account: the export from its request to the
	// download the page offers (the export is built by the instance's
	// export pass, so this waits for it), and the deletion, password
	// checked (argon2id) and every store's erasure done before it answers.
	leaving := []struct {
		name string
		do   func(b *browser) error
	}{
		{"export", func(b *browser) error {
			if _, err := b.actionBody(screens.PathPrivacyData, screens.ActionRequestExport, map[string]any{}); err != nil {
				return err
			}
			for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
				body, err := b.actionBody(screens.PathPrivacyData, screens.ActionDownloadExport, map[string]any{})
				if err != nil {
					return err
				}
				if bytes.Contains(body, []byte(privacy.DownloadPath+"?key=")) {
					return nil
				}
				if time.Now().After(deadline) {
					return fmt.Errorf("%s: no export to download after a minute: %.200s", b.email, body)
				}
			}
		}},
		{"delete account", func(b *browser) error {
			body, err := b.actionBody(screens.PathDeleteAccount, screens.ActionDeleteAccount, map[string]any{"password": app.ScalePassword})
			if err == nil && !bytes.Contains(body, []byte(screens.PathAccountDeleted)) {
				err = fmt.Errorf("%s was not deleted: %.200s", b.email, body)
			}
			return err
		}},
	}
	for _, s := range leaving {
		for _, b := range users {
			if err := t.timed(s.name, func() error { return s.do(b) }); err != nil {
				return err
			}
		}
	}
	// A visitor buying the weekly plan: the checkout sends them to the
	// sandbox provider's hosted page, where they pay with its paying card
	// and come back to the success page (timed to its answer).
	for range per {
		v := t.newVisitor()
		if err := v.boot(); err != nil {
			return err
		}
		err := t.timed("checkout", func() error {
			if err := v.screen("/checkout"); err != nil {
				return err
			}
			effects, err := v.actionBody("/checkout", "checkout.pay", map[string]any{"plan": "glimpse_weekly_trial",
				"email": "buyer-" + randomHex() + "@scale.glimpse.test", "/checkoutKey": randomHex()})
			if err != nil {
				return err
			}
			page := hostedPage.Find(effects)
			if page == nil {
				return fmt.Errorf("checkout.pay sent no hosted page: %.300s", effects)
			}
			return v.payOnPage(string(page))
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func (t *target) timed(journey string, f func() error) error {
	t0 := time.Now()
	if err := f(); err != nil {
		return fmt.Errorf("%s: %w", journey, err)
	}
	t.lat[journey] = append(t.lat[journey], time.Since(t0))
	return nil
}

// newBrowser is a new browser from a client address of its own, signed in
// as a seeded account no earlier journey of the run used, whose plan renews
// (a canceled one ends with its period, and a database seeded days ago has
// ended many).
func (t *target) newBrowser() *browser {
	i := rand.IntN(t.subscribers)
	for t.used[i] || !app.ScaleRenews(i) {
		i = rand.IntN(t.subscribers)
	}
	t.used[i] = true
	b := t.newVisitor()
	b.email = app.ScaleEmail(i)
	return b
}

// newVisitor is a browser with no account, from a client address of its
// own.
func (t *target) newVisitor() *browser {
	c := sduiclient.New(t.base)
	c.ForwardedFor = net.IPv4(10, byte(rand.IntN(256)), byte(rand.IntN(256)), byte(1+rand.IntN(254))).String()
	return &browser{Client: c}
}

// activeAmong counts the active subscribers among a seed of n.
func activeAmong(n int) int {
	active := 0
	for i := range n {
		if app.ScaleRenews(i) {
			active++
		}
	}
	return active
}

// browser is one person's browser (sduiclient), the account it signs in
// to, and where the last screen sent it on, if anywhere.
type browser struct {
	*sduiclient.Client
	email    string
	redirect string
}

func (b *browser) boot() error { return b.Boot("/") }

func (b *browser) screen(path string) error {
	answer, body, err := b.Screen(path)
	if err != nil {
		return err
	}
	b.redirect = ""
	for _, e := range answer.Effects {
		if e.Type == "replace" || e.Type == "navigate" {
			b.redirect = e.To
		}
	}
	if len(answer.Screen) == 0 && b.redirect == "" {
		return fmt.Errorf("%s: neither a screen nor a redirect: %.200s", path, body)
	}
	if b.redirect == "/sign-in" {
		return fmt.Errorf("%s: sent to sign in", path)
	}
	return nil
}

// hostedPage finds the sandbox provider's page in an action's effects.
var hostedPage = regexp.MustCompile(`/sandbox-pay/[A-Za-z0-9_-]+`)

// payOnPage submits the sandbox's hosted page with its paying card, as its
// form posts it, following its redirect to the success page.
func (b *browser) payOnPage(page string) error {
	form := url.Values{"step": {"card"}, "number": {"4242424242424242"}, "expiry": {"12/30"}, "cvc": {"123"}}
	req, _ := http.NewRequest(http.MethodPost, b.Base+page, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	req.Header.Set("Origin", b.Base)
	if _, err := b.Do(req); err != nil {
		return fmt.Errorf("the hosted page: %w", err)
	}
	return nil
}

func (b *browser) actionBody(path, name string, values map[string]any) ([]byte, error) {
	return b.Action(path, name, values)
}

func randomHex() string { return strconv.FormatUint(rand.Uint64(), 16) }

func pct(d []time.Duration, p int) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
