//go:build load

package server_test

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gofiber/fiber/v3"
	"github.com/valyala/fasthttp"
	"go.mongodb.org/mongo-driver/v2/event"

	"glimpse/engine"
	"glimpse/engine/app"
	"glimpse/engine/config"
	"glimpse/engine/store"
)

// TestLoad compares GET /ui/screen?path=/dashboard, signed in, with a bare
// Fiber endpoint answering 1 KB of JSON, both on loopback under 64
// connections in interleaved rounds, and counts database round trips during
// the screen rounds, all in process (build tag load: `go test -tags load
// -run TestLoad -v ./engine/server/`). `make load` (and `make bench`)
// measure the real binary instead, with a browser's Accept-Encoding
// (scripts/bench).
func TestLoad(t *testing.T) {
	const (
		conns  = 64
		rounds = 3
		round  = 4 * time.Second
	)
	ctx := context.Background()
	var commands atomic.Int64
	monitor := &event.CommandMonitor{Started: func(context.Context, *event.CommandStartedEvent) { commands.Add(1) }}
	st, err := store.Open(ctx, store.Config{DataDir: t.TempDir(), Database: "load", Monitor: monitor}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close(ctx)
	cfg, err := config.Load(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	cfg.Demo = true
	a, err := app.Open(ctx, cfg, slog.New(slog.DiscardHandler), engine.SystemClock{}, st)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := a.Server("load", false)
	if err != nil {
		t.Fatal(err)
	}
	token, err := a.Auth.SignIn(ctx, app.DemoEmail, app.DemoPassword, "127.0.0.1", "glimpse.web")
	if err != nil {
		t.Fatal(err)
	}
	appAddr := serve(t, srv.App())

	payload := map[string]any{"items": strings.Repeat("x", 1000)}
	bare := fiber.New()
	bare.Get("/bare", func(c fiber.Ctx) error { return c.JSON(payload) })
	bareAddr := serve(t, bare)

	screenReq := func(req *fasthttp.Request) {
		req.SetRequestURI("http://" + appAddr + "/ui/screen?path=%2Fdashboard")
		req.Header.SetCookie("glimpse_session", token)
		req.Header.Set("X-SDUI-Version", "1")
	}
	bareReq := func(req *fasthttp.Request) { req.SetRequestURI("http://" + bareAddr + "/bare") }
	articleReq := func(req *fasthttp.Request) {
		req.SetRequestURI("http://" + appAddr + "/ui/screen?path=%2Fdashboard%2Farticles%2Fsecret-admirers")
		req.Header.SetCookie("glimpse_session", token)
		req.Header.Set("X-SDUI-Version", "1")
	}

	// Warm both (caches, connections) before measuring.
	drive(appAddr, conns, time.Second, screenReq)
	drive(bareAddr, conns, time.Second, bareReq)

	drive(appAddr, conns, time.Second, articleReq)
	var bareStats, screenStats, articleStats []stats
	var screenRequests, screenCommands int64
	for i := 0; i < rounds; i++ {
		bareStats = append(bareStats, drive(bareAddr, conns, round, bareReq))
		before := commands.Load()
		s := drive(appAddr, conns, round, screenReq)
		screenCommands += commands.Load() - before
		screenRequests += s.requests
		screenStats = append(screenStats, s)
		articleStats = append(articleStats, drive(appAddr, conns, round, articleReq))
	}
	b, s, art := median(bareStats), median(screenStats), median(articleStats)
	if s.errors > 0 || b.errors > 0 || art.errors > 0 {
		t.Fatalf("errors under load: screen %d, bare %d", s.errors, b.errors)
	}
	fmt.Printf("load: %d connections, %d interleaved rounds of %s (medians)\n", conns, rounds, round)
	fmt.Printf("  bare fiber 1 KB JSON:       %8.0f req/s  p99 %6.2f ms\n", b.rps, ms(b.p99))
	fmt.Printf("  /ui/screen?path=/dashboard: %8.0f req/s  p99 %6.2f ms\n", s.rps, ms(s.p99))
	fmt.Printf("  ratio screen/bare:          %8.2f\n", s.rps/b.rps)
	fmt.Printf("  /ui/screen?path=/dashboard/articles/secret-admirers: %8.0f req/s  p99 %6.2f ms (ratio %.2f)\n",
		art.rps, ms(art.p99), art.rps/b.rps)
	fmt.Printf("  database commands during screen rounds: %d for %d requests (%.4f per request)\n",
		screenCommands, screenRequests, float64(screenCommands)/float64(screenRequests))
}

type stats struct {
	requests, errors int64
	rps              float64
	p99              time.Duration
}

func serve(t *testing.T, app *fiber.App) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = app.Listener(ln, fiber.ListenConfig{DisableStartupMessage: true}) }()
	t.Cleanup(func() { _ = app.Shutdown() })
	return ln.Addr().String()
}

// drive keeps conns requests in flight against addr for d and measures.
func drive(addr string, conns int, d time.Duration, build func(*fasthttp.Request)) stats {
	client := &fasthttp.HostClient{Addr: addr, MaxConns: conns, ReadTimeout: 10 * time.Second}
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	lat := make([][]time.Duration, conns)
	var errs atomic.Int64
	begin := time.Now()
	for i := 0; i < conns; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			req, res := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
			defer fasthttp.ReleaseRequest(req)
			defer fasthttp.ReleaseResponse(res)
			for time.Now().Before(deadline) {
				req.Reset()
				build(req)
				t0 := time.Now()
				if err := client.Do(req, res); err != nil || res.StatusCode() != 200 {
					errs.Add(1)
					continue
				}
				lat[i] = append(lat[i], time.Since(t0))
			}
		}(i)
	}
	wg.Wait()
	elapsed := time.Since(begin)
	var all []time.Duration
	for _, l := range lat {
		all = append(all, l...)
	}
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	s := stats{requests: int64(len(all)), errors: errs.Load(), rps: float64(len(all)) / elapsed.Seconds()}
	if len(all) > 0 {
		s.p99 = all[len(all)*99/100]
	}
	return s
}

func median(s []stats) stats {
	sort.Slice(s, func(i, j int) bool { return s[i].rps < s[j].rps })
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
