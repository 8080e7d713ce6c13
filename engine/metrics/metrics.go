// Package metrics is the binary's Prometheus instrumentation: the request
// metrics of the HTTP server (HTTP, labelled only from closed sets: route
// templates, the screen table's patterns, the action table's names, status
// classes and error codes) and the registry the operator scrapes on the
// loopback listener GLIMPSE_METRICS_ADDR names (engine/app/metrics.go). It is
// never served on the public listener. docs/operations.md lists every metric
// with a suggested alert.
//
// Label values are never raw paths, ids or anything a client chooses: each
// series is a time series kept by Prometheus, so an unbounded label is a
// memory leak there (https://prometheus.io/docs/practices/naming/#labels).
package metrics

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// NewRegistry returns a registry holding the Go runtime, process and build
// collectors, glimpse_build_info for version, and cs (the server's request
// metrics among them). It is a registry of its own, not the global default,
// so nothing a dependency registers is exposed by accident.
func NewRegistry(version string, cs ...prometheus.Collector) (*prometheus.Registry, error) {
	reg := prometheus.NewRegistry()
	build := prometheus.NewGauge(prometheus.GaugeOpts{
		Name:        "glimpse_build_info",
		Help:        "Always 1; the version label says which build is running.",
		ConstLabels: prometheus.Labels{"version": version},
	})
	build.Set(1)
	all := append([]prometheus.Collector{
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		collectors.NewBuildInfoCollector(),
		build,
	}, cs...)
	for _, c := range all {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return reg, nil
}

// Handler serves reg in the Prometheus exposition format. A failing
// collector is answered with an error (500), not a partial page, so a scrape
// gap shows up as "up == 0" instead of silently missing series.
func Handler(reg *prometheus.Registry) http.Handler {
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg, ErrorHandling: promhttp.HTTPErrorOnError})
}
