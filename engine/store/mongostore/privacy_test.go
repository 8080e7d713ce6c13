package mongostore

import (
	"errors"
	"os"
	"sync/atomic"
	"testing"

	"glimpse/engine/privacy"
	"glimpse/engine/privacy/privacytest"
	"glimpse/engine/store/storetest"
)

func TestPrivacyContract(t *testing.T) {
	privacytest.Run(t, func(t *testing.T) privacy.Stores { return NewPrivacy(openDB(t)) },
		privacytest.Options{Atomic: os.Getenv(storetest.EnvURI) != "", FailWrites: failPrivacyWrites})
}

// failPrivacyWrites arms st to fail their nth write from now and every one
// after, until called with n = 0.
func failPrivacyWrites(st privacy.Stores, n int) {
	p := st.Exports.(PrivacyExports).privacyMongo
	if n == 0 {
		p.beforeWrite = nil
		return
	}
	var count atomic.Int64
	p.beforeWrite = func() error {
		if count.Add(1) >= int64(n) {
			return errors.New("stopped before this write")
		}
		return nil
	}
}
