package profile

import (
	"context"
	"fmt"
	"time"

	"glimpse/engine/analysis"
)

// SummaryTTL is how long a summary is reused without reading the profile
// again. Writes made through this Service drop the user's summary at once;
// a write made by another instance on the same database (its refresh job,
// or the subscriber's upload served there) shows within SummaryTTL. It is
// the bound the session cache already gives a sign-out elsewhere
// (engine/auth), and short enough that a subscriber who analysed on one
// instance and opens the dashboard on another hardly ever sees the old card.
//
// Why a per-user cache with a TTL and not a stamp read with the session: the
// profile lives in its own collection, written by the refresh job of
// whichever instance holds the lease, and nothing the request already reads
// (the session, the user) changes when it does; a TTL is the one bound that
// holds across instances without a read per request.
const SummaryTTL = 5 * time.Second

// Summary is what the dashboard shows of a profile: the insights status and
// the latest engagement figures, without the lists and posts a full Get
// decodes.
type Summary struct {
	Status string
	// Engagement is the latest analysis's; nil before the first one.
	Engagement *analysis.Engagement
}

// Summary returns a user's status and latest engagement, reused for
// SummaryTTL (see summaries). A user with no profile is idle.
func (s *Service) Summary(ctx context.Context, userID string) (Summary, error) {
	// Callers that miss together (every request in flight for one user when
	// the entry expires) share one read.
	return s.summaries.Load(ctx, userID, func(ctx context.Context) (Summary, error) {
		// Only the two fields: a result holds up to a hundred usernames per
		// audience group, which the dashboard never shows.
		sum, found, err := s.profiles.Summary(ctx, userID)
		if err != nil {
			return Summary{}, fmt.Errorf("get profile summary: %w", err)
		}
		if !found {
			return Summary{Status: StatusIdle}, nil
		}
		return sum, nil
	})
}
