package breach_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"glimpse/engine"
	"glimpse/engine/breach"
	"glimpse/engine/store/sqlite"
	"glimpse/engine/store/sqlstore"
	"glimpse/engine/store/storetest"
)

var start = time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)

var discard = slog.New(slog.NewTextHandler(io.Discard, nil))

// fakeProvider answers what it is told and counts lookups.
type fakeProvider struct {
	mu        sync.Mutex
	calls     int
	names     []string
	err       error
	catalogue []breach.Breach
	sample    bool
}

func (p *fakeProvider) BreachedAccount(ctx context.Context, email string) ([]string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls++
	return p.names, p.err
}

func (p *fakeProvider) Catalogue(ctx context.Context) ([]breach.Breach, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.catalogue, p.err
}

func (p *fakeProvider) Sample() bool { return p.sample }

func (p *fakeProvider) set(names []string, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.names, p.err = names, err
}

func (p *fakeProvider) callCount() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.calls
}

var (
	older  = breach.Breach{Name: "Older", Title: "Older Site", Domain: "older.example", BreachDate: "2016-09-12", DataClasses: []string{"Email addresses"}}
	newer  = breach.Breach{Name: "Newer", Title: "Newer Site", Domain: "newer.example", BreachDate: "2024-03-09", DataClasses: []string{"Passwords"}}
	middle = breach.Breach{Name: "Middle", Title: "Middle Site", Domain: "middle.example", BreachDate: "2020-06-17"}
)

func openDB(t *testing.T) *sqlite.DB {
	t.Helper()
	return storetest.OpenSQL(t)
}

// rows returns the rows of a table as text.
func rows(t *testing.T, db *sqlite.DB, table string) []string {
	t.Helper()
	out, err := db.RowsText(context.Background(), table)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func newService(t *testing.T, p breach.Provider) (*breach.Service, *engine.ManualClock, *sqlite.DB) {
	t.Helper()
	db := openDB(t)
	clock := engine.NewManualClock(start)
	svc := breach.NewService(sqlstore.NewBreachRecords(db), p, clock, discard, breach.Limits{})
	if err := svc.SyncCatalogue(context.Background()); err != nil {
		t.Fatal(err)
	}
	return svc, clock, db
}

// wantError checks err is an *engine.Error with code and message.
func wantError(t *testing.T, err error, code engine.Code, message string) {
	t.Helper()
	var e *engine.Error
	if !errors.As(err, &e) || e.Code != code || e.Message != message {
		t.Fatalf("error %v, want %s %q", err, code, message)
	}
}

func TestCheckCachesAndLimitsRechecks(t *testing.T) {
	t.Parallel()
	p := &fakeProvider{names: []string{"Older", "Unknown", "Newer", "Middle"}, catalogue: []breach.Breach{older, newer, middle}}
	svc, clock, _ := newService(t, p)
	ctx := context.Background()

	want := breach.Result{
		CheckedAt: start,
		// Newest first; a name missing from the catalogue is shown by name, last.
		Breaches:  []breach.Breach{newer, middle, older, {Name: "Unknown", Title: "Unknown"}},
		RecheckAt: start.Add(time.Hour),
	}
	got, err := svc.Check(ctx, "u1", "ann@example.com", false)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("first check (-want +got):\n%s", diff)
	}

	clock.Advance(3 * 24 * time.Hour)
	got, err = svc.Check(ctx, "u1", " ANN@example.com", false)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("next visit (-want +got):\n%s", diff)
	}
	cached, ok, err := svc.Cached(ctx, "u1", "ann@example.com")
	if err != nil || !ok {
		t.Fatalf("Cached: ok %v, %v", ok, err)
	}
	if diff := cmp.Diff(want, cached); diff != "" {
		t.Errorf("Cached (-want +got):\n%s", diff)
	}
	if p.callCount() != 1 {
		t.Fatalf("provider called %d times, want 1: a stored result is not fetched again", p.callCount())
	}

	// Three days after the check, a forced check is allowed; right after it,
	// another is not.
	p.set([]string{"Older"}, nil)
	got, err = svc.Check(ctx, "u1", "ann@example.com", true)
	if err != nil {
		t.Fatal(err)
	}
	checked := start.Add(3 * 24 * time.Hour)
	want = breach.Result{CheckedAt: checked, Breaches: []breach.Breach{older}, RecheckAt: checked.Add(time.Hour)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("forced check (-want +got):\n%s", diff)
	}
	clock.Advance(59 * time.Minute)
	_, err = svc.Check(ctx, "u1", "ann@example.com", true)
	wantError(t, err, engine.CodeRateLimited, breach.MessageTryLater)
	if p.callCount() != 2 {
		t.Fatalf("provider called %d times, want 2", p.callCount())
	}
	clock.Advance(time.Minute)
	if _, err := svc.Check(ctx, "u1", "ann@example.com", true); err != nil {
		t.Fatalf("forced check an hour later: %v", err)
	}
	if p.callCount() != 3 {
		t.Errorf("provider called %d times, want 3", p.callCount())
	}
}

func TestCheckStoresCleanAddress(t *testing.T) {
	t.Parallel()
	p := &fakeProvider{names: []string{}, catalogue: []breach.Breach{older}}
	svc, _, db := newService(t, p)
	ctx := context.Background()
	for range 2 {
		got, err := svc.Check(ctx, "u1", "clean@example.com", false)
		if err != nil {
			t.Fatal(err)
		}
		want := breach.Result{CheckedAt: start, Breaches: []breach.Breach{}, RecheckAt: start.Add(time.Hour)}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("clean result (-want +got):\n%s", diff)
		}
	}
	if p.callCount() != 1 {
		t.Errorf("provider called %d times, want 1", p.callCount())
	}

	// Only a hash of the address is stored.
	stored := rows(t, db, "breach_checks")
	if len(stored) != 1 || strings.Contains(stored[0], "clean@example.com") || !strings.Contains(stored[0], engine.HashToken("clean@example.com")) {
		t.Errorf("stored check %q: want the address's hash, not the address", stored)
	}
}

func TestCheckFailuresStoreNothing(t *testing.T) {
	t.Parallel()
	p := &fakeProvider{catalogue: []breach.Breach{older}}
	svc, clock, _ := newService(t, p)
	ctx := context.Background()

	cases := []struct {
		name        string
		err         error
		wantCode    engine.Code
		wantMessage string
	}{
		{"HIBP 429", &breach.RateLimitedError{RetryAfter: 3 * time.Second}, engine.CodeRateLimited, breach.MessageTryLater},
		{"HIBP 503", fmt.Errorf("hibp breached account: %w: HIBP answered 503", breach.ErrUnavailable), engine.CodeUnavailable, breach.MessageSomethingWent},
		{"unclassified failure", errors.New("connection reset"), engine.CodeUnavailable, breach.MessageSomethingWent},
		{"bad key", breach.ErrMisconfigured, engine.CodeInternal, breach.MessageSomethingWent},
		{"bad address", breach.ErrInvalidAccount, engine.CodeInvalid, breach.MessageSomethingWent},
	}
	for _, tc := range cases { // sequential: they share the person and the clock
		p.set(nil, tc.err)
		_, err := svc.Check(ctx, "u1", "ann@example.com", false)
		wantError(t, err, tc.wantCode, tc.wantMessage)
		if !errors.Is(err, tc.err) {
			t.Errorf("%s: the cause %v is not in %v", tc.name, tc.err, err)
		}
		if _, ok, err := svc.Cached(ctx, "u1", "ann@example.com"); ok || err != nil {
			t.Errorf("%s: a failure left a result (ok %v, %v)", tc.name, ok, err)
		}
		// Straight after a failure the person must wait, without a call.
		calls := p.callCount()
		_, err = svc.Check(ctx, "u1", "ann@example.com", false)
		wantError(t, err, engine.CodeRateLimited, breach.MessageTryLater)
		if p.callCount() != calls {
			t.Errorf("%s: a retry inside the retry interval reached the provider", tc.name)
		}
		clock.Advance(30 * time.Second)
	}

	var rl *breach.RateLimitedError
	p.set(nil, &breach.RateLimitedError{RetryAfter: 3 * time.Second})
	if _, err := svc.Check(ctx, "u1", "ann@example.com", false); !errors.As(err, &rl) || rl.RetryAfter != 3*time.Second {
		t.Errorf("the RateLimitedError is not reachable in %v", err)
	}
	clock.Advance(30 * time.Second)

	p.set([]string{"Older"}, nil)
	got, err := svc.Check(ctx, "u1", "ann@example.com", false)
	if err != nil {
		t.Fatalf("after the failures: %v", err)
	}
	if len(got.Breaches) != 1 || !got.CheckedAt.Equal(clock.Now()) {
		t.Errorf("after the failures: %+v", got)
	}
}

func TestCheckAgainAfterEmailChange(t *testing.T) {
	t.Parallel()
	p := &fakeProvider{names: []string{"Older"}, catalogue: []breach.Breach{older}}
	svc, _, _ := newService(t, p)
	ctx := context.Background()
	if _, err := svc.Check(ctx, "u1", "old@example.com", false); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := svc.Cached(ctx, "u1", "new@example.com"); ok {
		t.Error("a result for the old address served the new one")
	}
	p.set([]string{}, nil)
	// Not forced, and straight after the last check: a new address is a
	// first check, not a recheck.
	got, err := svc.Check(ctx, "u1", "new@example.com", false)
	if err != nil || len(got.Breaches) != 0 || p.callCount() != 2 {
		t.Errorf("new address: %+v, %v, %d calls", got, err, p.callCount())
	}
	if _, ok, _ := svc.Cached(ctx, "u1", "old@example.com"); ok {
		t.Error("the old address's result is still served")
	}
}

func TestSyncCatalogue(t *testing.T) {
	t.Parallel()
	p := &fakeProvider{names: []string{"Older", "Newer"}, catalogue: []breach.Breach{older, newer}, sample: true}
	svc, _, db := newService(t, p)
	ctx := context.Background()
	if err := svc.SyncCatalogue(ctx); err != nil { // again: idempotent
		t.Fatal(err)
	}
	records := sqlstore.NewBreachRecords(db)
	if n := len(rows(t, db, "breach_catalogue")); n != 2 {
		t.Fatalf("%d stored breaches; want 2", n)
	}
	stored, err := records.Catalogued(ctx, []string{"Newer"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(newer, stored["Newer"]); diff != "" {
		t.Errorf("stored breach (-want +got):\n%s", diff)
	}
	if _, err := svc.Check(ctx, "u1", "ann@example.com", false); err != nil {
		t.Fatal(err)
	}

	// Another instance that has not synced reads details from the database.
	other := breach.NewService(records, p, engine.NewManualClock(start), discard, breach.Limits{})
	got, err := other.Check(ctx, "u1", "ann@example.com", false)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]breach.Breach{newer, older}, got.Breaches); diff != "" {
		t.Errorf("details from the database (-want +got):\n%s", diff)
	}

	// A renamed title is updated in place.
	renamed := newer
	renamed.Title = "Newer Site (renamed)"
	p.catalogue = []breach.Breach{older, renamed}
	if err := svc.SyncCatalogue(ctx); err != nil {
		t.Fatal(err)
	}
	got, err = svc.Check(ctx, "u1", "ann@example.com", false)
	if err != nil || got.Breaches[0].Title != "Newer Site (renamed)" {
		t.Errorf("after a rename: %+v, %v", got.Breaches, err)
	}

	// Switching from the sample to HIBP drops the sample entries and the
	// sample result.
	real := &fakeProvider{names: []string{"Middle"}, catalogue: []breach.Breach{middle}}
	switched := breach.NewService(records, real, engine.NewManualClock(start), discard, breach.Limits{})
	if err := switched.SyncCatalogue(ctx); err != nil {
		t.Fatal(err)
	}
	if n := len(rows(t, db, "breach_catalogue")); n != 1 {
		t.Errorf("%d stored breaches after the switch; want 1", n)
	}
	if _, ok, _ := switched.Cached(ctx, "u1", "ann@example.com"); ok {
		t.Error("a sample result is served once HIBP is configured")
	}
}

func TestSyncCatalogueRefusesDuplicates(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	p := &fakeProvider{catalogue: []breach.Breach{older, newer, older}}
	svc := breach.NewService(sqlstore.NewBreachRecords(db), p, engine.NewManualClock(start), discard, breach.Limits{})
	if err := svc.SyncCatalogue(context.Background()); err == nil {
		t.Fatal("a catalogue with a repeated name was accepted")
	}
	if n := len(rows(t, db, "breach_catalogue")); n != 0 {
		t.Errorf("%d breaches written from a refused catalogue", n)
	}
}

func TestRunCatalogueSyncStopsWithContext(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	p := &fakeProvider{catalogue: []breach.Breach{older}}
	svc := breach.NewService(sqlstore.NewBreachRecords(db), p, engine.NewManualClock(start), discard, breach.Limits{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		svc.RunCatalogueSync(ctx, time.Hour)
		close(done)
	}()
	// The first sync runs at once; wait for it, not for a schedule.
	deadline := time.Now().Add(30 * time.Second)
	for {
		n, err := db.RowsText(context.Background(), "breach_catalogue")
		if err == nil && len(n) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the first sync did not run")
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("RunCatalogueSync did not stop with its context")
	}
}

func TestServiceWithLocalProvider(t *testing.T) {
	t.Parallel()
	svc, _, _ := newService(t, newLocalProvider(t))
	ctx := context.Background()
	got, err := svc.Check(ctx, "demo", "demo@example.com", false)
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, b := range got.Breaches {
		titles = append(titles, b.Title+" "+b.BreachDate)
	}
	want := []string{
		"Pixelgram Photo Prints (sample) 2024-03-09",
		"Nimbus Notes (sample) 2021-11-03",
		"TrailMix Fitness (sample) 2019-04-22",
		"Quill Writers' Forum (sample) 2016-09-12",
	}
	if diff := cmp.Diff(want, titles); diff != "" {
		t.Errorf("demo breaches (-want +got):\n%s", diff)
	}
	if !got.Sample || !svc.Sample() {
		t.Error("a sample result is not marked as sample")
	}

	_, err = svc.Check(ctx, "limited", "rate-limited@example.com", false)
	wantError(t, err, engine.CodeRateLimited, breach.MessageTryLater)
	_, err = svc.Check(ctx, "down", "unavailable@example.com", false)
	wantError(t, err, engine.CodeUnavailable, breach.MessageSomethingWent)
}

// One person's checks sent together (two tabs, a double tap) reach the
// provider once: the lookup is begun in storage, and the others are told
// to try again.
func TestChecksSentTogetherCallTheProviderOnce(t *testing.T) {
	t.Parallel()
	p := &fakeProvider{names: []string{"Older"}, catalogue: []breach.Breach{older}}
	svc, _, _ := newService(t, p)
	ctx := context.Background()
	const n = 20
	errs := make([]error, n)
	var wg sync.WaitGroup
	begin := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-begin
			_, errs[i] = svc.Check(ctx, "u1", "ann@example.com", false)
		}()
	}
	close(begin)
	wg.Wait()
	for i, err := range errs {
		if err != nil && engine.ErrorCode(err) != engine.CodeRateLimited {
			t.Fatalf("check %d: %v", i, err)
		}
	}
	if p.callCount() != 1 {
		t.Fatalf("the provider was called %d times for checks sent together, want once", p.callCount())
	}
	if _, ok, err := svc.Cached(ctx, "u1", "ann@example.com"); !ok || err != nil {
		t.Fatalf("no result stored: %v %v", ok, err)
	}
}

// finishedFirst is a store on which another lookup of the same person ends
// (its result stored, its begin cleared) just before this one begins: the
// interleaving that let two checks sent together both reach the provider.
type finishedFirst struct {
	breach.Records
	other breach.Check
	once  sync.Once
}

func (f *finishedFirst) BeginLookup(ctx context.Context, userID string, now, since time.Time) (bool, error) {
	var err error
	f.once.Do(func() { err = f.Records.PutResult(ctx, f.other) })
	if err != nil {
		return false, err
	}
	return f.Records.BeginLookup(ctx, userID, now, since)
}

// TestALookupThatEndedBeforeOursBeganIsUsed: a check whose read found no
// result, but whose begin came after another check of the same address had
// stored one, returns that result without asking the provider again.
func TestALookupThatEndedBeforeOursBeganIsUsed(t *testing.T) {
	t.Parallel()
	p := &fakeProvider{names: []string{"Older"}, catalogue: []breach.Breach{older}}
	db := openDB(t)
	clock := engine.NewManualClock(start)
	other := breach.Check{UserID: "u1", EmailHash: engine.HashToken("ann@example.com"), Names: []string{"Older"},
		CheckedAt: clock.Now(), Sample: p.Sample()}
	svc := breach.NewService(&finishedFirst{Records: sqlstore.NewBreachRecords(db), other: other}, p, clock, discard, breach.Limits{})
	ctx := context.Background()
	if err := svc.SyncCatalogue(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := svc.Check(ctx, "u1", "ann@example.com", false)
	if err != nil {
		t.Fatal(err)
	}
	if p.callCount() != 0 {
		t.Fatalf("the provider was called %d times although a result had just been stored", p.callCount())
	}
	if len(got.Breaches) != 1 {
		t.Fatalf("got %+v, want the stored result", got)
	}
}
