package app

import (
	"context"
	"fmt"
	"time"

	"glimpse/engine"
	"glimpse/engine/billing"
	"glimpse/engine/brand"
	"glimpse/engine/staff"
)

// Demo account, documented in README.md.
const (
	DemoEmail    = "demo@example.com"
	DemoPassword = "glimpse-demo"
)

// SeedDemo creates the demo subscriber (in the sample breaches) and a second
// one whose email is in none, each with an active weekly plan on the default
// brand, unless they exist. It is idempotent.
func SeedDemo(ctx context.Context, a *App) error {
	if err := seedSubscriber(ctx, a, DemoEmail, DemoPassword, "demo-weekly"); err != nil {
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
	if err := seedSubscriber(ctx, a, CleanEmail, CleanPassword, "clean-weekly"); err != nil {
		return err
	}
	// A demo editor for the studio.
	return a.Staff.Put(ctx, EditorEmail, staff.RoleEditor, EditorPassword)
}

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
)

func seedSubscriber(ctx context.Context, a *App, email, password, subID string) error {
	u, err := a.Auth.UserByEmail(ctx, email)
	if engine.IsNotFound(err) {
		u, err = a.Auth.CreateUser(ctx, email, password)
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
