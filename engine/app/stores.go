package app

import (
	"context"
	"fmt"

	"glimpse/engine/billing"
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
	events  tracking.Events
	billing billing.Store
}

func openStores(ctx context.Context, st *store.Store) (stores, error) {
	if db := st.SQL(); db != nil {
		return stores{events: sqlstore.NewEvents(db), billing: sqlstore.NewBilling(db)}, nil
	}
	if err := mongostore.Ensure(ctx, st); err != nil {
		return stores{}, fmt.Errorf("open stores: %w", err)
	}
	return stores{events: mongostore.NewEvents(st.DB()), billing: mongostore.NewBilling(st.DB())}, nil
}
