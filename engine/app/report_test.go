package app_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"glimpse/engine"
	"glimpse/engine/app"
	"glimpse/engine/billing"
	"glimpse/engine/brand"
	"glimpse/engine/mail"
	"glimpse/engine/store/storetest"
)

// openDemo opens the app with the demo subscribers seeded.
func openDemo(t *testing.T) *app.App {
	t.Helper()
	a, err := app.Open(context.Background(), load(t, map[string]string{"GLIMPSE_DEMO": "1"}), slog.New(slog.DiscardHandler),
		engine.NewManualClock(time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)), storetest.Open(t))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// buyReport buys the profile report for a seeded subscriber on their plan.
func buyReport(t *testing.T, a *app.App, userID, email string) {
	t.Helper()
	ctx := context.Background()
	subs, err := a.Billing.ForUser(ctx, userID)
	if err != nil {
		t.Fatal(err)
	}
	main, ok := billing.MainSubscription(subs, a.Brands.Get(brand.DefaultKey).Bundle, a.Clock.Now())
	if !ok {
		t.Fatalf("%s has no plan", email)
	}
	if _, err := a.Billing.Purchase(ctx, billing.PurchaseRequest{UserID: userID, Email: email, Main: main,
		Family: billing.FamilyProfileReport}); err != nil {
		t.Fatal(err)
	}
}

// reportMails are the profile report mails (with the PDF) queued for to.
func reportMails(t *testing.T, a *app.App, to string) []mail.Mail {
	t.Helper()
	all, err := a.Outbox.List(context.Background(), 500)
	if err != nil {
		t.Fatal(err)
	}
	var out []mail.Mail
	for _, m := range all {
		if m.To == to && m.Template == mail.TemplateProfileReport {
			out = append(out, m)
		}
	}
	return out
}

// The case: clean@example.com, with no analysed profile, buys the
// report. The purchase's mail must not say a PDF is attached (there is none
// to attach); it says the report follows once the profile is analysed. The
// first analysis then mails the report with the PDF attached, and a later
// analysis does not mail it again.
func TestProfileReportBoughtBeforeAnalysisIsMailedAtTheFirstAnalysis(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := openDemo(t)
	buyReport(t, a, app.CleanUserID, app.CleanEmail)

	if got := reportMails(t, a, app.CleanEmail); len(got) != 0 {
		t.Fatalf("a report mail went out with no analysis to make it from: %+v", got)
	}
	pending, err := a.Outbox.Get(ctx, app.ProfileReportPendingKey(app.CleanUserID))
	if err != nil {
		t.Fatalf("the purchase sent no mail saying when the report comes: %v", err)
	}
	if pending.To != app.CleanEmail || len(pending.Attachments) != 0 {
		t.Fatalf("pending mail: to %q, %d attachments", pending.To, len(pending.Attachments))
	}
	if strings.Contains(strings.ToLower(pending.Text), "attached") {
		t.Fatalf("the mail says attached with nothing attached:\n%s", pending.Text)
	}
	if !strings.Contains(pending.Text, "As soon as it is, we email the report to "+app.CleanEmail) ||
		!strings.Contains(pending.Text, "/dashboard/analytics") {
		t.Fatalf("the pending mail does not promise the report or lead to Analytics:\n%s", pending.Text)
	}

	// The profile is connected and analysed (SeedDemo analyses it).
	if err := a.Profiles.SeedDemo(ctx, app.CleanUserID, 7); err != nil {
		t.Fatal(err)
	}
	delivered, err := a.Outbox.Get(ctx, app.ProfileReportKey(app.CleanUserID))
	if err != nil {
		t.Fatalf("the first analysis did not mail the report bought before it: %v", err)
	}
	if delivered.To != app.CleanEmail || len(delivered.Attachments) != 1 ||
		delivered.Attachments[0].ContentType != "application/pdf" || !bytes.HasPrefix(delivered.Attachments[0].Data, []byte("%PDF")) {
		t.Fatalf("delivered report: to %q, attachments %d", delivered.To, len(delivered.Attachments))
	}
	if !strings.Contains(delivered.Text, "attached to this mail as a PDF") {
		t.Fatalf("the report mail:\n%s", delivered.Text)
	}
	// Analysed again (the next refresh): mailed once.
	if _, err := a.Profiles.Analyse(ctx, app.CleanUserID); err != nil {
		t.Fatal(err)
	}
	if got := reportMails(t, a, app.CleanEmail); len(got) != 1 {
		t.Fatalf("%d report mails, want 1", len(got))
	}
}

// A subscriber whose profile is analysed gets the report with the purchase,
// attached, and no mail promising it for later.
func TestProfileReportBoughtWithAnAnalysisIsAttached(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := openDemo(t)
	buyReport(t, a, app.DemoUserID, app.DemoEmail)
	m, err := a.Outbox.Get(ctx, app.ProfileReportKey(app.DemoUserID))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Attachments) != 1 || !bytes.HasPrefix(m.Attachments[0].Data, []byte("%PDF")) {
		t.Fatalf("%d attachments", len(m.Attachments))
	}
	if _, err := a.Outbox.Get(ctx, app.ProfileReportPendingKey(app.DemoUserID)); !engine.IsNotFound(err) {
		t.Fatalf("a report mailed at once was also promised for later: %v", err)
	}
	if _, err := a.Profiles.Analyse(ctx, app.DemoUserID); err != nil {
		t.Fatal(err)
	}
	if got := reportMails(t, a, app.DemoEmail); len(got) != 1 {
		t.Fatalf("%d report mails, want 1", len(got))
	}
}

// An analysis mails no report to someone who did not buy it.
func TestAnalysisMailsNoReportToANonOwner(t *testing.T) {
	t.Parallel()
	a := openDemo(t)
	if err := a.Profiles.SeedDemo(context.Background(), app.ABUserID, 9); err != nil {
		t.Fatal(err)
	}
	if got := reportMails(t, a, app.ABEmail); len(got) != 0 {
		t.Fatalf("a report mailed to a non-owner: %+v", got)
	}
}
