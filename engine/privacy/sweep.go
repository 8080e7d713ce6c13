package privacy

import (
	"context"
	"fmt"
	"time"
)

// farewellKept is how long the last mail's key is remembered to delete the
// mail once sent; a mail still not sent by then has failed for good.
const farewellKept = 7 * 24 * time.Hour

// eraseSentFarewells deletes the last mails of deleted accounts that have
// gone out (or been given up), and forgets them; the store holds the last
// few days' deletions, so reading them whole is cheap.
func (s *Service) eraseSentFarewells(ctx context.Context, now time.Time) error {
	pending, err := s.st.Erasures.Farewells(ctx)
	if err != nil {
		return fmt.Errorf("find last mails: %w", err)
	}
	for _, f := range pending {
		gone, err := s.o.Mail.Erase(ctx, f.Key)
		if err != nil {
			return err
		}
		if gone || now.Sub(f.At) > farewellKept {
			if err := s.st.Erasures.Forget(ctx, f.Key); err != nil {
				return fmt.Errorf("forget last mail: %w", err)
			}
		}
	}
	return nil
}

// Sweep deletes what has run its time: expired exports with their parts
// and keys, expired download keys, the last mails of deleted accounts once
// sent, the receipts of deleted accounts past the tax period, and Meta's
// deletion requests past their status period.
func (s *Service) Sweep(ctx context.Context) error {
	now := s.now()
	// An export or key stops working at its expiry (Download), so it goes
	// at that moment too.
	if err := s.st.Exports.DeleteExpired(ctx, now); err != nil {
		return fmt.Errorf("delete expired exports: %w", err)
	}
	if err := s.eraseSentFarewells(ctx, now); err != nil {
		return err
	}
	if _, err := s.ResumeErasures(ctx); err != nil {
		return err
	}
	if _, err := s.o.Billing.PurgeRetained(ctx); err != nil {
		return err
	}
	if err := s.st.InstagramDeletions.DeleteExpired(ctx, now); err != nil {
		return fmt.Errorf("delete expired deletion requests: %w", err)
	}
	return nil
}
