package app

import (
	"context"
	"errors"
	"log/slog"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"

	"glimpse/engine/config"
	"glimpse/engine/metrics"
	"glimpse/engine/server"
)

// serveMetrics serves the Prometheus metrics at /metrics on addr
// (GLIMPSE_METRICS_ADDR, a loopback address the configuration has checked)
// until ctx ends: the server's request metrics, the Go runtime's and the
// process's (docs/operations.md lists them). Like pprof it is a listener of
// its own, so the public listener never answers /metrics.
func (a *App) serveMetrics(ctx context.Context, addr string, srv *server.Server, version string, logger *slog.Logger) error {
	if srv.Metrics() == nil {
		return errors.New("the server was built without request metrics")
	}
	cs := []prometheus.Collector{srv.Metrics()}
	if a.Metrics != nil {
		cs = append(cs, a.Metrics)
	}
	reg, err := metrics.NewRegistry(version, cs...)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", metrics.Handler(reg))
	return serveInternal(ctx, "metrics", addr, mux, logger)
}

// wireOperations, when GLIMPSE_METRICS_ADDR is set, makes the business
// metrics and hands them to the services that count (docs/operations.md
// lists them).
func (a *App) wireOperations(cfg config.Config) {
	if cfg.MetricsAddr == "" {
		return
	}
	a.Metrics = metrics.NewBusiness(a.Clock.Now)
	a.Billing.SetMetrics(a.Metrics)
	a.Profiles.SetMetrics(a.Metrics)
	a.Experiments.SetMetrics(a.Metrics)
	a.Metrics.SetMailQueue(a.Outbox.Pending)
}
