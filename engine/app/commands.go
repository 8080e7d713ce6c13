package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"glimpse/engine"
	"glimpse/engine/auth"
	"glimpse/engine/config"
)

const usage = `usage: glimpse [command]

commands:
  serve               start the server (the default)
  login-link EMAIL    print a single-use sign-in link, valid for 10 minutes
  staff add --role editor|tester|admin EMAIL
                      create a staff account (or reset it) and print its password;
                      a reset ends the member's sessions
  staff remove EMAIL  delete a staff account and end its sessions
  db-server --data DIR
                      run the embedded database as a process of its own on a
                      Unix socket and print its MONGODB_URI (fault tests)
  version             print the version
`

// Run runs the command in args.
func Run(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer, version string) error {
	cmd := "serve"
	if len(args) > 0 {
		cmd, args = args[0], args[1:]
	}
	if cmd == "version" {
		_, err := fmt.Fprintln(stdout, version)
		return err
	}
	cfg, err := config.Load(getenv)
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
	case "db-server":
		return dbServer(ctx, args, logger, stdout)
	case "-h", "--help", "help":
		_, err := io.WriteString(stdout, usage)
		return err
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
		a, err := Open(ctx, cfg, logger, engine.SystemClock{}, nil)
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
		return errors.New("usage: glimpse staff add --role editor|tester|admin EMAIL")
	}
	fs := flag.NewFlagSet("staff add", flag.ContinueOnError)
	role := fs.String("role", "", "editor, tester or admin")
	if err := fs.Parse(args[1:]); err != nil || fs.NArg() != 1 || *role == "" {
		return errors.New("usage: glimpse staff add --role editor|tester|admin EMAIL")
	}
	a, err := Open(ctx, cfg, logger, engine.SystemClock{}, nil)
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

func loginLink(ctx context.Context, cfg config.Config, logger *slog.Logger, stdout io.Writer, email string) error {
	a, err := Open(ctx, cfg, logger, engine.SystemClock{}, nil)
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
