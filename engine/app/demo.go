package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"glimpse/engine"
	"glimpse/engine/auth"
	"glimpse/engine/billing"
	"glimpse/engine/brand"
	"glimpse/engine/staff"
)

// Demo account, documented in README.md. The demo subscribers' user ids
// are fixed, so that their variant in an experiment can be computed from the
// experiment's id (e2e/experiments.spec.ts).
const (
	DemoEmail    = "demo@example.com"
	DemoPassword = "glimpse-demo"
	DemoUserID   = "demo-subscriber"
)

// SeedDemo creates the demo subscriber (in the sample breaches) and a second
// one whose email is in none, each with an active weekly plan on the default
// brand, unless they exist. It is idempotent.
func SeedDemo(ctx context.Context, a *App) error {
	if err := seedSubscriber(ctx, a, DemoUserID, DemoEmail, DemoPassword, "demo-weekly"); err != nil {
		return err
	}
	demo, err := a.Auth.UserByEmail(ctx, DemoEmail)
	if err != nil {
		return err
	}
	// The demo subscriber's Analytics shows a generated profile.
	if err := a.Profiles.SeedDemo(ctx, demo.ID, demoProfileSeed); err != nil {
		return fmt.Errorf("seed demo profile: %w", err)
	}
	if err := seedSubscriber(ctx, a, CleanUserID, CleanEmail, CleanPassword, "clean-weekly"); err != nil {
		return err
	}
	// A subscriber no other end-to-end spec cancels, for the experiments'.
	if err := seedSubscriber(ctx, a, ABUserID, ABEmail, ABPassword, "ab-weekly"); err != nil {
		return err
	}
	// An account without any plan: signing in shows the no-subscription
	// modal and its way to the plans.
	if _, err := a.Auth.UserByEmail(ctx, NoPlanEmail); engine.IsNotFound(err) {
		if _, err := a.Auth.CreateUserWithID(ctx, NoPlanUserID, NoPlanEmail, NoPlanPassword); err != nil {
			return fmt.Errorf("seed %s: %w", NoPlanEmail, err)
		}
	} else if err != nil {
		return err
	}
	// The demo subscriber owns the Reels playbook, bought through the
	// sandbox, so the support desk has a real charge to refund.
	if err := seedPurchase(ctx, a, demo, billing.FamilyReelsPlaybook); err != nil {
		return err
	}
	// A demo editor, tester and support agent for the studio.
	if err := a.Staff.Put(ctx, EditorEmail, staff.RoleEditor, EditorPassword); err != nil {
		return err
	}
	if err := a.Staff.Put(ctx, SupportEmail, staff.RoleSupport, SupportPassword); err != nil {
		return err
	}
	return a.Staff.Put(ctx, TesterEmail, staff.RoleTester, TesterPassword)
}

// A demo account with no plan at all, documented in README.md.
const (
	NoPlanEmail    = "no-plan@example.com"
	NoPlanPassword = "glimpse-no-plan"
	NoPlanUserID   = "no-plan-account"
)

// The demo support agent (the support desk), documented in README.md.
const (
	SupportEmail    = "support@example.com"
	SupportPassword = "glimpse-support"
)

// seedPurchase buys an add-on for a demo subscriber on their main plan, once:
// a purchase made before (or refunded since, at the desk) is left as it is.
func seedPurchase(ctx context.Context, a *App, u auth.User, family string) error {
	subs, err := a.Billing.ForUser(ctx, u.ID)
	if err != nil {
		return err
	}
	main, ok := billing.MainSubscription(subs, a.Brands.Get(brand.DefaultKey).Bundle, a.Clock.Now())
	if !ok {
		return nil
	}
	for _, s := range subs {
		if billing.FamilyOf(s.PlanCode) == family {
			return nil
		}
	}
	_, err = a.Billing.Purchase(ctx, billing.PurchaseRequest{UserID: u.ID, Email: u.Email, Main: main, Family: family})
	if err != nil && !errors.Is(err, billing.ErrAlreadyOwned) {
		return fmt.Errorf("seed %s for %s: %w", family, u.Email, err)
	}
	return nil
}

// The demo tester (runs experiments), documented in README.md.
const (
	TesterEmail    = "tester@example.com"
	TesterPassword = "glimpse-tester"
)

// A third demo subscriber, whose plan no end-to-end spec cancels.
const (
	ABEmail    = "ab@example.com"
	ABPassword = "glimpse-ab"
	ABUserID   = "ab-subscriber"
)

// The demo editor, documented in README.md.
const (
	EditorEmail    = "editor@example.com"
	EditorPassword = "glimpse-editor"
)

// demoProfileSeed makes the demo profile the same on every machine.
const demoProfileSeed = 42

// A second demo subscriber whose email is in no (sample) breach.
const (
	CleanEmail    = "clean@example.com"
	CleanPassword = "glimpse-clean"
	CleanUserID   = "clean-subscriber"
)

func seedSubscriber(ctx context.Context, a *App, userID, email, password, subID string) error {
	u, err := a.Auth.UserByEmail(ctx, email)
	if engine.IsNotFound(err) {
		u, err = a.Auth.CreateUserWithID(ctx, userID, email, password)
	}
	if err != nil {
		return fmt.Errorf("seed %s: %w", email, err)
	}
	// A sandbox card that always pays: the demo subscriber can buy add-ons,
	// and the plan renews weekly without taking money.
	started := a.Clock.Now().Add(-24 * time.Hour)
	plan, err := a.Billing.Catalogue().Find(brand.DefaultKey, billing.FamilyWeekly)
	if err != nil {
		return err
	}
	return a.Billing.Put(ctx, billing.Subscription{
		ID: subID, UserID: u.ID, Email: u.Email, Bundle: a.Brands.Get(brand.DefaultKey).Bundle, Brand: brand.DefaultKey,
		PlanCode: plan.Code, Status: billing.StatusActive, MainPlan: true, Price: plan.Price, Provider: a.Billing.Provider().Name(),
		StartedAt: started, CurrentPeriodStart: started, CurrentPeriodEnd: plan.Period.After(started), DueAt: plan.Period.After(started),
		PaymentMethod: billing.PaymentMethod{Provider: a.Billing.Provider().Name(), ID: "pm_sandbox_ok_demo", Brand: "visa", Last4: "4242"},
	})
}
