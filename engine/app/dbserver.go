package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"

	"glimpse/engine/store"
)

// dbServer runs the embedded database (FerretDB with SQLite, on a Unix
// socket in the 0700 data directory) as a process of its own and prints the
// MONGODB_URI that reaches it. The fault tests use it as a standalone
// MongoDB-compatible server that can be stopped and started under a running
// app (`make faults`); it also lets two app instances of one user share a
// database on one machine. It needs no configuration beyond its flag.
func dbServer(ctx context.Context, args []string, logger *slog.Logger, stdout io.Writer) error {
	fs := flag.NewFlagSet("db-server", flag.ContinueOnError)
	dataDir := fs.String("data", "", "directory for the SQLite files and the socket (created 0700)")
	throwaway := fs.Bool("throwaway", false, "never wait for the disk (tests' databases only: a power cut may corrupt them)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dataDir == "" || fs.NArg() != 0 {
		return errors.New("usage: glimpse db-server --data DIR [--throwaway]")
	}
	durability := store.DurableAtCheckpoints
	if *throwaway {
		durability = store.Throwaway
	}
	return store.ServeEmbedded(ctx, *dataDir, durability, logger, func(uri string) error {
		_, err := fmt.Fprintf(stdout, "MONGODB_URI=%s\n", uri)
		return err
	})
}
