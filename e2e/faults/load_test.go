//go:build faults

package faults

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sync"
	"testing"
	"time"
)

// TestLoadWithSignInFlood drives the real binary at saturation on loopback
// with a mix of screens, actions and sign-ins for FAULT_SECONDS (default 60):
// the first quarter without, the rest with a flood of wrong-password sign-ins
// from many client addresses (loopback is configured as a trusted proxy, so
// X-Forwarded-For spreads them over the per-IP limits, the hard case for the
// password hasher). It fails on any 5xx or transport error, on resident
// memory that keeps growing, and on a screen p99 during the flood above
// twice the p99 without it.
func TestLoadWithSignInFlood(t *testing.T) {
	total := seconds("FAULT_SECONDS", 60)
	baseline := total / 4
	a := startApp(t, "app", t.TempDir(), "GLIMPSE_TRUSTED_PROXIES=127.0.0.1/32")

	screenPaths := []string{"/dashboard", "/dashboard/analytics", "/dashboard/news"}
	const screenWorkers, mixedWorkers, floodWorkers = 6, 2, 8

	var signedIn []*browser
	for range screenWorkers + mixedWorkers {
		b := newBrowser(a.base, 30*time.Second)
		if _, ok, err := b.signIn(demoEmail, demoPassword); err != nil || !ok {
			t.Fatalf("sign in before the load: ok=%v err=%v", ok, err)
		}
		signedIn = append(signedIn, b)
	}

	var (
		before, during latencies // screen latencies without and with the flood
		answers        statuses
		flood          statuses
		flooding       = make(chan struct{})
		rss            []int
	)
	ctx, cancel := context.WithTimeout(context.Background(), total)
	defer cancel()
	var wg sync.WaitGroup
	isFlooding := func() bool {
		select {
		case <-flooding:
			return true
		default:
			return false
		}
	}
	record := func(r reply, err error) {
		if err != nil {
			answers.add(0)
			return
		}
		answers.add(r.status)
	}
	// Screens: signed-in subscribers moving between screens.
	for i := range screenWorkers {
		b := signedIn[i]
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; ctx.Err() == nil; n++ {
				r, err := b.screen(screenPaths[n%len(screenPaths)])
				if ctx.Err() != nil {
					return
				}
				record(r, err)
				if err == nil && r.status == http.StatusOK {
					if isFlooding() {
						during.add(r.took)
					} else {
						before.add(r.took)
					}
				}
			}
		}()
	}
	// Mixed: actions, sign-out and sign-in again, as people do.
	for i := range mixedWorkers {
		b := signedIn[screenWorkers+i]
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; ctx.Err() == nil; n++ {
				var r reply
				var err error
				switch n % 4 {
				case 0:
					r, err = b.action("event.track", "/dashboard", map[string]any{"event": "load_test"})
				case 1:
					r, err = b.screen("/dashboard/articles/secret-admirers")
				case 2:
					r, err = b.action("session.sign_out", "/dashboard", map[string]any{})
				case 3:
					r, _, err = b.signIn(demoEmail, demoPassword)
				}
				if ctx.Err() != nil {
					return
				}
				record(r, err)
			}
		}()
	}
	// Memory, once a second.
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				rss = append(rss, a.rssKiB())
			}
		}
	}()

	time.Sleep(baseline)
	close(flooding)
	for w := range floodWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b := newBrowser(a.base, 30*time.Second)
			for n := 0; ctx.Err() == nil; n++ {
				b.forwardedFor = fmt.Sprintf("10.%d.%d.%d", w, rand.IntN(256), rand.IntN(256))
				email := fmt.Sprintf("guess%d-%d@example.com", w, rand.IntN(50))
				if n%5 == 0 {
					email = demoEmail // people's real accounts are the ones guessed
				}
				r, _, err := b.signIn(email, fmt.Sprintf("wrong-%d", n))
				if ctx.Err() != nil {
					return
				}
				if err != nil {
					flood.add(0)
					continue
				}
				flood.add(r.status)
			}
		}()
	}
	wg.Wait()

	p99Before, p99During := before.percentile(0.99), during.percentile(0.99)
	t.Logf("screens without flood: %d, p50 %v, p99 %v", before.count(), before.percentile(0.5), p99Before)
	t.Logf("screens during flood:  %d, p50 %v, p99 %v (%.2f× of without)", during.count(),
		during.percentile(0.5), p99During, float64(p99During)/float64(max(p99Before, 1)))
	t.Logf("subscriber answers: %s", &answers)
	t.Logf("flood answers: %s", &flood)
	t.Logf("RSS KiB each second: %v", rss)

	if n := answers.serverErrors() + flood.serverErrors(); n > 0 {
		t.Errorf("%d answers were 5xx or failed", n)
	}
	if before.count() == 0 || during.count() == 0 {
		t.Fatal("no screens measured")
	}
	if p99During > 2*p99Before {
		t.Errorf("screen p99 during the flood %v > 2× without it (%v)", p99During, p99Before)
	}
	// Flat: the last third of the run holds no more than the middle third
	// plus slack for the collector's rhythm.
	if len(rss) >= 9 {
		third := len(rss) / 3
		peak := func(s []int) int {
			m := 0
			for _, v := range s {
				m = max(m, v)
			}
			return m
		}
		mid, last := peak(rss[third:2*third]), peak(rss[2*third:])
		t.Logf("RSS peak middle third %d MiB, last third %d MiB", mid/1024, last/1024)
		if last > mid+mid/5+16*1024 {
			t.Errorf("RSS kept growing: %d MiB in the middle third, %d MiB in the last", mid/1024, last/1024)
		}
	}
}
