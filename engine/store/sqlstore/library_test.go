package sqlstore_test

import (
	"testing"

	"glimpse/engine/library"
	"glimpse/engine/library/librarytest"
	"glimpse/engine/store/sqlstore"
)

func TestContentItemsContract(t *testing.T) {
	librarytest.Run(t, func(t *testing.T) library.Items { return sqlstore.NewContentItems(openDB(t)) },
		librarytest.Options{Atomic: true})
}

func TestContentSchedulesContract(t *testing.T) {
	librarytest.RunSchedules(t, func(t *testing.T) library.Schedules { return sqlstore.NewContentSchedules(openDB(t)) },
		librarytest.Options{Atomic: true})
}
