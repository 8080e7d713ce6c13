package sqlstore

import (
	"errors"
	"sync/atomic"

	"glimpse/engine/profile"
)

// FailProfileWrites arms s (a *Profiles) to fail its nth write from now and
// every one after, until called with n = 0.
func FailProfileWrites(s profile.Profiles, n int) {
	p := s.(*Profiles)
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
