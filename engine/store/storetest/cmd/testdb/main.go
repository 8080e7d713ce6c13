// Command glimpse-testdb is the tests' MongoDB-compatible server: FerretDB on
// SQLite, on a Unix socket in a 0700 data directory, printing the
// MONGODB_URI that reaches it. storetest runs it in a process of its own for
// each test binary (GLIMPSE_TEST_DB_SERVER, or built on demand), so the
// mongostore contract suites and storetest.OpenMongo have a server without
// the race detector instrumenting FerretDB. It is a test tool only: the
// shipped binary (package glimpse) carries no FerretDB (issue #33).
//
//	glimpse-testdb --data DIR [--throwaway]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"glimpse/engine/store"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv("GLIMPSE_LOG_LEVEL"), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "glimpse-testdb:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, level string, stdout io.Writer) error {
	fs := flag.NewFlagSet("glimpse-testdb", flag.ContinueOnError)
	dataDir := fs.String("data", "", "directory for the SQLite files and the socket (created 0700)")
	throwaway := fs.Bool("throwaway", false, "never wait for the disk (tests' databases only: a power cut may corrupt them)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dataDir == "" || fs.NArg() != 0 {
		return errors.New("usage: glimpse-testdb --data DIR [--throwaway]")
	}
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		l = slog.LevelInfo
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: l}))
	durability := store.DurableAtCheckpoints
	if *throwaway {
		durability = store.Throwaway
	}
	return store.ServeEmbedded(ctx, *dataDir, durability, logger, func(uri string) error {
		_, err := fmt.Fprintf(stdout, "MONGODB_URI=%s\n", uri)
		return err
	})
}
