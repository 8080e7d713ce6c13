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
	"strings"
	"testing"
	"time"

	"glimpse/engine"
	"glimpse/engine/app"
	"glimpse/engine/billing"
	"glimpse/engine/config"
	"glimpse/engine/store/mongostore"
	"glimpse/engine/store/sqlstore"
	"glimpse/engine/store/storetest"
	"glimpse/engine/support"
)

func TestMain(m *testing.M) { os.Exit(storetest.Main(m)) }

// writes are the driver's methods that change or remove documents.
var writes = map[string]bool{"UpdateOne": true, "UpdateMany": true, "UpdateByID": true, "ReplaceOne": true,
	"DeleteOne": true, "DeleteMany": true, "FindOneAndUpdate": true, "FindOneAndReplace": true,
	"FindOneAndDelete": true, "BulkWrite": true, "Drop": true}

// The audit log has no path that changes or removes an entry: in the whole
// module, only the audit log's two store files name its table and
// collection (and privacy's table of fates, which declares that deletion
// keeps it); the MongoDB one calls none of the driver's update, replace or
// delete methods, and the SQLite one sends no UPDATE or DELETE (whose
// triggers would refuse them anyway: sqlstore's TestTheAuditTableRefusesChanges).
// A change that adds one, here or by naming the log elsewhere, fails this.
func TestNoCodeCanEditTheAuditLog(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..")
	mongoFile := filepath.Join("engine", "store", "mongostore", "support.go")
	sqlFile := filepath.Join("engine", "store", "sqlstore", "support.go")
	allowed := map[string]bool{mongoFile: true, sqlFile: true, filepath.Join("engine", "privacy", "fates.go"): true}
	fset := token.NewFileSet()
	named := map[string]bool{}
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
				if n.Kind != token.STRING {
					break
				}
				if strings.Contains(n.Value, "support_audit") {
					named[rel] = true
					if !allowed[rel] {
						t.Errorf("%s names the audit log %s", fset.Position(n.Pos()), n.Value)
					}
				}
				upper := strings.ToUpper(n.Value)
				if rel == sqlFile && (strings.Contains(upper, "UPDATE ") || strings.Contains(upper, "DELETE ")) {
					t.Errorf("%s: the audit log's SQLite store sends %s", fset.Position(n.Pos()), n.Value)
				}
			case *ast.SelectorExpr:
				if rel == mongoFile && writes[n.Sel.Name] {
					t.Errorf("%s: the audit log's MongoDB store calls %s", fset.Position(n.Pos()), n.Sel.Name)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !named[mongoFile] || !named[sqlFile] {
		t.Errorf("the walk did not find the audit log's store files (found %v): is the root right?", named)
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
	clock.Advance(time.Second)
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
		"refund failed ann@example.com sam@example.com Asked by mail Choose a full refund, or write the amount to give back.",
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
	// Each of the four money actions wrote its intent before acting, and
	// its outcome names it: the log holds eight entries and shows four.
	var log support.AuditLog
	if db := a.Store.SQL(); db != nil {
		log = sqlstore.NewSupportAudit(db)
	} else {
		log = mongostore.NewSupportAudit(a.Store.DB())
	}
	stored, err := log.Newest(ctx, 100)
	if err != nil {
		t.Fatal(err)
	}
	intents := map[string]bool{}
	for _, e := range stored {
		if e.Outcome == support.OutcomeStarted {
			intents[e.ID] = true
		}
	}
	for _, e := range stored {
		if e.Outcome != support.OutcomeStarted && !intents[e.Intent] {
			t.Errorf("the outcome %s %s names no intent (%q)", e.Action, e.Outcome, e.Intent)
		}
	}
	if len(stored) != 8 || len(intents) != 4 {
		t.Fatalf("%d entries stored, %d intents", len(stored), len(intents))
	}
}
