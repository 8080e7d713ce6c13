// Command glimpse-testdb is the tests' MongoDB-compatible server: FerretDB
// v1 on SQLite, on a Unix socket in a private directory, printing the
// MONGODB_URI that reaches it. storetest runs it in a process of its own for
// each test binary (GLIMPSE_TEST_DB_SERVER, or built on demand), so the
// mongostore contract suites and storetest.OpenMongo have a server without
// the race detector instrumenting FerretDB. It is a test tool only: the
// shipped binary (package glimpse) carries no FerretDB (issue #33), and what
// FerretDB does not guarantee (atomic conditional updates, transactions, TTL
// and partial indexes) is listed in docs/store.md.
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
	"net"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/FerretDB/FerretDB/ferretdb"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "glimpse-testdb:", err)
		os.Exit(1)
	}
}

// maxSocketPath is the longest socket path used: sun_path holds 108 bytes on
// Linux and 104 on macOS, including the terminating NUL.
const maxSocketPath = 100

func run(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("glimpse-testdb", flag.ContinueOnError)
	dataDir := fs.String("data", "", "directory for the SQLite files (created 0700)")
	throwaway := fs.Bool("throwaway", false, "never wait for the disk (tests' databases only: a power cut may corrupt them)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dataDir == "" || fs.NArg() != 0 {
		return errors.New("usage: glimpse-testdb --data DIR [--throwaway]")
	}
	dir, err := filepath.Abs(*dataDir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	// FerretDB has no authentication: a Unix socket in a directory only
	// this user may enter decides who connects, never a TCP port.
	sockDir := dir
	if len(filepath.Join(dir, "mongodb.sock")) > maxSocketPath {
		if sockDir, err = os.MkdirTemp("", "glimpse-testdb-"); err != nil {
			return err
		}
		defer os.RemoveAll(sockDir)
	}
	sock := filepath.Join(sockDir, "mongodb.sock")
	_ = os.Remove(sock) // a killed run's leftover
	sync := "synchronous(normal)"
	if *throwaway {
		sync = "synchronous(off)"
	}
	f, err := ferretdb.New(&ferretdb.Config{
		Listener: ferretdb.ListenerConfig{Unix: sock},
		// Only its errors: it logs every connection at Info and every error
		// reply (a duplicate key the tests provoke) at Warn.
		Logger:  slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError})),
		Handler: "sqlite",
		// The trailing slash matters: FerretDB treats the URI as a directory.
		SQLiteURL: "file:" + dir + "/?_pragma=" + sync,
	})
	if err != nil {
		return fmt.Errorf("start FerretDB: %w", err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = f.Run(ctx) // returns when ctx ends
	}()
	if err := waitAccepting(ctx, sock, done); err != nil {
		return err
	}
	if err := os.Chmod(sock, 0o600); err != nil {
		return err
	}
	if _, err := fmt.Fprintf(stdout, "MONGODB_URI=mongodb://%s/\n", url.PathEscape(sock)); err != nil {
		return err
	}
	<-done
	return nil
}

// waitAccepting dials the socket until a connection succeeds, so that the
// URI is printed only once a client can use it.
func waitAccepting(ctx context.Context, sock string, stopped <-chan struct{}) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var d net.Dialer
	for {
		conn, err := d.DialContext(ctx, "unix", sock)
		if err == nil {
			return conn.Close()
		}
		select {
		case <-stopped:
			return errors.New("FerretDB stopped during start-up")
		case <-ctx.Done():
			return fmt.Errorf("FerretDB not accepting connections: %w", err)
		case <-time.After(20 * time.Millisecond):
		}
	}
}
