package app

import "glimpse/engine/tracking"

// EventsStore is the app's storage of usage events, for tests that write
// or count what the app would not.
func EventsStore(a *App) tracking.Events { return a.stores.events }
