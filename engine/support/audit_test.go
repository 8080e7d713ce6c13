package support_test

import (
	"context"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"glimpse/engine"
	"glimpse/engine/app"
	"glimpse/engine/billing"
	"glimpse/engine/config"
	"glimpse/engine/store/storetest"
	"glimpse/engine/support"
)

func TestMain(m *testing.M) { os.Exit(storetest.Main(m)) }

// writes are the driver's methods that change or remove documents.
var writes = map[string]bool{"UpdateOne": true, "UpdateMany": true, "UpdateByID": true, "ReplaceOne": true,
	"DeleteOne": true, "DeleteMany": true, "FindOneAndUpdate": true, "FindOneAndReplace": true,
	"FindOneAndDelete": true, "BulkWrite": true, "Drop": true}

// The audit log has no path that changes or removes an entry: in the whole
// module, only engine/support/audit.go opens its collection, and that file
// calls none of the driver's update, replace or delete methods. A change
// that adds one (here, or by opening the collection elsewhere) fails this.
func TestNoCodeCanEditTheAuditLog(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	opened := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BasicLit:
				if n.Kind == token.STRING && n.Value == strconv.Quote(support.AuditCollection) && rel != filepath.Join("engine", "support", "audit.go") {
					t.Errorf("%s names the audit collection %s", fset.Position(n.Pos()), n.Value)
				}
			case *ast.Ident:
				if n.Name == "AuditCollection" {
					opened[rel] = true
				}
			case *ast.SelectorExpr:
				if rel == filepath.Join("engine", "support", "audit.go") && writes[n.Sel.Name] {
					t.Errorf("%s: the audit log's file calls %s", fset.Position(n.Pos()), n.Sel.Name)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Privacy's table of what deletion does to each collection names the
	// log only to declare that deletion keeps it.
	declares := filepath.Join("engine", "privacy", "fates.go")
	for file := range opened {
		if file != filepath.Join("engine", "support", "audit.go") && file != declares {
			t.Errorf("%s refers to support.AuditCollection; only engine/support/audit.go may", file)
		}
	}
	if !opened[filepath.Join("engine", "support", "audit.go")] {
		t.Error("the walk did not find engine/support/audit.go: is the root right?")
	}
}

func openApp(t *testing.T) (*app.App, *engine.ManualClock) {
	t.Helper()
	cfg, err := config.Load(func(k string) string { return map[string]string{"GLIMPSE_ENVIRONMENT": config.Development}[k] })
	if err != nil {
		t.Fatal(err)
	}
	cfg.PasswordMemoryKiB, cfg.PasswordPasses = 1024, 1 // cheap argon2id: auth.NewHasherCosting
	clock := engine.NewManualClock(time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC))
	a, err := app.Open(context.Background(), cfg, slog.New(slog.DiscardHandler), clock, storetest.Open(t))
	if err != nil {
		t.Fatal(err)
	}
	return a, clock
}

// buyer gives ann a weekly plan with a sandbox card and the Reels playbook.
func buyer(t *testing.T, a *app.App) (billing.Subscription, string) {
	t.Helper()
	ctx := context.Background()
	u, err := a.Auth.CreateUser(ctx, "ann@example.com", "correct-horse")
	if err != nil {
		t.Fatal(err)
	}
	now := a.Clock.Now()
	main := billing.Subscription{ID: "main-ann", UserID: u.ID, Email: u.Email, Bundle: "glimpse.web", Brand: "default",
		PlanCode: "glimpse_weekly_trial", Status: billing.StatusActive, MainPlan: true, Price: billing.USD(100), Provider: "sandbox",
		StartedAt: now, CurrentPeriodStart: now, CurrentPeriodEnd: now.AddDate(0, 0, 7), DueAt: now.AddDate(0, 0, 7),
		PaymentMethod: billing.PaymentMethod{Provider: "sandbox", ID: "pm_sandbox_ok_x", Brand: "visa", Last4: "4242"}}
	if err := a.Billing.Put(ctx, main); err != nil {
		t.Fatal(err)
	}
	addOn, err := a.Billing.Purchase(ctx, billing.PurchaseRequest{UserID: u.ID, Email: u.Email, Main: main, Family: billing.FamilyReelsPlaybook})
	if err != nil {
		t.Fatal(err)
	}
	charges, err := a.Billing.ChargesFor(ctx, []string{addOn.ID})
	if err != nil || len(charges) != 1 {
		t.Fatalf("charges: %v %v", charges, err)
	}
	return main, charges[0].ID
}

// An action that fails is in the log too, with what staff were told; one
// refused before it ran (no reason) is not, since nothing was tried. The
// log lists entries newest first.
func TestAuditRecordsEveryActionThatRan(t *testing.T) {
	t.Parallel()
	a, clock := openApp(t)
	ctx := context.Background()
	main, chargeID := buyer(t, a)
	act := support.Act{Staff: "sam@example.com", Subscriber: "ANN@example.com ", Reason: "Asked by mail", Key: "view-1"}
	if _, err := a.Support.Refund(ctx, support.Act{Staff: "sam@example.com", Subscriber: "ann@example.com", Reason: " no "}, chargeID, true, 0); !errors.Is(err, support.ErrReason) {
		t.Fatalf("a refund with a three-letter reason: %v", err)
	}
	if _, err := a.Support.Refund(ctx, act, chargeID, false, 100_000); !errors.Is(err, billing.ErrRefundTooLarge) {
		t.Fatalf("a refund of more than the charge: %v", err)
	}
	clock.Advance(time.Second)
	if _, err := a.Support.Refund(ctx, act, chargeID, false, 0); !errors.Is(err, billing.ErrRefundAmount) {
		t.Fatalf("a partial refund of nothing: %v", err)
	}
	if _, err := a.Support.Refund(ctx, act, chargeID, true, 0); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Second)
	if err := a.Support.Cancel(ctx, act, main.ID, false); err != nil {
		t.Fatal(err)
	}
	entries, err := a.Support.Audit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Action+" "+e.Outcome+" "+e.Subscriber+" "+e.Staff+" "+e.Reason+" "+e.Problem)
	}
	want := []string{
		"cancel_at_period_end done ann@example.com sam@example.com Asked by mail ",
		"refund done ann@example.com sam@example.com Asked by mail ",
		"refund failed ann@example.com sam@example.com Asked by mail The refund is more than what is left of the charge.",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("audit log:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for i := 1; i < len(entries); i++ {
		if entries[i-1].ID <= entries[i].ID {
			t.Errorf("entries not newest first: %s before %s", entries[i-1].ID, entries[i].ID)
		}
	}
}

// The dossier shows what support needs and nothing secret.
func TestFindShowsOnlyWhatSupportNeeds(t *testing.T) {
	t.Parallel()
	a, _ := openApp(t)
	ctx := context.Background()
	_, chargeID := buyer(t, a)
	if _, err := a.Auth.SignIn(ctx, "ann@example.com", "correct-horse", "1.2.3.4", "glimpse.web"); err != nil {
		t.Fatal(err)
	}
	d, err := a.Support.Find(ctx, "Ann@Example.com")
	if err != nil {
		t.Fatal(err)
	}
	if d.Account == nil || len(d.Subscriptions) != 2 || len(d.Charges) != 1 || d.Charges[0].ID != chargeID ||
		!d.Charges[0].Refundable || len(d.SignIns) != 1 || !d.SignIns[0].Live || len(d.Mails) == 0 {
		t.Fatalf("dossier = %+v", d)
	}
	for _, m := range d.Mails {
		if m.Subject == "" || m.Status == "" {
			t.Errorf("mail line %+v", m)
		}
	}
	if _, err := a.Support.Find(ctx, "nobody@example.com"); !errors.Is(err, support.ErrNoSubscriber) {
		t.Fatalf("an unknown address: %v", err)
	}
}

// Signing a subscriber out everywhere ends each of their sessions (the
// account's epoch moves on, so no session is deleted by a scan): their
// tokens are refused at once and the desk shows those sign-ins ended; a
// sign-in afterwards is live.
func TestSignOutEverywhereEndsEverySession(t *testing.T) {
	t.Parallel()
	a, clock := openApp(t)
	ctx := context.Background()
	buyer(t, a)
	var tokens []string
	for range 2 {
		token, err := a.Auth.SignIn(ctx, "ann@example.com", "correct-horse", "1.2.3.4", "glimpse.web")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.Auth.Authenticate(ctx, token); err != nil {
			t.Fatal(err)
		}
		tokens = append(tokens, token)
	}
	act := support.Act{Staff: "sam@example.com", Subscriber: "ann@example.com", Reason: "Lost the phone", Key: "signout-1"}
	if err := a.Support.SignOutEverywhere(ctx, act); err != nil {
		t.Fatal(err)
	}
	for _, token := range tokens {
		if _, err := a.Auth.Authenticate(ctx, token); err == nil {
			t.Fatal("a session still works after signing out everywhere")
		}
	}
	d, err := a.Support.Find(ctx, "ann@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.SignIns) != 2 || d.SignIns[0].Live || d.SignIns[1].Live {
		t.Fatalf("sign-ins after signing out everywhere: %+v", d.SignIns)
	}
	clock.Advance(time.Minute)
	token, err := a.Auth.SignIn(ctx, "ann@example.com", "correct-horse", "1.2.3.4", "glimpse.web")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Auth.Authenticate(ctx, token); err != nil {
		t.Fatalf("a sign-in afterwards: %v", err)
	}
	if d, err = a.Support.Find(ctx, "ann@example.com"); err != nil || len(d.SignIns) != 3 || !d.SignIns[0].Live {
		t.Fatalf("sign-ins after signing in again: %+v %v", d.SignIns, err)
	}
}

// A renewal's receipt is not on the address's list of mails (the renewal
// pass queues hundreds at a time); the dossier finds it through its charge,
// beside the mails on the list, newest first.
func TestDossierShowsRenewalReceiptsThroughTheirCharges(t *testing.T) {
	t.Parallel()
	a, clock := openApp(t)
	ctx := context.Background()
	main, _ := buyer(t, a)
	clock.Set(main.DueAt.Add(time.Minute))
	if st, err := a.Billing.RenewDue(ctx); err != nil || st.Renewed != 1 {
		t.Fatalf("renewal pass: %+v, %v", st, err)
	}
	listed, err := a.Outbox.SentTo(ctx, "ann@example.com", 50)
	if err != nil {
		t.Fatal(err)
	}
	d, err := a.Support.Find(ctx, "ann@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Mails) != len(listed)+1 {
		t.Fatalf("dossier lists %d mails, want the %d on the list and the renewal's receipt: %+v", len(d.Mails), len(listed), d.Mails)
	}
	renewal := d.Mails[0]
	if renewal.Template != "receipt" || !renewal.CreatedAt.Equal(clock.Now()) {
		t.Fatalf("newest mail in the dossier: %+v, want the renewal's receipt", renewal)
	}
	for _, m := range listed {
		if m.ID == renewal.ID {
			t.Fatalf("the renewal's receipt is on the address's list: %+v", m)
		}
	}
}
