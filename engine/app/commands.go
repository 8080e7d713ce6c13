package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"glimpse/engine"
	"glimpse/engine/auth"
	"glimpse/engine/config"
	"glimpse/engine/store"
	"glimpse/engine/store/sqlite"
)

const usage = `usage: glimpse [command]

commands:
  serve               start the server (the default)
  login-link EMAIL    print a single-use sign-in link, valid for 10 minutes
  staff add --role editor|tester|support|admin EMAIL
                      create a staff account (or reset it) and print its password;
                      a reset ends the member's sessions
  staff remove EMAIL  delete a staff account and end its sessions
  backup DIR          copy the embedded database into the new directory DIR,
                      also while the app serves (docs/operations.md)
  restore DIR         put the backup in DIR back into GLIMPSE_DATA_DIR; stop
                      the app first
  seed-scale [-n N]   fill GLIMPSE_DATA_DIR's database with N subscribers
                      (default 1,000,000) and N/10 connected profiles, for
                      the scale benchmark (docs/benchmarks.md §7)
  version             print the version
`

// Run runs the command in args.
func Run(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer, version string) error {
	cmd := "serve"
	if len(args) > 0 {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "version":
		_, err := fmt.Fprintln(stdout, version)
		return err
	case "-h", "--help", "help":
		_, err := io.WriteString(stdout, usage)
		return err
	}
	load := config.LoadForCommand
	if cmd == "serve" {
		// Only serving needs, outside development, a payment provider
		// chosen and the operator named; the other commands serve nothing.
		load = config.Load
	}
	cfg, err := load(getenv)
	if err != nil {
		return err
	}
	sink := newLogSink(os.Stderr, logFlushEvery)
	defer sink.Close()
	logger := newLogger(cfg.LogLevel, sink)
	switch cmd {
	case "serve":
		return serve(ctx, cfg, logger, stdout, version)
	case "login-link":
		fs := flag.NewFlagSet("login-link", flag.ContinueOnError)
		if err := fs.Parse(args); err != nil || fs.NArg() != 1 {
			return errors.New("usage: glimpse login-link EMAIL")
		}
		return loginLink(ctx, cfg, logger, stdout, fs.Arg(0))
	case "staff":
		return staffCommand(ctx, cfg, logger, stdout, args)
	case "backup":
		return backup(ctx, cfg, stdout, args)
	case "restore":
		return restore(ctx, cfg, stdout, args)
	case "seed-scale":
		return seedScaleCommand(ctx, cfg, logger, stdout, args)
	}
	return fmt.Errorf("unknown command %q\n%s", cmd, usage)
}

// logFlushEvery bounds how late an info line (the access log) reaches stderr.
const logFlushEvery = 200 * time.Millisecond

// NewAccessLogger is the logger `glimpse serve` logs with at level, writing
// to out without the batching: for benchmarks that measure a request as the
// binary serves it, access line included.
func NewAccessLogger(level string, out io.Writer) *slog.Logger {
	var l slog.Level
	_ = l.UnmarshalText([]byte(level))
	return slog.New(newQuickText(out, l))
}

func newLogger(level string, sink *logSink) *slog.Logger {
	var l slog.Level
	_ = l.UnmarshalText([]byte(level))
	return slog.New(flushOnWarn{Handler: newQuickText(sink, l), sink: sink})
}

func staffCommand(ctx context.Context, cfg config.Config, logger *slog.Logger, stdout io.Writer, args []string) error {
	if len(args) == 2 && args[0] == "remove" {
		a, err := openBeside(ctx, cfg, logger)
		if err != nil {
			return err
		}
		defer a.Close(context.Background())
		if err := a.Staff.Remove(ctx, args[1]); err != nil {
			return err
		}
		_, err = fmt.Fprintf(stdout, "Staff member %s removed; their sessions have ended.\n", args[1])
		return err
	}
	if len(args) == 0 || args[0] != "add" {
		return errors.New("usage: glimpse staff add --role editor|tester|support|admin EMAIL")
	}
	fs := flag.NewFlagSet("staff add", flag.ContinueOnError)
	role := fs.String("role", "", "editor, tester, support or admin")
	if err := fs.Parse(args[1:]); err != nil || fs.NArg() != 1 || *role == "" {
		return errors.New("usage: glimpse staff add --role editor|tester|support|admin EMAIL")
	}
	a, err := openBeside(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer a.Close(context.Background())
	password, err := a.Staff.Add(ctx, fs.Arg(0), *role)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "Staff member %s (%s) added.\nPassword (shown once): %s\nSign in at %s/studio\n",
		fs.Arg(0), *role, password, cfg.BaseURL)
	return err
}

// openBeside opens the app for a short command (login-link, staff). With
// the embedded database it may run beside the app serving the same data
// directory: it opens the same glimpse.db without the directory's lock
// (store.Config.Attach; SQLite's file locks serialise the two processes'
// writes), or takes the lock when no server runs.
func openBeside(ctx context.Context, cfg config.Config, logger *slog.Logger) (*App, error) {
	var st *store.Store
	if cfg.MongoURI == "" {
		var err error
		st, err = store.Open(ctx, store.Config{DataDir: cfg.DataDir, Database: cfg.Database, Attach: true}, logger)
		if err != nil {
			return nil, fmt.Errorf("open store: %w", err)
		}
	}
	a, err := Open(ctx, cfg, logger, engine.SystemClock{}, st)
	if err != nil && st != nil {
		_ = st.Close(context.Background())
	}
	return a, err
}

func loginLink(ctx context.Context, cfg config.Config, logger *slog.Logger, stdout io.Writer, email string) error {
	a, err := openBeside(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer a.Close(context.Background())
	token, err := a.Auth.MintLoginLink(ctx, email)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "%s/?login=%s\n(single use, valid for %s)\n", cfg.BaseURL, token, auth.LoginLinkLifetime)
	return err
}

// backup copies the embedded database into a new directory, while the app
// may be serving from it (store.BackupEmbedded). A MongoDB deployment is
// backed up with MongoDB's own tools instead.
func backup(ctx context.Context, cfg config.Config, stdout io.Writer, args []string) error {
	if len(args) != 1 || strings.HasPrefix(args[0], "-") {
		return errors.New("usage: glimpse backup DIR")
	}
	if cfg.MongoURI != "" {
		return errors.New("backup: MONGODB_URI is set, so the data is in MongoDB, not in GLIMPSE_DATA_DIR; " +
			"back it up with mongodump --oplog as docs/operations.md (Backups) describes")
	}
	start := time.Now()
	b, err := store.BackupEmbedded(ctx, cfg.DataDir, args[0])
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(stdout, "Backed up %s into %s in %s:\n", cfg.DataDir, args[0], time.Since(start).Round(time.Millisecond)); err != nil {
		return err
	}
	for _, f := range b.Files {
		if _, err := fmt.Fprintf(stdout, "  %-24s %s  sha256 %s\n", f.Name, size(f.Bytes), f.SHA256); err != nil {
			return err
		}
	}
	_, err = fmt.Fprintf(stdout, "  %-24s %s\nRestore it with: glimpse restore %s\n", "total", size(b.Bytes()), args[0])
	return err
}

// restore puts a backup made by backup into the data directory, which no
// running instance may hold (store.RestoreEmbedded refuses it).
func restore(ctx context.Context, cfg config.Config, stdout io.Writer, args []string) error {
	if len(args) != 1 || strings.HasPrefix(args[0], "-") {
		return errors.New("usage: glimpse restore DIR")
	}
	if cfg.MongoURI != "" {
		return errors.New("restore: MONGODB_URI is set, so the data is in MongoDB, not in GLIMPSE_DATA_DIR; " +
			"restore it with mongorestore --oplogReplay as docs/operations.md (Backups) describes")
	}
	r, err := store.RestoreEmbedded(ctx, args[0], cfg.DataDir)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(stdout, "Restored the backup of %s from %s into %s:\n",
		r.Backup.Created.Format(time.RFC3339), args[0], cfg.DataDir); err != nil {
		return err
	}
	// The app's data is in glimpse.db (sqlite.FileName).
	found := false
	for _, f := range r.Backup.Files {
		found = found || f.Name == sqlite.FileName
		if _, err := fmt.Fprintf(stdout, "  %-24s %s\n", f.Name, size(f.Bytes)); err != nil {
			return err
		}
	}
	if r.Previous != "" {
		if _, err := fmt.Fprintf(stdout, "The files it replaced are in %s; delete them once the app runs well.\n", r.Previous); err != nil {
			return err
		}
	}
	if !found {
		_, err = fmt.Fprintf(stdout, "Warning: the backup has neither %s nor %s.sqlite, the database GLIMPSE_DATABASE=%s names; the app will start empty.\n",
			sqlite.FileName, cfg.Database, cfg.Database)
	}
	return err
}

// size writes a byte count for people: exact, and in MiB when that is
// shorter to read.
func size(n int64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%.1f MiB (%d bytes)", float64(n)/(1<<20), n)
}

func seedScaleCommand(ctx context.Context, cfg config.Config, logger *slog.Logger, stdout io.Writer, args []string) error {
	fs := flag.NewFlagSet("seed-scale", flag.ContinueOnError)
	n := fs.Int("n", 1_000_000, "subscribers to create")
	size := fs.Bool("size", false, "print how many subscribers the database was seeded with (0: none) and stop")
	if err := fs.Parse(args); err != nil || fs.NArg() != 0 || *n < 1 {
		return errors.New("usage: glimpse seed-scale [-n N] [-size]")
	}
	a, err := Open(ctx, cfg, logger, engine.SystemClock{}, nil)
	if err != nil {
		return err
	}
	defer a.Close(context.Background())
	if *size {
		seeded, err := ScaleSeeded(ctx, a)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(stdout, seeded)
		return err
	}
	r, err := SeedScale(ctx, a, *n, stdout)
	if err != nil {
		return err
	}
	total := 0
	for coll, c := range r.Documents {
		total += c
		fmt.Fprintf(stdout, "  %-22s %9d documents, %s inserting\n", coll, c, r.Spent[coll].Round(time.Millisecond))
	}
	_, err = fmt.Fprintf(stdout, "Seeded %d subscribers (%d connected profiles), %d documents, in %s (%.0f subscribers/s).\nThey sign in as %s … %s with the password %q.\n",
		r.Subscribers, r.Profiles, total, r.Took.Round(time.Second), float64(r.Subscribers)/r.Took.Seconds(),
		ScaleEmail(0), ScaleEmail(r.Subscribers-1), ScalePassword)
	return err
}
