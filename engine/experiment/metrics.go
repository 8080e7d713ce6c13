package experiment

import "glimpse/engine/metrics"

// SetMetrics makes the service count first exposures (a nil m counts
// nothing). Call it before the service is used.
func (s *Service) SetMetrics(m *metrics.Business) { s.metrics = m }
