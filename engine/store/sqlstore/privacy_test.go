package sqlstore_test

import (
	"testing"

	"glimpse/engine/privacy"
	"glimpse/engine/privacy/privacytest"
	"glimpse/engine/store/sqlstore"
)

func TestPrivacyContract(t *testing.T) {
	privacytest.Run(t, func(t *testing.T) privacy.Stores { return sqlstore.NewPrivacy(openDB(t)) },
		privacytest.Options{Atomic: true, FailWrites: sqlstore.FailPrivacyWrites})
}
