package mongostore

import (
	"os"
	"testing"

	"glimpse/engine/auth"
	"glimpse/engine/auth/authtest"
)

func TestAuthContract(t *testing.T) {
	// FerretDB's conditional updates are not atomic; MongoDB's are.
	atomic := os.Getenv("GLIMPSE_TEST_MONGODB_URI") != ""
	authtest.Run(t, func(t *testing.T) auth.Stores { return AuthStores(openDB(t)) }, authtest.Options{Atomic: atomic})
}
