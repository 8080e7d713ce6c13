package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"sync"
	"time"

	"glimpse/engine"
	"glimpse/engine/analysis"
	"glimpse/engine/auth"
	"glimpse/engine/billing"
	"glimpse/engine/brand"
	"glimpse/engine/mail"
	"glimpse/engine/privacy"
	"glimpse/engine/profile"
	"glimpse/engine/retention"
	"glimpse/engine/tracking"
)

// The scale seed's subscribers sign in as ScaleEmail(i) with ScalePassword,
// so a benchmark can pick any of them.
const ScalePassword = "glimpse-scale"

// ScaleActive reports whether the scale seed's subscriber i may sign in:
// 8 in 100 have canceled (their plan runs to its period end), 7 in 100 have
// a plan that ended.
func ScaleActive(i int) bool { return i%100 < 8 || i%100 >= 15 }

// ScaleRenews reports whether seeded subscriber i's plan renews: active
// however long after the seed (the canceled ones among ScaleActive end
// with their period, within days).
func ScaleRenews(i int) bool { return i%100 >= 15 }

// ScaleEmail is the address of the scale seed's subscriber i.
func ScaleEmail(i int) string { return "subscriber" + strconv.Itoa(i) + "@scale.glimpse.test" }

// scaleSeedMarker is the settings document a seeded database carries, so a
// second seed does not file every address twice.
const scaleSeedMarker = "scale-seed"

// scaleBatch is how many subscribers go into one round of inserts (one
// call per store, each one transaction). On SQLite every commit rewrites
// the index pages its transaction touched, and with random ids a batch
// touches most of them, more as the database grows: fewer, larger
// transactions write fewer pages (docs/benchmarks.md §9: 300,000 took
// 125 s in batches of 10,000, 102 s in batches of 50,000, with about
// 4 GiB resident).
const scaleBatch = 50_000

// ScaleReport says what SeedScale wrote and how long it took.
type ScaleReport struct {
	Subscribers int
	Profiles    int
	Documents   map[string]int
	Spent       map[string]time.Duration
	Took        time.Duration
}

// SeedScale fills the database with n subscribers as the app would have
// written them over a few months of business: an account, a main plan (weekly, monthly or twelve-week; most active, some
// canceled at period end, some expired),
// its history and charges, a session, the purchase mail, a few analytics
// events, a cancel attempt for one in ten, and a connected profile with a
// snapshot for one in ten. Documents are the domain packages' own types.
// Every account shares one password hash (argon2id takes tens of
// milliseconds per hash; the stored string has the real format).
func SeedScale(ctx context.Context, a *App, n int, progress io.Writer) (ScaleReport, error) {
	start := time.Now()
	if _, seeded, err := a.stores.settings.Get(ctx, scaleSeedMarker); err != nil {
		return ScaleReport{}, fmt.Errorf("seed-scale: %w", err)
	} else if seeded {
		return ScaleReport{}, errors.New("seed-scale: this database is seeded already; use a new GLIMPSE_DATA_DIR")
	}
	tmpl, err := newScaleTemplate(ctx, a)
	if err != nil {
		return ScaleReport{}, err
	}
	if progress != nil {
		fmt.Fprintf(progress, "seed-scale: patterns made in %s\n", time.Since(start).Round(time.Millisecond))
	}

	// Stopped (Ctrl-C), the seed finishes the batches it has sent and
	// marks the database with what it holds, so a long seed can be cut
	// short and still be measured at the size it reached.
	stopped := ctx
	ctx = context.WithoutCancel(ctx)
	// On the embedded store, the writer is set for a bulk load until the
	// seed ends (engine/store/sqlite BulkLoad).
	endBulk := func(context.Context) error { return nil }
	if sdb := a.Store.SQL(); sdb != nil {
		end, err := sdb.BulkLoad(ctx)
		if err != nil {
			return ScaleReport{}, fmt.Errorf("seed-scale: %w", err)
		}
		var once sync.Once
		endBulk = func(ctx context.Context) (err error) {
			once.Do(func() { err = end(ctx) })
			return err
		}
		defer func() { _ = endBulk(ctx) }()
	}
	report := ScaleReport{Subscribers: 0, Documents: map[string]int{}, Spent: map[string]time.Duration{}}
	var mu sync.Mutex
	batches := make(chan scaleDocs, 2)
	errc := make(chan error, 2)
	var wg sync.WaitGroup
	// Two writers: one encodes and sends while the other's batch is in
	// SQLite, which takes one writer at a time.
	for range 1 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range batches {
				// Every domain's rows go through its store.
				for _, insert := range []struct {
					what string
					n    int
					run  func() error
				}{
					{"users", len(b.users), func() error { return a.stores.auth.Users.CreateMany(ctx, b.users) }},
					{"sessions", len(b.sessions), func() error { return a.stores.auth.Sessions.InsertMany(ctx, b.sessions) }},
					{"events", len(b.events), func() error { return a.stores.events.InsertMany(ctx, b.events) }},
					{"mails", len(b.mails), func() error { _, err := a.stores.mails.Insert(ctx, b.mails); return err }},
					{"profiles", len(b.profiles), func() error { return a.stores.profiles.InsertMany(ctx, b.profiles) }},
					{"cancel attempts", len(b.attempts) + len(b.steps), func() error { return a.Retention.InsertMany(ctx, b.attempts, b.steps) }},
					{"subscriptions", len(b.subscriptions), func() error { return a.stores.billing.Subscriptions().InsertMany(ctx, b.subscriptions) }},
				} {
					t0 := time.Now()
					if err := insert.run(); err != nil {
						errc <- fmt.Errorf("seed-scale: insert %s: %w", insert.what, err)
						return
					}
					mu.Lock()
					report.Documents[insert.what] += insert.n
					report.Spent[insert.what] += time.Since(t0)
					mu.Unlock()
				}
				t0 := time.Now()
				if err := a.stores.privacy.Activity.InsertMany(ctx, b.uses); err != nil {
					errc <- fmt.Errorf("seed-scale: %w", err)
					return
				}
				mu.Lock()
				report.Documents["account activity"] += len(b.uses)
				report.Spent["account activity"] += time.Since(t0)
				mu.Unlock()
			}
		}()
	}
	var sendErr error
	for from := 0; from < n && sendErr == nil && stopped.Err() == nil; from += scaleBatch {
		b := tmpl.batch(from, min(from+scaleBatch, n))
		select {
		case batches <- b:
			report.Subscribers = min(from+scaleBatch, n)
		case sendErr = <-errc:
		case <-stopped.Done():
		}
		if progress != nil && (from+scaleBatch)%100_000 == 0 {
			fmt.Fprintf(progress, "seed-scale: %d subscribers in %s\n", from+scaleBatch, time.Since(start).Round(time.Second))
		}
	}
	close(batches)
	wg.Wait()
	select {
	case err := <-errc:
		sendErr = errors.Join(sendErr, err)
	default:
	}
	if sendErr != nil {
		return report, sendErr
	}
	if _, err := a.stores.settings.PutOnce(ctx, scaleSeedMarker, strconv.Itoa(report.Subscribers)); err != nil {
		return report, fmt.Errorf("seed-scale: mark seeded: %w", err)
	}
	t0 := time.Now()
	if err := endBulk(ctx); err != nil {
		return report, fmt.Errorf("seed-scale: %w", err)
	}
	report.Documents["indexes and checkpoint"] += 0 // listed with the time it took
	report.Spent["indexes and checkpoint"] += time.Since(t0)
	report.Profiles = report.Documents["profiles"]
	report.Took = time.Since(start)
	return report, nil
}

// ScaleSeeded returns how many subscribers SeedScale put into the
// database, 0 when it has not seeded it.
func ScaleSeeded(ctx context.Context, a *App) (int, error) {
	mark, seeded, err := a.stores.settings.Get(ctx, scaleSeedMarker)
	if err != nil || !seeded {
		return 0, err
	}
	n, err := strconv.Atoi(mark)
	if err != nil {
		return 0, fmt.Errorf("seed-scale: the seed's mark %q: %w", mark, err)
	}
	return n, nil
}

// scaleTemplate holds what every seeded subscriber shares: the password
// hash, the plans, a rendered purchase mail and a connected profile's
// analysis, each made once by the app's own code.
type scaleTemplate struct {
	now      time.Time
	hash     string
	bundle   string
	plans    []billing.PlanSpec
	provider string
	mail     mail.Mail
	profile  profile.Profile
	posts    profile.ConnectedSnapshot
}

func newScaleTemplate(ctx context.Context, a *App) (*scaleTemplate, error) {
	t := &scaleTemplate{now: a.Clock.Now(), bundle: a.Brands.Get(brand.DefaultKey).Bundle, provider: a.Billing.Provider().Name()}
	var err error
	if t.hash, err = auth.NewHasher().Hash(ctx, ScalePassword); err != nil {
		return nil, fmt.Errorf("seed-scale: hash: %w", err)
	}
	for _, fam := range []string{billing.FamilyWeekly, billing.FamilyPremiumOneMonth, billing.FamilyThreeMonth} {
		p, err := a.Billing.Catalogue().Find(brand.DefaultKey, fam)
		if err != nil {
			return nil, fmt.Errorf("seed-scale: plan %s: %w", fam, err)
		}
		t.plans = append(t.plans, p)
	}
	// One purchase mail rendered by the outbox, copied per subscriber (the
	// same size and fields; addresses and ids are each one's own).
	key := "purchase:scale-template"
	if err := a.billingMail(ctx, billing.Notice{Key: key, To: ScaleEmail(0), Brand: brand.DefaultKey, Kind: billing.NoticePurchase,
		Data: map[string]string{"subscription": "scale-template", "plan": billing.Describe(t.plans[0].Code).Name,
			"price": t.plans[0].Price.String(), "period": billing.Describe(t.plans[0].Code).Period,
			"renewDate": brand.Date(a.Clock.Now())}}); err != nil {
		return nil, fmt.Errorf("seed-scale: render mail: %w", err)
	}
	if t.mail, err = a.Outbox.Get(ctx, key); err != nil {
		return nil, fmt.Errorf("seed-scale: read mail: %w", err)
	}
	// The pattern is not a mail to send.
	if _, err := a.stores.mails.Delete(ctx, []string{key}); err != nil {
		return nil, fmt.Errorf("seed-scale: drop the pattern mail: %w", err)
	}
	// One profile connected through the API and analysed by the profile
	// service, copied per connected subscriber. Its snapshot has what the
	// API gives (engine/instagram.Snapshot): the follower count, the latest
	// 50 posts and the commenters of the analysed ones, no follower lists.
	const templateUser = "scale-template"
	snap := profile.DemoSnapshot(demoProfileSeed, t.now.Add(-2*time.Hour))
	snap.Followers, snap.Following = nil, nil
	snap.Posts = snap.Posts[:min(len(snap.Posts), 50)]
	for i := analysis.DefaultLatestN; i < len(snap.Posts); i++ {
		snap.Posts[i].Commenters = nil
	}
	if err := a.Profiles.Connect(ctx, templateUser, profile.SourceAPI, "scale.template", 0); err != nil {
		return nil, fmt.Errorf("seed-scale: connect profile: %w", err)
	}
	if _, err := a.Profiles.AddSnapshot(ctx, templateUser, snap); err != nil {
		return nil, fmt.Errorf("seed-scale: profile snapshot: %w", err)
	}
	if _, err := a.Profiles.Analyse(ctx, templateUser); err != nil {
		return nil, fmt.Errorf("seed-scale: analyse profile: %w", err)
	}
	if t.profile, err = a.Profiles.Get(ctx, templateUser); err != nil {
		return nil, err
	}
	if t.posts, err = a.Profiles.ConnectedSnapshotOf(ctx, t.profile); err != nil {
		return nil, err
	}
	return t, nil
}

// scaleDocs is one batch of rows, each kind for its domain's store: users
// and sessions to auth's, events to tracking's, mails to the outbox's,
// profiles to profile's, attempts and steps to retention's, the accounts'
// last uses to privacy's, subscriptions with their history and charges to
// billing's.
type scaleDocs struct {
	subscriptions []billing.Seeded
	users         []auth.User
	sessions      []auth.Session
	events        []tracking.Event
	mails         []mail.Mail
	profiles      []profile.Seeded
	attempts      []retention.Attempt
	steps         []retention.Event
	uses          []privacy.LastUse
}

// batch builds subscribers [from, to). Subscriber i's choices come from a
// generator seeded with i, so a seed of N is the same on every machine.
func (t *scaleTemplate) batch(from, to int) scaleDocs {
	var b scaleDocs
	for i := from; i < to; i++ {
		t.subscriber(&b, i)
	}
	return b
}

func (t *scaleTemplate) subscriber(b *scaleDocs, i int) {
	rng := rand.New(rand.NewPCG(uint64(i), 22))
	email := ScaleEmail(i)
	userID := engine.NewID()
	started := t.now.Add(-time.Duration(1+rng.IntN(180*24)) * time.Hour)
	b.users = append(b.users, auth.User{ID: userID, Email: email, PasswordHash: t.hash, CreatedAt: started})
	// As the account-creation hook records it (auth.OnCreated).
	b.uses = append(b.uses, privacy.LastUse{UserID: userID, LastActiveAt: started})

	plan := t.plans[rng.IntN(len(t.plans))]
	subID := "sub_" + engine.HashToken("scale:" + strconv.Itoa(i))[:24]
	pm := billing.PaymentMethod{Provider: t.provider, ID: "pm_sandbox_ok_" + strconv.Itoa(i), Brand: "visa", Last4: "4242"}
	sub := billing.Subscription{ID: subID, UserID: userID, Email: email, Emails: []string{email}, Bundle: t.bundle,
		Brand: brand.DefaultKey, PlanCode: plan.Code, Status: billing.StatusActive, MainPlan: true, Price: plan.Price,
		Provider: t.provider, StartedAt: started, PaymentMethod: pm}
	// Periods paid so far; the history and ledger keep the last few.
	periodStart, periods := started, 1
	for end := plan.Period.After(periodStart); !end.After(t.now); end = plan.Period.After(periodStart) {
		periodStart = end
		periods++
	}
	sub.CurrentPeriodStart, sub.CurrentPeriodEnd = periodStart, plan.Period.After(periodStart)
	sub.DueAt = sub.CurrentPeriodEnd
	switch r := i % 100; {
	case r < 8: // canceled, runs to its period end
		canceled := t.now.Add(-time.Duration(rng.IntN(72)) * time.Hour)
		end := sub.CurrentPeriodEnd
		sub.Status, sub.CancelAtPeriodEnd, sub.CanceledAt, sub.ExpiresAt = billing.StatusCanceled, true, &canceled, &end
	case !ScaleActive(i): // ended: the last renewal failed three times
		ended := sub.CurrentPeriodStart
		sub.Status, sub.ExpiresAt, sub.DueAt, sub.FailedAttempts = billing.StatusExpired, &ended, time.Time{}, 3
	}
	seeded := billing.Seeded{Sub: sub}
	line := func(c billing.Change) { seeded.Lines = append(seeded.Lines, c) }
	charge := func(ch billing.Charge) { seeded.Charges = append(seeded.Charges, ch) }
	line(billing.Change{ID: subID + "/created", SubscriptionID: subID, At: started,
		By: "checkout", Kind: billing.ChangeCreated, To: plan.Code, Detail: plan.Price.String() + " " + brand.CardLabel(pm.Brand, pm.Last4)})
	line(billing.Change{ID: subID + "/finalized", SubscriptionID: subID, At: started.Add(3 * time.Minute),
		By: "user:" + userID, Kind: billing.ChangeFinalized, To: userID})
	charge(billing.Charge{ID: billing.ChargeIDOf("checkout:" + subID), Key: "checkout:" + subID, Provider: t.provider,
		Reference: "ch_sandbox_" + engine.NewID(), Amount: plan.Price, Method: pm.ID, SubscriptionID: subID,
		Status: "succeeded", CreatedAt: started})
	ps := started
	for p := 1; p < periods; p++ {
		end := plan.Period.After(ps)
		if periods-p <= 4 {
			period := strconv.FormatInt(end.Unix(), 10)
			key := "renew:" + subID + ":" + period + ":0"
			charge(billing.Charge{ID: billing.ChargeIDOf(key), Key: key, Provider: t.provider,
				Reference: "ch_sandbox_" + engine.NewID(), Amount: plan.Price, Method: pm.ID, SubscriptionID: subID,
				Status: "succeeded", CreatedAt: end})
			line(billing.Change{ID: subID + "/renewed:" + period, SubscriptionID: subID, At: end,
				By: "renewal", Kind: billing.ChangeRenewed, From: plan.Code, To: plan.Code,
				Detail: plan.Price.String() + " until " + plan.Period.After(end).Format(time.RFC3339)})
		}
		ps = end
	}
	b.subscriptions = append(b.subscriptions, seeded)

	// A session: about a third of them still valid.
	signedIn := t.now.Add(-time.Duration(rng.IntN(15*60)) * time.Minute)
	sess := auth.Session{ID: engine.HashToken(engine.NewToken()), UserID: userID,
		CreatedAt: signedIn, ExpiresAt: signedIn.Add(5 * time.Hour)}
	b.sessions = append(b.sessions, sess)

	m := t.mail
	m.ID, m.To, m.CreatedAt, m.NextAttemptAt = "purchase:"+subID, email, started, time.Time{}
	m.MessageID = mail.MessageID(m.ID, "glimpse.test")
	m.Status, m.Attempts, m.SentAt = mail.StatusSent, 1, started.Add(time.Minute)
	b.mails = append(b.mails, m)

	for k, name := range []string{"screen_view", "screen_view", "plan_viewed"} {
		at := signedIn.Add(time.Duration(k) * time.Minute)
		e := tracking.Event{ID: engine.NewID(), Name: name, Brand: brand.DefaultKey,
			Project: tracking.Project, UserID: userID, SubscriptionID: subID, At: at, ExpiresAt: at.Add(tracking.DefaultRetention)}
		b.events = append(b.events, e)
	}

	if i%10 == 3 {
		at := t.now.Add(-time.Duration(rng.IntN(60*24)) * time.Hour)
		att := retention.Attempt{ID: engine.NewID(), UserID: userID, SubscriptionID: subID, Brand: brand.DefaultKey,
			PlanCode: plan.Code, Entry: "my_plan", Return: "/plan", StartedAt: at}
		b.attempts = append(b.attempts, att)
		for k, kind := range []string{retention.EventReached, retention.EventAnswer, retention.EventOutcome} {
			e := retention.Event{ID: engine.NewID(), AttemptID: att.ID, UserID: userID, SubscriptionID: subID,
				At: at.Add(time.Duration(k) * 30 * time.Second), Kind: kind, Step: k + 1}
			switch kind {
			case retention.EventAnswer:
				e.Reason = "too_expensive"
			case retention.EventOutcome:
				e.Outcome, e.Exit = retention.OutcomeStayed, "stay"
			}
			b.steps = append(b.steps, e)
		}
	}

	if i%10 == 7 {
		b.profiles = append(b.profiles, t.posts.For(t.profile, userID, t.now.Add(-time.Duration(rng.IntN(24*60))*time.Minute)))
	}
}
