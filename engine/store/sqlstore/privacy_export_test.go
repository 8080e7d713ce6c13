package sqlstore

import (
	"errors"
	"sync/atomic"

	"glimpse/engine/privacy"
)

// FailPrivacyWrites arms st (NewPrivacy's stores) to fail their nth write
// from now and every one after, until called with n = 0.
func FailPrivacyWrites(st privacy.Stores, n int) {
	p := st.Exports.(PrivacyExports).privacyDB
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
