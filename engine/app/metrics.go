package app

import (
	"context"
	"errors"
	"log/slog"
	"net/http"

	"glimpse/engine/metrics"
	"glimpse/engine/server"
)

// serveMetrics serves the Prometheus metrics at /metrics on addr
// (GLIMPSE_METRICS_ADDR, a loopback address the configuration has checked)
// until ctx ends: the server's request metrics, the Go runtime's and the
// process's (docs/operations.md lists them). Like pprof it is a listener of
// its own, so the public listener never answers /metrics.
func serveMetrics(ctx context.Context, addr string, srv *server.Server, version string, logger *slog.Logger) error {
	if srv.Metrics() == nil {
		return errors.New("the server was built without request metrics")
	}
	reg, err := metrics.NewRegistry(version, srv.Metrics())
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", metrics.Handler(reg))
	return serveInternal(ctx, "metrics", addr, mux, logger)
}
