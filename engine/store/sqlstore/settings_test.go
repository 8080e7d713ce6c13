package sqlstore_test

import (
	"testing"

	"glimpse/engine/settings"
	"glimpse/engine/settings/settingstest"
	"glimpse/engine/store/sqlstore"
)

func TestSettingsContract(t *testing.T) {
	settingstest.Run(t, func(t *testing.T) settings.Store { return sqlstore.NewSettings(openDB(t)) })
}
