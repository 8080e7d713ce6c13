package privacy_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"glimpse/engine"
	"glimpse/engine/analysis"
	"glimpse/engine/app"
	"glimpse/engine/auth"
	"glimpse/engine/billing"
	"glimpse/engine/config"
	"glimpse/engine/experiment"
	"glimpse/engine/mail"
	"glimpse/engine/privacy"
	"glimpse/engine/profile"
	"glimpse/engine/retention"
	"glimpse/engine/store"
	"glimpse/engine/store/storetest"
	"glimpse/engine/tracking"
)

func TestMain(m *testing.M) { os.Exit(storetest.Main(m)) }

var start = time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)

const (
	appSecret = "instagram-app-secret-for-tests"
	password  = "correct horse battery staple"
)

func openApp(t *testing.T) (*app.App, *engine.ManualClock) {
	t.Helper()
	return openAppOn(t, storetest.Open)
}

// onEngines runs test on the app over the embedded SQLite database and over
// MongoDB, where every domain uses its MongoDB store.
func onEngines(t *testing.T, test func(t *testing.T, open func(testing.TB) *store.Store)) {
	t.Run("sqlite", func(t *testing.T) { test(t, storetest.Open) })
	t.Run("mongodb", func(t *testing.T) { test(t, storetest.OpenMongo) })
}

func openAppOn(t *testing.T, open func(testing.TB) *store.Store) (*app.App, *engine.ManualClock) {
	t.Helper()
	cfg, err := config.Load(func(k string) string {
		return map[string]string{"GLIMPSE_INSTAGRAM_APP_SECRET": appSecret, "GLIMPSE_TAX_RETENTION_YEARS": "8",
			"GLIMPSE_ENVIRONMENT": config.Development}[k]
	})
	if err != nil {
		t.Fatal(err)
	}
	cfg.PasswordMemoryKiB, cfg.PasswordPasses = 1024, 1 // cheap argon2id: auth.NewHasherCosting
	clock := engine.NewManualClock(start)
	a, err := app.Open(context.Background(), cfg, slog.New(slog.DiscardHandler), clock, open(t))
	if err != nil {
		t.Fatal(err)
	}
	return a, clock
}

// person is a subscriber with data in every collection a subscriber's
// actions write to.
type person struct {
	user  auth.User
	main  billing.Subscription
	addOn billing.Subscription // bought with a charge key that names the account
}

// seedPerson buys a plan and an add-on, creates the account, connects a
// profile, checks breaches, opens the cancel flow, records events and
// exposures, signs in and asks for every kind of link, so that a deletion
// has something to delete everywhere.
func seedPerson(t *testing.T, a *app.App, email string) person {
	t.Helper()
	ctx := context.Background()
	// Bought as the pages buy: the hosted page opened and paid on the
	// sandbox with 4242…, its event fulfilled.
	st, err := a.Billing.StartCheckout(ctx, billing.CheckoutRequest{Brand: "default", Bundle: "glimpse.web",
		PlanCode: "glimpse_weekly_trial", Email: email, Key: engine.NewToken(), Origin: "https://glimpse.example"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Billing.PayOnSandbox(ctx, billing.SandboxPayRequest{Session: strings.TrimPrefix(st.URL, billing.PathSandboxPay),
		Step: "card", Card: billing.Card{Number: billing.TestCardSucceeds, ExpMonth: 12, ExpYear: 2031, CVC: "123"}}); err != nil {
		t.Fatal(err)
	}
	order, err := a.Billing.Order(ctx, st.OrderID)
	if err != nil {
		t.Fatal(err)
	}
	sub, err := a.Billing.Subscription(ctx, order.SubscriptionID)
	if err != nil {
		t.Fatal(err)
	}
	u, err := a.Auth.CreateUser(ctx, email, password)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Billing.Finalize(ctx, sub.ID, u.ID); err != nil {
		t.Fatal(err)
	}
	sub, err = a.Billing.Subscription(ctx, sub.ID)
	if err != nil {
		t.Fatal(err)
	}
	addOn, err := a.Billing.Purchase(ctx, billing.PurchaseRequest{UserID: u.ID, Email: u.Email, Main: sub,
		Family: billing.FamilyProfileReport})
	if err != nil {
		t.Fatal(err)
	}
	// A small profile of two snapshots (the demo profile's thousands of
	// followers make no difference to what is deleted, only to the time).
	if err := a.Profiles.Connect(ctx, u.ID, profile.SourceAPI, "leaving.example", 0); err != nil {
		t.Fatal(err)
	}
	for i, followers := range [][]string{{"ann", "bob"}, {"ann", "bob", "cy"}} {
		if _, err := a.Profiles.AddSnapshot(ctx, u.ID, analysis.Snapshot{TakenAt: start.Add(time.Duration(i-2) * time.Hour),
			Followers: followers, Following: []string{"ann", "dee"}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := a.Profiles.Analyse(ctx, u.ID); err != nil {
		t.Fatal(err)
	}
	if err := a.Profiles.SetCredential(ctx, u.ID, "sealed-token"); err != nil {
		t.Fatal(err)
	}
	if err := a.Profiles.LinkInstagram(ctx, u.ID, "ig-"+u.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Breach.Check(ctx, u.ID, u.Email, false); err != nil {
		t.Fatal(err)
	}
	att, _, err := a.Retention.Start(ctx, retention.Attempt{UserID: u.ID, SubscriptionID: sub.ID, Brand: "default",
		PlanCode: sub.PlanCode, Entry: "my_plan"})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Retention.Record(ctx, att, retention.Event{Kind: retention.EventAnswer, Reason: "too_expensive",
		Review: "written by " + u.Email}); err != nil {
		t.Fatal(err)
	}
	if err := a.Events.Record(ctx, tracking.Event{Name: "Screen viewed", UserID: u.ID, SubscriptionID: sub.ID, Brand: "default"}); err != nil {
		t.Fatal(err)
	}
	// Shown a variant, and then saved, as the flow records them: an
	// exposure and an outcome of a running experiment.
	exposed := assignment(t, a, u.ID)
	if err := a.Experiments.Expose(ctx, u.ID, exposed); err != nil {
		t.Fatal(err)
	}
	if err := a.Experiments.Record(ctx, u.ID, experiment.EventSaved); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Auth.SignIn(ctx, u.Email, password, "10.0.0.1", "glimpse.web"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Auth.MintLoginLink(ctx, u.Email); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Auth.MintPasswordReset(ctx, u.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Billing.NewCancelLink(ctx, u.Email, u.ID, "glimpse.web", time.Hour); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Privacy.RequestExport(ctx, u.ID, "default"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Privacy.BuildPending(ctx); err != nil {
		t.Fatal(err)
	}
	return person{user: u, main: sub, addOn: addOn}
}

// assignment is the person's variant in the app's one running experiment,
// which the first call starts.
func assignment(t *testing.T, a *app.App, userID string) experiment.Assignment {
	t.Helper()
	ctx := context.Background()
	if running := a.Experiments.Assignments(userID); len(running) > 0 {
		return running[0]
	}
	e, err := a.Experiments.Create(ctx, experiment.Experiment{Name: "Headline", Kind: experiment.KindCopy,
		Key: "unsubscribe.step1.title", Hypothesis: "A warmer headline keeps more people", Metric: experiment.MetricSaveRate, Variants: []experiment.Variant{{Weight: 1}, {Value: "Before you go", Weight: 1}}}, "tester")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Experiments.SetStatus(ctx, e.ID, experiment.ActionStart, "tester"); err != nil {
		t.Fatal(err)
	}
	return a.Experiments.Assignments(userID)[0]
}

// collections lists the collections in the app's MongoDB database and the
// tables of its embedded SQLite one.
func collections(t *testing.T, a *app.App) []string {
	t.Helper()
	var names []string
	if db := a.Store.DB(); db != nil {
		var err error
		if names, err = db.ListCollectionNames(context.Background(), bson.M{}); err != nil {
			t.Fatal(err)
		}
	}
	if db := a.Store.SQL(); db != nil {
		tables, err := db.Tables(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tables...)
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// sqlRows returns every row of the named SQLite table as text, or nil when
// the app has no such table.
func sqlRows(t *testing.T, a *app.App, table string) []string {
	t.Helper()
	db := a.Store.SQL()
	if db == nil {
		return nil
	}
	tables, err := db.Tables(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(tables, table) {
		return nil
	}
	rows, err := db.RowsText(context.Background(), table)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func fates() map[string]privacy.Fate {
	m := map[string]privacy.Fate{}
	for _, f := range privacy.Fates() {
		m[f.Collection] = f
	}
	return m
}

// TestFatesCoverEveryCollection fails for a collection the application
// creates (at start, or when a subscriber uses everything) for which
// deletion declares nothing.
func TestFatesCoverEveryCollection(t *testing.T) { onEngines(t, testFatesCoverEveryCollection) }

func testFatesCoverEveryCollection(t *testing.T, open func(testing.TB) *store.Store) {
	a, _ := openAppOn(t, open)
	seedPerson(t, a, "fates@example.com")
	if err := a.Store.CheckWritable(context.Background()); err != nil {
		t.Fatal(err)
	}
	declared := fates()
	if len(declared) != len(privacy.Fates()) {
		t.Fatal("a collection is declared twice in privacy.Fates")
	}
	for _, name := range collections(t, a) {
		f, ok := declared[name]
		if !ok {
			t.Errorf("collection %q: account deletion declares nothing for it (add it to privacy.Fates)", name)
			continue
		}
		if f.Why == "" || !slices.Contains([]string{privacy.Erased, privacy.Anonymised, privacy.Kept}, f.Fate) {
			t.Errorf("collection %q: fate %q with reason %q", name, f.Fate, f.Why)
		}
	}
}

// TestDeleteAccountLeavesNothingAboutThePerson deletes a subscriber who
// used everything, then reads every document of every collection: none may
// name the person's id or address, except the erasure ledger (the id) and
// the last mail until it is sent; the charges and subscriptions stay,
// anonymised, for the tax period.
func TestDeleteAccountLeavesNothingAboutThePerson(t *testing.T) {
	onEngines(t, testDeleteAccountLeavesNothingAboutThePerson)
}

func testDeleteAccountLeavesNothingAboutThePerson(t *testing.T, open func(testing.TB) *store.Store) {
	a, clock := openAppOn(t, open)
	ctx := context.Background()
	p := seedPerson(t, a, "leaving@example.com")
	other := seedPerson(t, a, "staying@example.com")

	if err := a.Privacy.DeleteAccount(ctx, privacy.DeleteRequest{UserID: p.user.ID, Password: "wrong password", IP: "10.0.0.2"}); !errors.Is(err, privacy.ErrWrongPassword) {
		t.Fatalf("wrong password: got %v, want ErrWrongPassword", err)
	}
	if err := a.Privacy.DeleteAccount(ctx, privacy.DeleteRequest{UserID: p.user.ID, Password: password, IP: "10.0.0.2"}); err != nil {
		t.Fatal(err)
	}

	last, err := privacy.StoresOf(a.Privacy).Erasures.Farewells(ctx)
	if err != nil || len(last) != 1 {
		t.Fatalf("last mails remembered: %+v, %v; want one", last, err)
	}
	farewell := last[0].Key
	declared := fates()
	for _, name := range collections(t, a) {
		for _, row := range sqlRows(t, a, name) {
			if name == "mails" && strings.Contains(row, farewell) {
				continue // the last mail, deleted once sent (checked below)
			}
			if name == privacy.ErasuresCollection && !strings.Contains(row, p.user.Email) {
				continue // the ledger: the account's random id, to apply the deletion again after a restore
			}
			if strings.Contains(row, p.user.ID) || strings.Contains(row, p.user.Email) {
				t.Errorf("table %s (%s) still names the person after deletion: %.300s", name, declared[name].Fate, row)
			}
		}
		docs := documents(t, a, name)
		for _, d := range docs {
			text := d.String()
			if !strings.Contains(text, p.user.ID) && !strings.Contains(text, p.user.Email) {
				continue
			}
			id := d.Lookup("_id").StringValue()
			switch {
			case name == privacy.ErasuresCollection && id == p.user.ID && !strings.Contains(text, p.user.Email):
			case name == "mails" && id == farewell:
			default:
				t.Errorf("%s (%s) still names the person after deletion: %.300s", name, declared[name].Fate, text)
			}
		}
	}

	// The ledger: both charges (the plan and the add-on) stay, marked.
	charges, err := a.Billing.ChargesOf(ctx, []string{p.main.ID})
	if err != nil || len(charges) != 1 {
		t.Fatalf("charges of the deleted plan: %v, %v", charges, err)
	}
	kept, err := a.Billing.Charge(ctx, charges[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if !kept.Erased || !kept.RetainUntil.Equal(start.AddDate(0, 0, 8*365)) {
		t.Errorf("kept charge: erased %v until %v, want erased until 8 years on", kept.Erased, kept.RetainUntil)
	}
	// The add-on's charge has a key that does not name the account; what
	// leads to it by its opaque id still does: its subscription, its
	// provider reference, its status events.
	addOnCharges, err := a.Billing.ChargesOf(ctx, []string{p.addOn.ID})
	if err != nil || len(addOnCharges) != 1 || !strings.HasPrefix(addOnCharges[0].Key, "erased:") {
		t.Fatalf("the add-on's kept charge: %+v, %v", addOnCharges, err)
	}
	if id, err := a.Billing.ChargeIDByReference(ctx, addOnCharges[0].Reference); err != nil || id != addOnCharges[0].ID {
		t.Errorf("the add-on charge's reference leads to %q (%v), want %q", id, err, addOnCharges[0].ID)
	}
	if status, err := a.Billing.ChargeStatus(ctx, addOnCharges[0].ID); err != nil || status != billing.ChargeSucceeded {
		t.Errorf("the re-keyed charge's status: %q, %v", status, err)
	}
	sub, err := a.Billing.Subscription(ctx, p.main.ID)
	if err != nil {
		t.Fatal(err)
	}
	if sub.Status != billing.StatusExpired || sub.Email != billing.ErasedEmail || sub.UserID != "" || sub.PaymentMethod.ID != "" || !sub.DueAt.IsZero() {
		t.Errorf("kept subscription is not ended and anonymised: %+v", sub)
	}

	// Nobody can sign in with the old credentials; the other person can.
	if _, err := a.Auth.SignIn(ctx, p.user.Email, password, "10.0.0.3", "glimpse.web"); !errors.Is(err, auth.ErrInvalidCredential) {
		t.Errorf("sign-in after deletion: got %v, want ErrInvalidCredential", err)
	}
	if _, err := a.Auth.SignIn(ctx, other.user.Email, password, "10.0.0.3", "glimpse.web"); err != nil {
		t.Errorf("the other subscriber cannot sign in: %v", err)
	}

	// The last mail is queued, then deleted once sent.
	m, err := a.Outbox.Get(ctx, farewell)
	if err != nil || m.To != p.user.Email || m.Template != mail.TemplateAccountErased || !strings.Contains(m.Text, "8 years") {
		t.Fatalf("last mail: %+v, %v", m, err)
	}
	if _, err := a.Outbox.DeliverDue(ctx, mail.SenderFunc(func(context.Context, mail.Mail) error { return nil })); err != nil {
		t.Fatal(err)
	}
	if err := a.Privacy.Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Outbox.Get(ctx, farewell); engine.ErrorCode(err) != engine.CodeNotFound {
		t.Errorf("the last mail is still stored after it was sent: %v", err)
	}

	// After the tax period the anonymised records go too.
	clock.Advance(8*365*24*time.Hour + time.Hour)
	if err := a.Privacy.Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Billing.Subscription(ctx, p.main.ID); !errors.Is(err, billing.ErrNoSubscription) {
		t.Errorf("subscription kept past the tax period: %v", err)
	}
	if left, _ := a.Billing.ChargesOf(ctx, []string{p.main.ID}); len(left) != 0 {
		t.Errorf("charges kept past the tax period: %v", left)
	}
	if mine, _ := a.Billing.ChargesOf(ctx, []string{other.main.ID}); len(mine) != 1 {
		t.Errorf("the other subscriber's charge went with the purge: %v", mine)
	}
}

// TestEraseHasOneWinner sends the same deletion together: one erases, the
// others are told it is under way (the claim), instead of all running the
// erasure and each sending a last mail.
func TestEraseHasOneWinner(t *testing.T) { onEngines(t, testEraseHasOneWinner) }

func testEraseHasOneWinner(t *testing.T, open func(testing.TB) *store.Store) {
	a, _ := openAppOn(t, open)
	p := seedPerson(t, a, "twice@example.com")
	const n = 6
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = a.Privacy.Erase(context.Background(), p.user, "request")
		}()
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		case errors.Is(err, privacy.ErrErasing):
		default:
			t.Errorf("unexpected error: %v", err)
		}
	}
	if won != 1 {
		t.Errorf("%d of %d concurrent deletions erased, want exactly 1", won, n)
	}
}

// TestAnErasureLeftHalfDoneIsFinished: an erasure that died half way (its
// record begun, the billing step done, the account still there) is
// finished by the sweep, once the instance that ran it has lost its claim,
// with the one last mail it chose; so is one that died after the account
// itself went. Another person is untouched.
func TestAnErasureLeftHalfDoneIsFinished(t *testing.T) {
	onEngines(t, testAnErasureLeftHalfDoneIsFinished)
}

func testAnErasureLeftHalfDoneIsFinished(t *testing.T, open func(testing.TB) *store.Store) {
	a, clock := openAppOn(t, open)
	ctx := context.Background()
	st := privacy.StoresOf(a.Privacy)
	half := seedPerson(t, a, "half@example.com")
	late := seedPerson(t, a, "late@example.com")
	other := seedPerson(t, a, "other@example.com")
	begin := func(u auth.User, farewell string, lease time.Duration) {
		t.Helper()
		if _, won, err := st.Erasures.Begin(ctx, privacy.PendingErasure{UserID: u.ID, Email: u.Email, Why: "request", At: clock.Now(),
			Farewell: farewell}, "a dead instance", clock.Now(), clock.Now().Add(lease)); err != nil || !won {
			t.Fatalf("begin: %v, %v", won, err)
		}
	}
	// half died after billing's step, holding its lease.
	begin(half.user, "account-erased:half", 10*time.Minute)
	if err := a.Billing.EraseSubscriber(ctx, []billing.Subscription{half.main, half.addOn}, []string{half.user.Email},
		clock.Now().AddDate(8, 0, 0)); err != nil {
		t.Fatal(err)
	}
	// late died after its account went, in the last step.
	begin(late.user, "account-erased:late", 0)
	if err := a.Auth.EraseUser(ctx, late.user, []string{late.main.ID, late.addOn.ID}); err != nil {
		t.Fatal(err)
	}

	// The app's sweep, which runs the privacy sweep.
	if err := a.Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Auth.User(ctx, half.user.ID); err != nil {
		t.Fatalf("an erasure still held by its lease was run again: %v", err)
	}
	clock.Advance(11 * time.Minute)
	if err := a.Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	for _, p := range []struct {
		who      person
		farewell string
	}{{half, "account-erased:half"}, {late, "account-erased:late"}} {
		if _, err := a.Auth.User(ctx, p.who.user.ID); !engine.IsNotFound(err) {
			t.Errorf("%s: the account is still there: %v", p.who.user.Email, err)
		}
		if e, found, err := st.Erasures.Erased(ctx, p.who.user.ID); err != nil || !found || e.Why != "request" {
			t.Errorf("%s: ledger entry %+v, %v (%v)", p.who.user.Email, e, found, err)
		}
		if farewells, err := st.Erasures.Farewells(ctx); err != nil || !slices.ContainsFunc(farewells, func(f privacy.Farewell) bool { return f.Key == p.farewell }) {
			t.Errorf("%s: the last mail it chose is not remembered (%+v, %v)", p.who.user.Email, farewells, err)
		}
		if m, err := a.Outbox.Get(ctx, p.farewell); err != nil || m.To != p.who.user.Email {
			t.Errorf("%s: last mail %+v (%v)", p.who.user.Email, m, err)
		}
		if events, err := a.Events.OfUser(ctx, p.who.user.ID); err != nil || len(events) != 0 {
			t.Errorf("%s: events left %v (%v)", p.who.user.Email, events, err)
		}
	}
	if pending, err := st.Erasures.Pending(ctx); err != nil || len(pending) != 0 {
		t.Errorf("erasures still pending: %+v (%v)", pending, err)
	}
	if _, err := a.Auth.SignIn(ctx, other.user.Email, password, "10.0.0.3", "glimpse.web"); err != nil {
		t.Errorf("the other subscriber cannot sign in: %v", err)
	}
}

// failingMail is an outbox whose erasure fails, as a database that stops
// answering half way through a deletion does.
type failingMail struct{ privacy.Mailer }

func (failingMail) EraseTo(context.Context, []string, []string, string) (int, error) {
	return 0, errors.New("the database stopped answering")
}

// TestADeletionThatFailsHalfWayIsFinishedLater: when a step of a person's
// own deletion fails, the request still succeeds: the account is closed at
// once (its sessions end, nobody can sign in) and the sweep finishes the
// erasure.
func TestADeletionThatFailsHalfWayIsFinishedLater(t *testing.T) {
	onEngines(t, testADeletionThatFailsHalfWayIsFinishedLater)
}

func testADeletionThatFailsHalfWayIsFinishedLater(t *testing.T, open func(testing.TB) *store.Store) {
	a, clock := openAppOn(t, open)
	ctx := context.Background()
	p := seedPerson(t, a, "stuck@example.com")
	token, err := a.Auth.SignIn(ctx, p.user.Email, password, "10.0.0.4", "glimpse.web")
	if err != nil {
		t.Fatal(err)
	}
	st := privacy.StoresOf(a.Privacy)
	failing := privacy.NewService(st, clock, privacy.Options{Auth: a.Auth, Billing: a.Billing, Events: a.Events, Breach: a.Breach, Retention: a.Retention, Experiments: a.Experiments,
		Profiles: a.Profiles, Mail: failingMail{a.Outbox}})
	if err := failing.DeleteAccount(ctx, privacy.DeleteRequest{UserID: p.user.ID, Password: password, IP: "10.0.0.4"}); err != nil {
		t.Fatalf("a deletion that failed half way: %v, want it accepted", err)
	}
	if _, err := a.Auth.Authenticate(ctx, token); err == nil {
		t.Error("a session still works while the erasure is unfinished")
	}
	if _, err := a.Auth.SignIn(ctx, p.user.Email, password, "10.0.0.5", "glimpse.web"); err == nil {
		t.Error("the account can still sign in while the erasure is unfinished")
	}
	if pending, err := st.Erasures.Pending(ctx); err != nil || len(pending) != 1 || pending[0].UserID != p.user.ID {
		t.Fatalf("pending erasures %+v (%v), want the unfinished one", pending, err)
	}
	clock.Advance(11 * time.Minute)
	if err := a.Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Auth.User(ctx, p.user.ID); !engine.IsNotFound(err) {
		t.Errorf("the account is still there after the sweep: %v", err)
	}
	if pending, err := st.Erasures.Pending(ctx); err != nil || len(pending) != 0 {
		t.Errorf("pending erasures %+v (%v) after the sweep", pending, err)
	}
}

// TestRequestExportOnceAWindow sends export requests together: one export
// is queued, whatever the taps.
func TestRequestExportOnceAWindow(t *testing.T) {
	a, clock := openApp(t)
	ctx := context.Background()
	u, err := a.Auth.CreateUser(ctx, "exports@example.com", password)
	if err != nil {
		t.Fatal(err)
	}
	const n = 8
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = a.Privacy.RequestExport(ctx, u.ID, "default")
		}()
	}
	wg.Wait()
	ok := 0
	for _, err := range errs {
		if err == nil {
			ok++
		} else if !errors.Is(err, privacy.ErrExportRecent) {
			t.Errorf("unexpected error: %v", err)
		}
	}
	// One queued: the builders lease it alone.
	queued, err := privacy.StoresOf(a.Privacy).Exports.ClaimQueued(ctx, "test", clock.Now(), clock.Now(), 10)
	if err != nil {
		t.Fatal(err)
	}
	if ok != 1 || len(queued) != 1 {
		t.Errorf("%d requests accepted and %d exports queued, want 1 and 1", ok, len(queued))
	}
	clock.Advance(privacy.ExportWindow)
	if _, err := a.Privacy.RequestExport(ctx, u.ID, "default"); err != nil {
		t.Errorf("a request in the next window: %v", err)
	}
}

// TestBuildPendingBuildsEachOnce runs the export job on several "instances"
// at once: each export is built and mailed once.
func TestBuildPendingBuildsEachOnce(t *testing.T) {
	a, _ := openApp(t)
	ctx := context.Background()
	u, err := a.Auth.CreateUser(ctx, "builder@example.com", password)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Privacy.RequestExport(ctx, u.ID, "default"); err != nil {
		t.Fatal(err)
	}
	const n = 4
	built := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var err error
			if built[i], err = a.Privacy.BuildPending(ctx); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	total := 0
	for _, b := range built {
		total += b
	}
	mails, err := a.Outbox.To(ctx, []string{u.Email}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if total != 1 || len(mails) != 1 || mails[0].Template != mail.TemplateDataExport {
		t.Errorf("built %d times and mailed %v, want once", total, mails)
	}
}

// TestExportHoldsThePersonsData reads the ZIP as a person would: a README
// naming every file, their email and plan, and no password hash or token.
func TestExportHoldsThePersonsData(t *testing.T) {
	a, clock := openApp(t)
	ctx := context.Background()
	p := seedPerson(t, a, "export@example.com")

	key, err := a.Privacy.DownloadKey(ctx, p.user.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := a.Privacy.Download(ctx, "someone-else", key); !errors.Is(err, privacy.ErrExportLink) {
		t.Errorf("another person's download: got %v, want ErrExportLink", err)
	}
	if _, _, err := a.Privacy.Download(ctx, p.user.ID, key+"x"); !errors.Is(err, privacy.ErrExportLink) {
		t.Errorf("a wrong key: got %v, want ErrExportLink", err)
	}
	_, data, err := a.Privacy.Download(ctx, p.user.ID, key)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		files[f.Name] = string(b)
	}
	for name, body := range files {
		if name != "README.txt" && !strings.Contains(files["README.txt"], "\n"+name+"\n---") {
			t.Errorf("README does not describe %s", name)
		}
		if strings.Contains(body, "argon2") || strings.Contains(body, "sealed-token") || strings.Contains(body, "passwordHash") {
			t.Errorf("%s holds a password hash or a token", name)
		}
		if name != "README.txt" && !json.Valid([]byte(body)) {
			t.Errorf("%s is not JSON", name)
		}
	}
	var account struct{ Email string }
	if err := json.Unmarshal([]byte(files["account.json"]), &account); err != nil || account.Email != p.user.Email {
		t.Errorf("account.json: %s (%v)", files["account.json"], err)
	}
	var plans []struct {
		Plan string `json:"plan"`
	}
	if err := json.Unmarshal([]byte(files["subscriptions.json"]), &plans); err != nil || len(plans) != 1 || plans[0].Plan != "Weekly Plan" {
		t.Errorf("subscriptions.json: %s (%v)", files["subscriptions.json"], err)
	}
	for _, want := range []string{"purchases.json", "charges.json", "subscription_history.json", "cancel_attempts.json",
		"mails.json", "events.json", "instagram_profile.json", "instagram_snapshots.json", "breach_checks.json", "experiments.json"} {
		if len(files[want]) < 3 {
			t.Errorf("%s is missing or empty: %q", want, files[want])
		}
	}
	if !strings.Contains(files["cancel_attempts.json"], "too_expensive") || !strings.Contains(files["purchases.json"], "Profile report") {
		t.Errorf("the cancel answer or the add-on is missing:\n%s\n%s", files["cancel_attempts.json"], files["purchases.json"])
	}

	clock.Advance(privacy.DefaultExportLifetime)
	if _, _, err := a.Privacy.Download(ctx, p.user.ID, key); !errors.Is(err, privacy.ErrExportLink) {
		t.Errorf("an expired export: got %v, want ErrExportLink", err)
	}
	if err := a.Privacy.Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	exports := privacy.StoresOf(a.Privacy).Exports
	if e, found, err := exports.Latest(ctx, p.user.ID, time.Time{}); err != nil || found {
		t.Errorf("the export is kept past its lifetime: %+v (%v)", e, err)
	} else if parts, err := exports.Parts(ctx, e.ID); err != nil || len(parts) != 0 {
		t.Errorf("the export's parts are kept past its lifetime: %d (%v)", len(parts), err)
	}
	if _, found, err := exports.Key(ctx, engine.HashToken(key)); err != nil || found {
		t.Errorf("the download key is kept past the export's lifetime (%v)", err)
	}
}

// TestInstagramCallbacks: a data-deletion request signed with the app
// secret deletes the connected profile and answers a code whose status
// page says so; a forged one changes nothing; deauthorize forgets the token.
func TestInstagramCallbacks(t *testing.T) {
	a, _ := openApp(t)
	ctx := context.Background()
	p := seedPerson(t, a, "instagram@example.com")
	q := seedPerson(t, a, "deauth@example.com")

	forged := privacy.SignRequest(privacy.SignedRequest{Algorithm: "HMAC-SHA256", IssuedAt: start.Unix(), UserID: "ig-" + p.user.ID},
		[]byte("not the app secret"))
	if _, err := a.Privacy.InstagramDataDeletion(ctx, forged); engine.ErrorCode(err) != engine.CodeUnauthenticated {
		t.Fatalf("forged request: got %v, want unauthenticated", err)
	}
	if prof, _ := a.Profiles.Get(ctx, p.user.ID); prof.Source == "" {
		t.Fatal("a forged request deleted the profile")
	}

	valid := privacy.SignRequest(privacy.SignedRequest{Algorithm: "HMAC-SHA256", IssuedAt: start.Unix(), UserID: "ig-" + p.user.ID},
		[]byte(appSecret))
	answer, err := a.Privacy.InstagramDataDeletion(ctx, valid)
	if err != nil {
		t.Fatal(err)
	}
	if answer.ConfirmationCode == "" || !strings.HasSuffix(answer.URL, privacy.DeletionStatusPath+"?code="+answer.ConfirmationCode) {
		t.Errorf("answer: %+v", answer)
	}
	if prof, _ := a.Profiles.Get(ctx, p.user.ID); prof.Source != "" || len(prof.Snapshots) != 0 {
		t.Errorf("profile after the deletion request: %+v", prof)
	}
	if n := len(holding(t, a, "profile_snapshots", p.user.ID)); n != 0 {
		t.Errorf("%d snapshots left", n)
	}
	status, found, err := a.Privacy.DeletionStatus(ctx, answer.ConfirmationCode)
	if err != nil || !found || status.Status != privacy.DeletionCompleted {
		t.Errorf("status: %+v %v %v", status, found, err)
	}
	// A replay answers the same code, whose status still says the data
	// was deleted.
	again, err := a.Privacy.InstagramDataDeletion(ctx, valid)
	if err != nil {
		t.Fatal(err)
	}
	if again != answer {
		t.Errorf("a second request for the same user: %+v, want %+v", again, answer)
	}
	if st, _, _ := a.Privacy.DeletionStatus(ctx, again.ConfirmationCode); st.Status != privacy.DeletionCompleted {
		t.Errorf("a second request for the same user: %+v", st)
	}

	deauth := privacy.SignRequest(privacy.SignedRequest{Algorithm: "HMAC-SHA256", IssuedAt: start.Unix(), UserID: "ig-" + q.user.ID}, []byte(appSecret))
	if err := a.Privacy.InstagramDeauthorize(ctx, deauth); err != nil {
		t.Fatal(err)
	}
	prof, err := a.Profiles.Get(ctx, q.user.ID)
	if err != nil || prof.Credential != "" || len(prof.Snapshots) == 0 {
		t.Errorf("after deauthorize: credential %q, %d snapshots (%v)", prof.Credential, len(prof.Snapshots), err)
	}
	unknown := privacy.SignRequest(privacy.SignedRequest{Algorithm: "HMAC-SHA256", IssuedAt: start.Unix(), UserID: "nobody"}, []byte(appSecret))
	if err := a.Privacy.InstagramDeauthorize(ctx, unknown); err != nil {
		t.Errorf("an unknown Instagram user: %v", err)
	}
}

// TestDisconnectInstagram deletes the token, snapshots, lists and analysis.
func TestDisconnectInstagram(t *testing.T) {
	a, _ := openApp(t)
	ctx := context.Background()
	p := seedPerson(t, a, "disconnect@example.com")
	if err := a.Privacy.DisconnectInstagram(ctx, p.user.ID); err != nil {
		t.Fatal(err)
	}
	for _, coll := range []string{"profiles", "profile_snapshots", "profile_chunks", "instagram_links"} {
		for _, d := range holding(t, a, coll, p.user.ID) {
			t.Errorf("%s still holds %.200s", coll, d)
		}
	}
}

// holding returns the documents of the named collection and the rows of the
// table of that name that contain s, as text.
func holding(t *testing.T, a *app.App, name, s string) []string {
	t.Helper()
	docs := documents(t, a, name)
	var out []string
	for _, d := range docs {
		if strings.Contains(d.String(), s) {
			out = append(out, d.String())
		}
	}
	for _, r := range sqlRows(t, a, name) {
		if strings.Contains(r, s) {
			out = append(out, r)
		}
	}
	return out
}

// TestRetainInactive: an account unused for 23 months gets the warning
// mail, one used again keeps going, and the unused one is deleted a month
// after the warning; an account with a plan that still gives access is
// never touched. The clock is the test's.
func TestRetainInactive(t *testing.T) {
	a, clock := openApp(t)
	ctx := context.Background()
	idle, err := a.Auth.CreateUser(ctx, "idle@example.com", password)
	if err != nil {
		t.Fatal(err)
	}
	back, err := a.Auth.CreateUser(ctx, "back@example.com", password)
	if err != nil {
		t.Fatal(err)
	}
	paying := seedPerson(t, a, "paying@example.com")
	if err := a.Billing.Put(ctx, billing.Subscription{ID: "sub-long", UserID: paying.user.ID, Email: paying.user.Email,
		Bundle: "glimpse.web", Brand: "default", PlanCode: "glimpse_weekly_trial", Status: billing.StatusActive, MainPlan: true,
		StartedAt: start}); err != nil {
		t.Fatal(err)
	}
	day := func(n int) {
		t.Helper()
		clock.Set(start.Add(time.Duration(n) * 24 * time.Hour))
		if _, err := a.Privacy.RetainInactive(ctx); err != nil {
			t.Fatal(err)
		}
	}
	day(0) // every account counts from its creation, today
	if again, err := a.Privacy.RetainInactive(ctx); err != nil || again != (privacy.InactivityStats{}) {
		t.Fatalf("a second pass the same day did something: %+v %v", again, err)
	}
	day(699)
	if mails, _ := a.Outbox.To(ctx, []string{idle.Email, back.Email}, nil); len(mails) != 0 {
		t.Fatalf("warned before 23 months: %v", mails)
	}
	// Passes on several instances together warn each account once.
	clock.Set(start.Add(701 * 24 * time.Hour))
	var wg sync.WaitGroup
	var mu sync.Mutex
	warned := 0
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, err := a.Privacy.RetainInactive(ctx)
			if err != nil {
				t.Error(err)
			}
			mu.Lock()
			warned += st.Warned
			mu.Unlock()
		}()
	}
	wg.Wait()
	if warned != 2 {
		t.Errorf("passes run together counted %d warnings, want 2 (idle and back, once each)", warned)
	}
	for _, u := range []auth.User{idle, back} {
		mails, _ := a.Outbox.To(ctx, []string{u.Email}, nil)
		if len(mails) != 1 || mails[0].Template != mail.TemplateInactivity {
			t.Fatalf("%s: warning mails %v", u.Email, mails)
		}
	}
	if mails, _ := a.Outbox.To(ctx, []string{paying.user.Email}, nil); slices.ContainsFunc(mails, func(m mail.Mail) bool {
		return m.Template == mail.TemplateInactivity
	}) {
		t.Error("a subscriber whose plan gives access was warned")
	}
	// "back" signs in again.
	if err := a.Privacy.Touch(ctx, back.ID); err != nil {
		t.Fatal(err)
	}
	day(729)
	if _, err := a.Auth.User(ctx, idle.ID); err != nil {
		t.Fatalf("deleted before the warning period ended: %v", err)
	}
	day(731)
	if _, err := a.Auth.User(ctx, idle.ID); engine.ErrorCode(err) != engine.CodeNotFound {
		t.Errorf("the unused account was not deleted: %v", err)
	}
	for _, u := range []auth.User{back, paying.user} {
		if _, err := a.Auth.User(ctx, u.ID); err != nil {
			t.Errorf("%s was deleted: %v", u.Email, err)
		}
	}
}

// documents returns every document of the named collection of the app's
// MongoDB database, or nil on the embedded store.
func documents(t *testing.T, a *app.App, name string) []bson.Raw {
	t.Helper()
	db := a.Store.DB()
	if db == nil {
		return nil
	}
	cur, err := db.Collection(name).Find(context.Background(), bson.M{})
	if err != nil {
		t.Fatal(err)
	}
	var docs []bson.Raw
	if err := cur.All(context.Background(), &docs); err != nil {
		t.Fatal(err)
	}
	return docs
}
