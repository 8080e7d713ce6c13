package sqlstore_test

import (
	"testing"

	"glimpse/engine/profile"
	"glimpse/engine/profile/profiletest"
	"glimpse/engine/store/sqlstore"
)

func TestProfilesContract(t *testing.T) {
	profiletest.Run(t, func(t *testing.T) profile.Profiles { return sqlstore.NewProfiles(openDB(t)) },
		profiletest.Options{Atomic: true, FailWrites: sqlstore.FailProfileWrites})
}
