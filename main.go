// Command glimpse is the Glimpse server and its admin commands. See README.md.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"glimpse/engine/app"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := app.Run(ctx, os.Args[1:], os.Getenv, os.Stdout, version); err != nil {
		fmt.Fprintln(os.Stderr, "glimpse:", err)
		os.Exit(1)
	}
}
