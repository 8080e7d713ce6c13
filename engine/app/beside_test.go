package app_test

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"glimpse/engine"
	"glimpse/engine/app"
	"glimpse/engine/brand"
	"glimpse/engine/store"
)

// TestCommandsBesideARunningServer: `glimpse login-link` opens the database
// itself. Beside a running server, whatever the data directory's mode, it
// opens the same glimpse.db (store.Config.Attach: SQLite's file locks
// serialise the two processes' writes), and the server signs in with the
// link it wrote.
func TestCommandsBesideARunningServer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, mode := range []os.FileMode{0o700, 0o755} {
		dir, err := os.MkdirTemp("", "gl-beside-")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = os.RemoveAll(dir) })
		if err := os.Chmod(dir, mode); err != nil {
			t.Fatal(err)
		}
		st, err := store.Open(ctx, store.Config{DataDir: dir}, nil)
		if err != nil {
			t.Fatal(err)
		}
		cfg := load(t, map[string]string{"GLIMPSE_DEMO": "1", "GLIMPSE_DATA_DIR": dir})
		running, err := app.Open(ctx, cfg, slog.New(slog.DiscardHandler), engine.NewManualClock(time.Now()), st)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		// A shell with only the data directory set: production, and a
		// command needs no payment provider or operator.
		err = app.Run(ctx, []string{"login-link", app.DemoEmail}, func(k string) string {
			return map[string]string{"GLIMPSE_DATA_DIR": dir}[k]
		}, &out, "test")
		if err != nil || !strings.Contains(out.String(), "/?login=") {
			t.Errorf("mode %o: login-link beside the running server: %v\n%s", mode, err, out.String())
		} else {
			token, _, _ := strings.Cut(strings.SplitN(out.String(), "/?login=", 2)[1], "\n")
			if _, err := running.Auth.ConsumeLoginLink(ctx, token, "203.0.113.9", running.Brands.Get(brand.DefaultKey).Bundle); err != nil {
				t.Errorf("mode %o: the running server signing in with the command's link: %v", mode, err)
			}
		}
		if err := running.Close(ctx); err != nil {
			t.Fatal(err)
		}
	}
}
