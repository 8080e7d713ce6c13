package app

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"time"
)

// servePprof serves net/http/pprof on addr (GLIMPSE_PPROF_ADDR, a loopback
// address the configuration has checked) until ctx ends: the profiles of the
// running binary, for `go tool pprof http://ADDR/debug/pprof/profile`. It is
// a listener of its own, so the app's routes and middleware never see it.
func servePprof(ctx context.Context, addr string, logger *slog.Logger) error {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return serveInternal(ctx, "pprof", addr, mux, logger)
}

// serveInternal serves handler on addr, a loopback address for the
// operator's tools (pprof, metrics), until ctx ends. It returns once the
// address is bound, so a port in use stops the start.
func serveInternal(ctx context.Context, name, addr string, handler http.Handler, logger *slog.Logger) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	logger.Info(name+" listening", "addr", ln.Addr().String())
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Error(name, "error", err)
		}
	}()
	return nil
}
