package app_test

import (
	"bytes"
	"context"
	"errors"
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
// itself. Beside a running server on a private data directory it reaches
// that server through its socket; on a data directory open to others, where
// the running server's socket is elsewhere, the directory's lock refuses it
// (it started a second server on the same files).
func TestCommandsBesideARunningServer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, mode := range []os.FileMode{0o700, 0o755} {
		dir, err := os.MkdirTemp("", "gl-beside-") // short: the socket path must fit
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = os.RemoveAll(dir) })
		if err := os.Chmod(dir, mode); err != nil {
			t.Fatal(err)
		}
		st, err := store.Open(ctx, store.Config{DataDir: dir, Database: "glimpse"}, nil)
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
		switch mode {
		case 0o700:
			if err != nil || !strings.Contains(out.String(), "/?login=") {
				t.Errorf("login-link beside the running server: %v\n%s", err, out.String())
				break
			}
			// The command wrote the link into the running server's
			// embedded database (its own connection to glimpse.db): the
			// server signs in with it.
			token, _, _ := strings.Cut(strings.SplitN(out.String(), "/?login=", 2)[1], "\n")
			if _, err := running.Auth.ConsumeLoginLink(ctx, token, "203.0.113.9", running.Brands.Get(brand.DefaultKey).Bundle); err != nil {
				t.Errorf("the running server signing in with the command's link: %v", err)
			}
		case 0o755:
			if !errors.Is(err, store.ErrDataDirInUse) {
				t.Errorf("login-link on a data directory open to others, in use: %v, want ErrDataDirInUse", err)
			}
		}
		if err := running.Close(ctx); err != nil {
			t.Fatal(err)
		}
	}
}
