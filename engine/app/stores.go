package app

import (
	"context"
	"fmt"

	"glimpse/engine/experiment"
	"glimpse/engine/mail"
	"glimpse/engine/privacy"
	"glimpse/engine/profile"
	"glimpse/engine/retention"
	"glimpse/engine/store"
	"glimpse/engine/store/mongostore"
	"glimpse/engine/store/sqlstore"
	"glimpse/engine/tracking"
)

// stores are the domains' storage: on the embedded SQLite database when the
// store has one (a bare machine, one process), on MongoDB otherwise. The
// domains whose stores have not moved yet still use the store's MongoDB
// connection directly (docs/store.md).
type stores struct {
	events      tracking.Events
	mails       mail.Mails
	profiles    profile.Profiles
	attempts    retention.Attempts
	experiments experiment.Storage
	privacy     privacy.Stores
}

func openStores(ctx context.Context, st *store.Store) (stores, error) {
	if db := st.SQL(); db != nil {
		return stores{events: sqlstore.NewEvents(db), mails: sqlstore.NewMails(db), profiles: sqlstore.NewProfiles(db),
			attempts: sqlstore.NewAttempts(db), experiments: sqlstore.NewExperiments(db), privacy: sqlstore.NewPrivacy(db)}, nil
	}
	if err := mongostore.Ensure(ctx, st); err != nil {
		return stores{}, fmt.Errorf("open stores: %w", err)
	}
	return stores{events: mongostore.NewEvents(st.DB()), mails: mongostore.NewMails(st.DB()), profiles: mongostore.NewProfiles(st.DB()),
		attempts: mongostore.NewAttempts(st.DB()), experiments: mongostore.NewExperiments(st.DB()), privacy: mongostore.NewPrivacy(st.DB())}, nil
}
