package mongostore

import (
	"testing"

	"glimpse/engine/tracking"
	"glimpse/engine/tracking/trackingtest"
)

func TestEventsContract(t *testing.T) {
	trackingtest.Run(t, func(t *testing.T) tracking.Events { return NewEvents(openDB(t)) })
}
