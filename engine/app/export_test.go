package app

import (
	"glimpse/engine/auth"
	"glimpse/engine/tracking"
)

// EventsStore is the app's storage of usage events, for tests that write
// or count what the app would not.
func EventsStore(a *App) tracking.Events { return a.stores.events }

// AuthStores is the app's storage of accounts, sessions, links and
// counters, for tests that look at what was stored.
func AuthStores(a *App) auth.Stores { return a.stores.auth }
