package profile

import (
	"context"
	"time"

	"glimpse/engine/metrics"
)

// SetMetrics makes the service count its analyses and their time (a nil m
// counts nothing). Call it before the service is used.
func (s *Service) SetMetrics(m *metrics.Business) { s.metrics = m }

// Analyse runs the analysis over the two latest snapshots and stores the
// result with status completed (analyseStored), counted with its duration.
// A failure leaves the previous result in place and records what happened.
// A stored analysis is then told to OnAnalysed's callee.
func (s *Service) Analyse(ctx context.Context, userID string) (Profile, error) {
	start := time.Now()
	p, err := s.analyseStored(ctx, userID)
	s.metrics.Analysis(start, err)
	if err == nil && s.analysed != nil {
		s.analysed(ctx, p)
	}
	return p, err
}
