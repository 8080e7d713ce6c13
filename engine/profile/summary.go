package profile

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"glimpse/engine"
	"glimpse/engine/analysis"
)

// SummaryTTL is how long a summary is reused without reading the profile
// again. Writes made through this Service drop the user's summary at once;
// a write made by another instance on the same database (its refresh job,
// or the subscriber's upload served there) shows within SummaryTTL. It is
// the bound the session cache already gives a sign-out elsewhere
// (engine/auth), and short enough that a subscriber who analysed on one
// instance and opens the dashboard on another hardly ever sees the old card.
const SummaryTTL = 5 * time.Second

// summarySweepAt is the cache size above which a put first drops expired
// entries, so the map cannot grow without bound.
const summarySweepAt = 10000

// Summary is what the dashboard shows of a profile: the insights status and
// the latest engagement figures, without the lists and posts a full Get
// decodes.
type Summary struct {
	Status string
	// Engagement is the latest analysis's; nil before the first one.
	Engagement *analysis.Engagement
}

// summaries keeps each user's Summary for SummaryTTL, so that the dashboard,
// the hot path measured under load, needs no database round trip per
// request. Why a per-user cache with a TTL and not a stamp read with the
// session: the profile lives in its own collection, written by the refresh
// job of whichever instance holds the lease, and nothing the request already
// reads (the session, the user) changes when it does; a TTL is the one bound
// that holds across instances without a read per request.
type summaries struct {
	clock engine.Clock
	mu    sync.RWMutex
	m     map[string]summaryEntry
}

type summaryEntry struct {
	s       Summary
	expires time.Time
}

func (c *summaries) get(userID string) (Summary, bool) {
	c.mu.RLock()
	e, ok := c.m[userID]
	c.mu.RUnlock()
	if !ok || !c.clock.Now().Before(e.expires) {
		return Summary{}, false
	}
	return e.s, true
}

func (c *summaries) put(userID string, s Summary) {
	now := c.clock.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) > summarySweepAt {
		for k, e := range c.m {
			if !now.Before(e.expires) {
				delete(c.m, k)
			}
		}
	}
	c.m[userID] = summaryEntry{s: s, expires: now.Add(SummaryTTL)}
}

func (c *summaries) drop(userID string) {
	c.mu.Lock()
	delete(c.m, userID)
	c.mu.Unlock()
}

// Summary returns a user's status and latest engagement, reused for
// SummaryTTL (see summaries). A user with no profile is idle.
func (s *Service) Summary(ctx context.Context, userID string) (Summary, error) {
	if sum, ok := s.summaries.get(userID); ok {
		return sum, nil
	}
	var doc struct {
		Status string `bson:"status"`
		Result *struct {
			Engagement analysis.Engagement `bson:"engagement"`
		} `bson:"result"`
	}
	// Only the two fields: a result holds up to a hundred usernames per
	// audience group, which the dashboard never shows.
	err := s.db.Collection(ProfilesCollection).FindOne(ctx, bson.M{"_id": userID},
		options.FindOne().SetProjection(bson.M{"status": 1, "result.engagement": 1})).Decode(&doc)
	sum := Summary{Status: StatusIdle}
	switch {
	case errors.Is(err, mongo.ErrNoDocuments):
	case err != nil:
		return Summary{}, fmt.Errorf("get profile summary: %w", err)
	default:
		sum.Status = doc.Status
		if doc.Result != nil {
			sum.Engagement = &doc.Result.Engagement
		}
	}
	s.summaries.put(userID, sum)
	return sum, nil
}
