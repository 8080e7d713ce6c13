package sqlstore_test

import (
	"testing"

	"glimpse/engine/experiment"
	"glimpse/engine/experiment/experimenttest"
	"glimpse/engine/store/sqlstore"
)

func TestExperimentsContract(t *testing.T) {
	experimenttest.Run(t, func(t *testing.T) experiment.Storage { return sqlstore.NewExperiments(openDB(t)) },
		experimenttest.Options{Atomic: true})
}
