package app_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"glimpse/engine"
	"glimpse/engine/app"
	"glimpse/engine/config"
	"glimpse/engine/store/storetest"
)

func TestMain(m *testing.M) { os.Exit(storetest.Main(m)) }

func load(t *testing.T, vars map[string]string) config.Config {
	t.Helper()
	cfg, err := config.Load(env(vars))
	if err != nil {
		t.Fatal(err)
	}
	cfg.PasswordMemoryKiB, cfg.PasswordPasses = 1024, 1 // cheap argon2id: auth.NewHasherCosting
	return cfg
}

func TestOpenSeedsDemoIdempotently(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := storetest.Open(t)
	cfg := load(t, map[string]string{"GLIMPSE_DEMO": "1"})
	clock := engine.NewManualClock(time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC))
	for i := 0; i < 2; i++ {
		a, err := app.Open(ctx, cfg, slog.New(slog.DiscardHandler), clock, st)
		if err != nil {
			t.Fatalf("open %d: %v", i+1, err)
		}
		if !a.Breach.Sample() {
			t.Fatal("with no HIBP key the sample provider must answer")
		}
		for _, acct := range [][2]string{{app.DemoEmail, app.DemoPassword}, {app.CleanEmail, app.CleanPassword}} {
			if _, err := a.Auth.SignIn(ctx, acct[0], acct[1], "127.0.0.1", "glimpse.web"); err != nil {
				t.Fatalf("open %d: %s cannot sign in: %v", i+1, acct[0], err)
			}
		}
	}
}

func TestOpenUsesHIBPWithAKey(t *testing.T) {
	t.Parallel()
	var keyed, catalogue atomic.Int32
	hibp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/breaches":
			catalogue.Add(1)
			_, _ = w.Write([]byte(`[{"Name":"Real","Title":"Real","Domain":"real.example","BreachDate":"2020-01-02","DataClasses":["Email addresses"]}]`))
		case "/subscription/status":
			if r.Header.Get("hibp-api-key") == "0123456789abcdef0123456789abcdef" {
				keyed.Add(1)
			}
			_, _ = w.Write([]byte(`{"Rpm": 50}`))
		default:
			http.NotFound(w, r)
		}
	}))
	defer hibp.Close()
	cfg := load(t, map[string]string{"GLIMPSE_HIBP_API_KEY": "0123456789abcdef0123456789abcdef",
		"GLIMPSE_HIBP_BASE_URL": hibp.URL, "GLIMPSE_PWNED_PASSWORDS": "local"})
	a, err := app.Open(context.Background(), cfg, slog.New(slog.DiscardHandler), engine.SystemClock{}, storetest.Open(t))
	if err != nil {
		t.Fatal(err)
	}
	if a.Breach.Sample() {
		t.Fatal("a configured key must select the HIBP client")
	}
	if catalogue.Load() == 0 {
		t.Fatal("the catalogue was not synchronised at start")
	}
	deadline := time.Now().Add(5 * time.Second)
	for keyed.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if keyed.Load() == 0 {
		t.Fatal("the limiter was not sized from the key's subscription")
	}
}
