package mongostore

import (
	"os"
	"testing"

	"glimpse/engine/library"
	"glimpse/engine/library/librarytest"
)

func TestContentItemsContract(t *testing.T) {
	librarytest.Run(t, func(t *testing.T) library.Items { return NewContentItems(openDB(t)) },
		librarytest.Options{Atomic: os.Getenv("GLIMPSE_TEST_MONGODB_URI") != ""})
}

func TestContentSchedulesContract(t *testing.T) {
	librarytest.RunSchedules(t, func(t *testing.T) library.Schedules { return NewContentSchedules(openDB(t)) },
		librarytest.Options{Atomic: os.Getenv("GLIMPSE_TEST_MONGODB_URI") != ""})
}
