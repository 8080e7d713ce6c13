package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"

	"github.com/FerretDB/FerretDB/ferretdb"
)

// dbServer runs FerretDB with its SQLite backend as a process of its own,
// listening only on a Unix socket, and prints the MONGODB_URI that reaches
// it. The fault tests use it as a standalone MongoDB-compatible server that
// can be stopped and started under a running app (`make faults`); it also
// lets two app instances share one embedded-style database on one machine.
// It needs no configuration beyond its flags, so it reads no environment.
func dbServer(ctx context.Context, args []string, logger *slog.Logger, stdout io.Writer) error {
	fs := flag.NewFlagSet("db-server", flag.ContinueOnError)
	dataDir := fs.String("data", "", "directory for the SQLite files (created 0700)")
	socket := fs.String("socket", "", "Unix socket path (default: DATA/mongodb.sock)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dataDir == "" || fs.NArg() != 0 {
		return errors.New("usage: glimpse db-server --data DIR [--socket PATH]")
	}
	abs, err := filepath.Abs(*dataDir)
	if err != nil {
		return fmt.Errorf("db-server: %w", err)
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return fmt.Errorf("db-server: create data directory: %w", err)
	}
	sock := *socket
	if sock == "" {
		sock = filepath.Join(abs, "mongodb.sock")
	}
	// A socket left by a killed server would make the listen fail.
	if err := os.Remove(sock); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("db-server: remove stale socket: %w", err)
	}
	f, err := ferretdb.New(&ferretdb.Config{
		Listener:  ferretdb.ListenerConfig{Unix: sock},
		Logger:    logger.With(slog.String("component", "ferretdb")),
		Handler:   "sqlite",
		SQLiteURL: "file:" + abs + "/",
	})
	if err != nil {
		return fmt.Errorf("db-server: start FerretDB: %w", err)
	}
	if err := os.Chmod(sock, 0o600); err != nil {
		return fmt.Errorf("db-server: restrict socket: %w", err)
	}
	// The driver wants the socket path, escaped, as the host of the URI.
	if _, err := fmt.Fprintf(stdout, "MONGODB_URI=mongodb://%s/\n", url.PathEscape(sock)); err != nil {
		return err
	}
	f.Run(ctx)
	return nil
}
