package mongostore

import (
	"os"
	"testing"

	"glimpse/engine/experiment"
	"glimpse/engine/experiment/experimenttest"
)

func TestExperimentsContract(t *testing.T) {
	// $inc is atomic on MongoDB, not on the FerretDB test server.
	experimenttest.Run(t, func(t *testing.T) experiment.Storage { return NewExperiments(openDB(t)) },
		experimenttest.Options{Atomic: os.Getenv("GLIMPSE_TEST_MONGODB_URI") != ""})
}
