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

	"glimpse/engine"
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

// Check is a person's stored breach check. The address is kept only as a
// SHA-256, enough to notice that the person changed it and must be checked
// afresh.
type Check struct {
	UserID    string
	EmailHash string
	Names     []string
	// CheckedAt is when the provider answered; zero before the first
	// answer.
	CheckedAt time.Time
	Sample    bool
	// LookupAt is when the last lookup began that has not stored a result
	// (it is running, failed or died): a new one waits
	// Limits.RetryInterval after it. Zero when none.
	LookupAt time.Time
}

// Records is what the breach service needs from storage: the catalogue and
// each person's last check.
type Records interface {
	// SyncCatalogue stores every breach by Name, marked as from the sample
	// or not, and deletes the stored entries of the other source.
	SyncCatalogue(ctx context.Context, breaches []Breach, sample bool) error
	// Catalogued returns the stored entries with these names, by name.
	Catalogued(ctx context.Context, names []string) (map[string]Breach, error)
	// Check returns the person's stored check; ok is false when there is
	// none.
	Check(ctx context.Context, userID string) (c Check, ok bool, err error)
	// BeginLookup sets the person's LookupAt to now unless a lookup began
	// after since, and says whether it did: of lookups begun together, one
	// wins.
	BeginLookup(ctx context.Context, userID string, now, since time.Time) (bool, error)
	// PutResult stores a lookup's result, LookupAt cleared.
	PutResult(ctx context.Context, c Check) error
	// DeleteCheck deletes the person's check (erasure).
	DeleteCheck(ctx context.Context, userID string) error
}

// Service checks people's addresses and keeps the breach catalogue.
type Service struct {
	records  Records
	provider Provider
	clock    engine.Clock
	logger   *slog.Logger
	limits   Limits

	mu        sync.RWMutex
	catalogue map[string]Breach // by Name; filled by SyncCatalogue
}

// NewService returns a Service over records. provider is a *Client when an
// HIBP key is configured and a *LocalProvider otherwise.
func NewService(records Records, provider Provider, clock engine.Clock, logger *slog.Logger, limits Limits) *Service {
	return &Service{
		records: records, provider: provider, clock: clock, logger: logger, limits: limits.withDefaults(),
		catalogue: map[string]Breach{},
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
	for _, b := range list {
		if b.Name == "" {
			return errors.New("sync breach catalogue: a breach has no Name")
		}
		if _, dup := byName[b.Name]; dup {
			return fmt.Errorf("sync breach catalogue: breach %q appears twice", b.Name)
		}
		byName[b.Name] = b
	}
	if err := s.records.SyncCatalogue(ctx, list, s.provider.Sample()); err != nil {
		return fmt.Errorf("sync breach catalogue: %w", err)
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
	c, err := s.load(ctx, userID)
	if err != nil {
		return Result{}, false, err
	}
	if !s.current(c, email) {
		return Result{}, false, nil
	}
	r, err := s.result(ctx, c)
	return r, err == nil, err
}

// Check returns the person's breach check. A stored result for the same
// address is returned as is, unless force asks for a fresh one, which is
// allowed once per Limits.RecheckInterval. A clean address (HIBP's 404) is
// stored as a result with no breaches. A failed lookup stores no result and
// returns an *engine.Error: CodeRateLimited with MessageTryLater for a rate
// limit (ours or HIBP's), otherwise MessageSomethingWent; errors.Is still
// finds ErrRateLimited and the other sentinels in it.
//
// A lookup is begun in storage before the provider is called
// (Records.BeginLookup): of the same person's lookups sent together only
// one reaches the provider, and after a failed one the person waits
// Limits.RetryInterval.
func (s *Service) Check(ctx context.Context, userID, email string, force bool) (Result, error) {
	c, err := s.load(ctx, userID)
	if err != nil {
		return Result{}, err
	}
	now := s.clock.Now()
	if s.current(c, email) {
		if !force {
			return s.result(ctx, c)
		}
		if next := c.CheckedAt.Add(s.limits.RecheckInterval); now.Before(next) {
			return Result{}, engine.Errorf(engine.CodeRateLimited, MessageTryLater)
		}
	}
	began, err := s.records.BeginLookup(ctx, userID, now, now.Add(-s.limits.RetryInterval))
	if err != nil {
		return Result{}, fmt.Errorf("begin breach check: %w", err)
	}
	if !began {
		return Result{}, engine.Errorf(engine.CodeRateLimited, MessageTryLater)
	}
	// A lookup that ended between our read and our begin (its result
	// stored, its begin cleared) let ours begin: its answer is the one we
	// would fetch, so it is returned, and the provider is asked once.
	if fresh, err := s.load(ctx, userID); err != nil {
		return Result{}, err
	} else if s.current(fresh, email) && fresh.CheckedAt.After(c.CheckedAt) {
		fresh.LookupAt = time.Time{}
		if err := s.records.PutResult(ctx, fresh); err != nil {
			return Result{}, fmt.Errorf("store breach check: %w", err)
		}
		return s.result(ctx, fresh)
	}

	names, err := s.provider.BreachedAccount(ctx, email)
	if err != nil {
		return Result{}, s.appError(userID, err)
	}
	c = Check{UserID: userID, EmailHash: engine.HashToken(normaliseEmail(email)), Names: names,
		CheckedAt: now, Sample: s.provider.Sample()}
	if err := s.records.PutResult(ctx, c); err != nil {
		return Result{}, fmt.Errorf("store breach check: %w", err)
	}
	return s.result(ctx, c)
}

// OfUser returns the person's stored check, if any (the data export).
func (s *Service) OfUser(ctx context.Context, userID string) (Check, bool, error) {
	c, ok, err := s.records.Check(ctx, userID)
	if err != nil {
		return Check{}, false, fmt.Errorf("load breach check: %w", err)
	}
	return c, ok, nil
}

// EraseUser deletes the person's check (account deletion).
func (s *Service) EraseUser(ctx context.Context, userID string) error {
	if err := s.records.DeleteCheck(ctx, userID); err != nil {
		return fmt.Errorf("erase breach check of %s: %w", userID, err)
	}
	return nil
}

// load returns the person's stored check, or a zero Check.
func (s *Service) load(ctx context.Context, userID string) (Check, error) {
	c, _, err := s.records.Check(ctx, userID)
	if err != nil {
		return Check{}, fmt.Errorf("load breach check: %w", err)
	}
	return c, nil
}

// current reports whether c holds a result for email from this provider.
func (s *Service) current(c Check, email string) bool {
	return !c.CheckedAt.IsZero() &&
		c.EmailHash == engine.HashToken(normaliseEmail(email)) &&
		c.Sample == s.provider.Sample()
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
func (s *Service) result(ctx context.Context, c Check) (Result, error) {
	breaches, err := s.details(ctx, c.Names)
	if err != nil {
		return Result{}, err
	}
	return Result{
		CheckedAt: c.CheckedAt, Breaches: breaches, Sample: c.Sample,
		RecheckAt: c.CheckedAt.Add(s.limits.RecheckInterval),
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
	out, err := s.records.Catalogued(ctx, names)
	if err != nil {
		return nil, fmt.Errorf("read breach catalogue: %w", err)
	}
	return out, nil
}
