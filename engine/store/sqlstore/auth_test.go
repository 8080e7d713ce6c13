package sqlstore_test

import (
	"testing"

	"glimpse/engine/auth"
	"glimpse/engine/auth/authtest"
	"glimpse/engine/store/sqlstore"
)

func TestAuthContract(t *testing.T) {
	authtest.Run(t, func(t *testing.T) auth.Stores { return sqlstore.AuthStores(openDB(t)) }, authtest.Options{Atomic: true})
}
