package mongostore

import (
	"testing"

	"glimpse/engine/settings"
	"glimpse/engine/settings/settingstest"
)

func TestSettingsContract(t *testing.T) {
	settingstest.Run(t, func(t *testing.T) settings.Store { return NewSettings(openDB(t)) })
}
