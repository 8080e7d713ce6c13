package breach

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"glimpse/engine"
)

// Collection names owned by breach.
const (
	// CatalogueCollection holds HIBP's breach catalogue, _id = Breach.Name.
	CatalogueCollection = "breach_catalogue"
	// ChecksCollection holds each person's last result, _id = user id.
	ChecksCollection = "breach_checks"
)

// The messages shown for a failed check, as the issue words them.
const (
	MessageTryLater      = "Please try again later."
	MessageSomethingWent = "Something went wrong. Please try again later."
)

// Limits bound how much of the API key's quota one person can spend. The
// key's own limit is enforced by Client's limiter across everyone.
type Limits struct {
	// RecheckInterval is how long after a successful check a person may
	// force another; one hour when zero.
	RecheckInterval time.Duration
	// RetryInterval is how long after a failed lookup the same person may
	// try again, so reloading the screen during an outage does not call
	// HIBP each time; 30 seconds when zero.
	RetryInterval time.Duration
}

func (l Limits) withDefaults() Limits {
	if l.RecheckInterval <= 0 {
		l.RecheckInterval = time.Hour
	}
	if l.RetryInterval <= 0 {
		l.RetryInterval = 30 * time.Second
	}
	return l
}

// Result is a person's breach check.
type Result struct {
	// CheckedAt is when the provider answered.
	CheckedAt time.Time
	// Breaches are the breaches the address appears in, newest BreachDate
	// first, with details from the catalogue. Empty means "No breached
	// accounts". A name the catalogue lacks has Title = Name.
	Breaches []Breach
	// Sample reports that the answer came from the local sample dataset.
	Sample bool
	// RecheckAt is the earliest time a forced check is allowed.
	RecheckAt time.Time
}

// checkDoc is a stored check. The address is kept only as a SHA-256, enough
// to notice that the person changed it and must be checked afresh.
type checkDoc struct {
	UserID    string    `bson:"_id"`
	EmailHash string    `bson:"emailHash,omitempty"`
	Names     []string  `bson:"names,omitempty"`
	CheckedAt time.Time `bson:"checkedAt,omitempty"`
	Sample    bool      `bson:"sample"`
	// FailedAt is the last failed lookup, for Limits.RetryInterval.
	FailedAt time.Time `bson:"failedAt,omitempty"`
}

// catalogueDoc is a stored catalogue entry. Sample marks entries from the
// local dataset, so switching to HIBP removes them.
type catalogueDoc struct {
	Breach `bson:",inline"`
	Sample bool `bson:"sample"`
}

// Service checks people's addresses and keeps the breach catalogue.
type Service struct {
	db       *mongo.Database
	provider Provider
	clock    engine.Clock
	logger   *slog.Logger
	limits   Limits

	mu        sync.RWMutex
	catalogue map[string]Breach // by Name; filled by SyncCatalogue
}

// NewService returns a Service over db. provider is a *Client when an HIBP
// key is configured and a *LocalProvider otherwise.
func NewService(db *mongo.Database, provider Provider, clock engine.Clock, logger *slog.Logger, limits Limits) *Service {
	return &Service{
		db: db, provider: provider, clock: clock, logger: logger, limits: limits.withDefaults(),
		catalogue: map[string]Breach{},
	}
}

// Collections lists the collections breach uses with their indexes, for the
// store to create at start. Every lookup is by _id.
func Collections() map[string][]mongo.IndexModel {
	return map[string][]mongo.IndexModel{
		CatalogueCollection: nil,
		ChecksCollection:    nil,
	}
}

// Sample reports whether results come from the local sample dataset.
func (s *Service) Sample() bool { return s.provider.Sample() }

// SyncCatalogue fetches the whole catalogue and upserts every breach by Name,
// then replaces the in-memory copy. A per-person lookup then needs only
// names. Running it again changes nothing unless HIBP did. It refuses a
// catalogue with a missing or repeated Name, which would make the join
// ambiguous, without writing anything.
func (s *Service) SyncCatalogue(ctx context.Context) error {
	list, err := s.provider.Catalogue(ctx)
	if err != nil {
		return fmt.Errorf("sync breach catalogue: %w", err)
	}
	byName := make(map[string]Breach, len(list))
	models := make([]mongo.WriteModel, 0, len(list))
	sample := s.provider.Sample()
	for _, b := range list {
		if b.Name == "" {
			return errors.New("sync breach catalogue: a breach has no Name")
		}
		if _, dup := byName[b.Name]; dup {
			return fmt.Errorf("sync breach catalogue: breach %q appears twice", b.Name)
		}
		byName[b.Name] = b
		models = append(models, mongo.NewReplaceOneModel().
			SetFilter(bson.D{{Key: "_id", Value: b.Name}}).
			SetReplacement(catalogueDoc{Breach: b, Sample: sample}).
			SetUpsert(true))
	}
	coll := s.db.Collection(CatalogueCollection)
	if len(models) > 0 {
		if _, err := coll.BulkWrite(ctx, models, options.BulkWrite().SetOrdered(false)); err != nil {
			return fmt.Errorf("sync breach catalogue: write: %w", err)
		}
	}
	if _, err := coll.DeleteMany(ctx, bson.D{{Key: "sample", Value: bson.D{{Key: "$ne", Value: sample}}}}); err != nil {
		return fmt.Errorf("sync breach catalogue: remove the other source's entries: %w", err)
	}
	s.mu.Lock()
	s.catalogue = byName
	s.mu.Unlock()
	return nil
}

// RunCatalogueSync syncs the catalogue now and then every interval (one hour
// when zero or less) until ctx ends. A failed sync is logged and retried at
// the next tick; lookups fall back to the stored catalogue meanwhile. HIBP's
// catalogue changes a few times a week; Mozilla Monitor polls it every 10
// minutes.
func (s *Service) RunCatalogueSync(ctx context.Context, every time.Duration) {
	if every <= 0 {
		every = time.Hour
	}
	sync := func(ctx context.Context) {
		if err := s.SyncCatalogue(ctx); err != nil && ctx.Err() == nil {
			s.logger.Warn("breach catalogue sync failed", slog.Any("err", err))
		}
	}
	sync(ctx)
	engine.Every(ctx, every, sync)
}

// Cached returns the stored result for the person without calling the
// provider. ok is false when there is none, when it was for another address
// or when it came from the other provider (sample versus HIBP).
func (s *Service) Cached(ctx context.Context, userID, email string) (Result, bool, error) {
	doc, err := s.load(ctx, userID)
	if err != nil {
		return Result{}, false, err
	}
	if !s.current(doc, email) {
		return Result{}, false, nil
	}
	r, err := s.result(ctx, doc)
	return r, err == nil, err
}

// Check returns the person's breach check. A stored result for the same
// address is returned as is, unless force asks for a fresh one, which is
// allowed once per Limits.RecheckInterval. A clean address (HIBP's 404) is
// stored as a result with no breaches. A failed lookup stores no result and
// returns an *engine.Error: CodeRateLimited with MessageTryLater for a rate
// limit (ours or HIBP's), otherwise MessageSomethingWent; errors.Is still
// finds ErrRateLimited and the other sentinels in it.
func (s *Service) Check(ctx context.Context, userID, email string, force bool) (Result, error) {
	doc, err := s.load(ctx, userID)
	if err != nil {
		return Result{}, err
	}
	now := s.clock.Now()
	if s.current(doc, email) {
		if !force {
			return s.result(ctx, doc)
		}
		if next := doc.CheckedAt.Add(s.limits.RecheckInterval); now.Before(next) {
			return Result{}, engine.Errorf(engine.CodeRateLimited, MessageTryLater)
		}
	}
	if !doc.FailedAt.IsZero() && now.Before(doc.FailedAt.Add(s.limits.RetryInterval)) {
		return Result{}, engine.Errorf(engine.CodeRateLimited, MessageTryLater)
	}

	names, err := s.provider.BreachedAccount(ctx, email)
	if err != nil {
		s.recordFailure(ctx, userID, now)
		return Result{}, s.appError(userID, err)
	}
	doc = checkDoc{
		UserID: userID, EmailHash: engine.HashToken(normaliseEmail(email)), Names: names,
		CheckedAt: now, Sample: s.provider.Sample(),
	}
	update := bson.D{
		{Key: "$set", Value: bson.D{
			{Key: "emailHash", Value: doc.EmailHash}, {Key: "names", Value: names},
			{Key: "checkedAt", Value: now}, {Key: "sample", Value: doc.Sample},
		}},
		{Key: "$unset", Value: bson.D{{Key: "failedAt", Value: ""}}},
	}
	_, err = s.db.Collection(ChecksCollection).UpdateOne(ctx, bson.D{{Key: "_id", Value: userID}}, update, options.UpdateOne().SetUpsert(true))
	if err != nil {
		return Result{}, fmt.Errorf("store breach check: %w", err)
	}
	return s.result(ctx, doc)
}

// load returns the person's stored check, or a zero checkDoc.
func (s *Service) load(ctx context.Context, userID string) (checkDoc, error) {
	var doc checkDoc
	err := s.db.Collection(ChecksCollection).FindOne(ctx, bson.D{{Key: "_id", Value: userID}}).Decode(&doc)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return checkDoc{}, nil
	}
	if err != nil {
		return checkDoc{}, fmt.Errorf("load breach check: %w", err)
	}
	return doc, nil
}

// current reports whether doc holds a result for email from this provider.
func (s *Service) current(doc checkDoc, email string) bool {
	return !doc.CheckedAt.IsZero() &&
		doc.EmailHash == engine.HashToken(normaliseEmail(email)) &&
		doc.Sample == s.provider.Sample()
}

// recordFailure notes a failed lookup for Limits.RetryInterval. Failing to
// note it only loosens that limit, so it is logged, not returned.
func (s *Service) recordFailure(ctx context.Context, userID string, now time.Time) {
	update := bson.D{{Key: "$set", Value: bson.D{{Key: "failedAt", Value: now}}}}
	_, err := s.db.Collection(ChecksCollection).UpdateOne(ctx, bson.D{{Key: "_id", Value: userID}}, update, options.UpdateOne().SetUpsert(true))
	if err != nil {
		s.logger.Warn("record breach check failure", slog.String("user", userID), slog.Any("err", err))
	}
}

// appError turns a provider error into the *engine.Error the app shows, and
// logs it. A misconfiguration is logged as an error: only the operator can
// fix it.
func (s *Service) appError(userID string, err error) error {
	attrs := []any{slog.String("user", userID), slog.Any("err", err)}
	switch {
	case errors.Is(err, ErrRateLimited):
		s.logger.Info("breach check rate limited", attrs...)
		return engine.Wrap(engine.CodeRateLimited, err, MessageTryLater)
	case errors.Is(err, ErrMisconfigured):
		s.logger.Error("breach check misconfigured", attrs...)
		return engine.Wrap(engine.CodeInternal, err, MessageSomethingWent)
	case errors.Is(err, ErrInvalidAccount):
		s.logger.Warn("breach check refused the address", attrs...)
		return engine.Wrap(engine.CodeInvalid, err, MessageSomethingWent)
	default:
		s.logger.Warn("breach check failed", attrs...)
		return engine.Wrap(engine.CodeUnavailable, err, MessageSomethingWent)
	}
}

// result joins a stored check with the catalogue.
func (s *Service) result(ctx context.Context, doc checkDoc) (Result, error) {
	breaches, err := s.details(ctx, doc.Names)
	if err != nil {
		return Result{}, err
	}
	return Result{
		CheckedAt: doc.CheckedAt, Breaches: breaches, Sample: doc.Sample,
		RecheckAt: doc.CheckedAt.Add(s.limits.RecheckInterval),
	}, nil
}

// details returns the catalogue entries for names, newest BreachDate first.
// Names the in-memory catalogue lacks (not synced yet on this instance, or
// synced elsewhere) are read from the database; names missing there too are
// shown by name.
func (s *Service) details(ctx context.Context, names []string) ([]Breach, error) {
	out := make([]Breach, 0, len(names))
	var missing []string
	s.mu.RLock()
	for _, name := range names {
		if b, ok := s.catalogue[name]; ok {
			b.DataClasses = slices.Clone(b.DataClasses) // the map's copy is shared
			out = append(out, b)
		} else {
			missing = append(missing, name)
		}
	}
	s.mu.RUnlock()
	if len(missing) > 0 {
		stored, err := s.stored(ctx, missing)
		if err != nil {
			return nil, err
		}
		for _, name := range missing {
			b, ok := stored[name]
			if !ok {
				b = Breach{Name: name, Title: name}
			}
			out = append(out, b)
		}
	}
	slices.SortStableFunc(out, func(a, b Breach) int {
		return cmp.Or(cmp.Compare(b.BreachDate, a.BreachDate), cmp.Compare(a.Title, b.Title))
	})
	return out, nil
}

// stored reads catalogue entries by name from the database.
func (s *Service) stored(ctx context.Context, names []string) (map[string]Breach, error) {
	cur, err := s.db.Collection(CatalogueCollection).Find(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: names}}}})
	if err != nil {
		return nil, fmt.Errorf("read breach catalogue: %w", err)
	}
	var docs []catalogueDoc
	if err := cur.All(ctx, &docs); err != nil {
		return nil, fmt.Errorf("read breach catalogue: %w", err)
	}
	out := make(map[string]Breach, len(docs))
	for _, d := range docs {
		out[d.Name] = d.Breach
	}
	return out, nil
}
