package mongostore

import (
	"errors"
	"os"
	"sync/atomic"
	"testing"

	"glimpse/engine/profile"
	"glimpse/engine/profile/profiletest"
	"glimpse/engine/store/storetest"
)

func TestProfilesContract(t *testing.T) {
	profiletest.Run(t, func(t *testing.T) profile.Profiles { return NewProfiles(openDB(t)) },
		profiletest.Options{Atomic: os.Getenv(storetest.EnvURI) != "", FailWrites: failProfileWrites})
}

// failProfileWrites arms s to fail its nth write from now and every one
// after, until called with n = 0.
func failProfileWrites(s profile.Profiles, n int) {
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
