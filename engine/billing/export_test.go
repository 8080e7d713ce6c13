package billing

import (
	"context"

	"glimpse/engine/store"
)

// Change exposes the service's compare-and-swap loop to the external tests
// that build the service on a store (package billing_test).
func (s *Service) Change(ctx context.Context, id string, rule func(Subscription) (Subscription, Effects, bool, error)) (Subscription, error) {
	return s.change(ctx, id, rule)
}

// storeOf returns billing's storage on a test's store, as the application
// opens it (engine/app/stores.go). The external test package sets it (it
// may import the stores, which import billing).
var storeOf func(st *store.Store) Store

// SetTestStores sets how the package's own tests open billing's storage.
func SetTestStores(open func(st *store.Store) Store) { storeOf = open }
