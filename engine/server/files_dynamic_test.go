package server_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"glimpse/engine/billing"
	"glimpse/engine/mail"
	"glimpse/engine/server"
)

// browserAccept is what a browser asks for when it follows a link itself
// (a download link, a new tab, a link in a mail).
const browserAccept = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"

// The case: an owner of the profile report whose profile has not
// been analysed follows "Download the report". The browser must not save
// the JSON error as profile-report.pdf: it gets a page saying why, with the
// way back to Analytics (nothing asks it to save it). The renderer, which
// fetches a download itself and asks for JSON, gets the error to show in
// the app.
func TestProfileReportNotReadyIsAPageNotAFile(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	u := h.subscriber("ann@example.com", "correct-horse")
	err := h.app.Auth.PutSubscription(context.Background(), billing.Subscription{ID: "report-1", UserID: u.ID,
		Email: u.Email, Bundle: "glimpse.web", PlanCode: "glimpse_profile_report", Status: billing.StatusActive})
	if err != nil {
		t.Fatal(err)
	}
	get := func(accept string) response {
		req := httptest.NewRequest(http.MethodGet, server.PathProfileReport, nil)
		req.Header.Set("Accept", accept)
		return h.do(req)
	}

	// Signed out, the page leads to signing in.
	res := get(browserAccept)
	if res.status != http.StatusUnauthorized || !strings.HasPrefix(res.header.Get("Content-Type"), "text/html") ||
		!strings.Contains(string(res.raw), `href="/sign-in"`) {
		t.Fatalf("signed out: %d %s\n%s", res.status, res.header.Get("Content-Type"), res.raw)
	}

	h.signIn("ann@example.com", "correct-horse")
	res = get(browserAccept)
	page := string(res.raw)
	if res.status != http.StatusNotFound || !strings.HasPrefix(res.header.Get("Content-Type"), "text/html") {
		t.Fatalf("not analysed: %d %s\n%s", res.status, res.header.Get("Content-Type"), page)
	}
	if cd := res.header.Get("Content-Disposition"); cd != "" {
		t.Fatalf("the error page is sent as a file: %s", cd)
	}
	for _, want := range []string{"<!DOCTYPE html>", "This file cannot be downloaded", "Your profile has not been analysed yet.",
		`href="/dashboard/analytics"`, "Back to Glimpse"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q:\n%s", want, page)
		}
	}
	if strings.Contains(page, `{"errors"`) {
		t.Errorf("the page is the JSON error:\n%s", page)
	}
	// Its one style is allowed by hash; nothing else may load.
	style := regexp.MustCompile(`<style>(.*?)</style>`).FindStringSubmatch(page)
	if style == nil {
		t.Fatal("no style")
	}
	sum := sha256.Sum256([]byte(style[1]))
	if csp := res.header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") ||
		!strings.Contains(csp, "'sha256-"+base64.StdEncoding.EncodeToString(sum[:])+"'") {
		t.Errorf("policy %q does not allow the page's style", csp)
	}

	// The renderer's fetch gets the message to show.
	res = get("application/pdf, application/json;q=0.9")
	if res.status != http.StatusNotFound || !strings.HasPrefix(res.header.Get("Content-Type"), "application/json") {
		t.Fatalf("renderer: %d %s", res.status, res.header.Get("Content-Type"))
	}
	if form, _ := res.body["errors"].(map[string]any)["form"].(string); !strings.HasPrefix(form, "Your profile has not been analysed yet.") {
		t.Fatalf("renderer: %s", res.raw)
	}

	// The playbook, not owned: a page too, leading back to My Plan.
	req := httptest.NewRequest(http.MethodGet, server.PathReelsPlaybook, nil)
	req.Header.Set("Accept", browserAccept)
	res = h.do(req)
	if res.status != http.StatusForbidden || !strings.HasPrefix(res.header.Get("Content-Type"), "text/html") ||
		!strings.Contains(string(res.raw), `href="/dashboard?open=my-plan"`) {
		t.Fatalf("playbook: %d %s\n%s", res.status, res.header.Get("Content-Type"), res.raw)
	}
}

// The walk, through the server: a subscriber with no analysed
// profile reads, before paying, that the report is mailed once the profile
// is analysed; pays; the receipt and the mail say so (no download, no
// "attached"); My Plan and Analytics say so too. The first analysis mails
// the report with the PDF, and from then on it downloads.
func TestProfileReportBoughtBeforeTheFirstAnalysis(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ctx := context.Background()
	u := h.subscriberWithCard("ann@example.com", "correct-horse")
	h.signIn("ann@example.com", "correct-horse")
	if home := string(h.screen("/dashboard").raw); !strings.Contains(home, "so we email it to you as soon as the analysis is ready") {
		t.Fatalf("the report's confirmation does not say when it comes: %s", home)
	}

	r := h.actionAt("/dashboard", "plan.buy_report", nil)
	eff := effects(r)
	boughtAt, _ := eff[len(eff)-1]["to"].(string)
	if r.status != http.StatusOK || !strings.HasSuffix(boughtAt, "?purchase=done") {
		t.Fatalf("buy the report: %d %v", r.status, r.body)
	}
	landed := string(h.screen(boughtAt).raw)
	if !strings.Contains(landed, "We email your report to ann@example.com as soon as it is") ||
		strings.Contains(landed, server.PathProfileReport) {
		t.Fatalf("the receipt after buying: %s", landed)
	}
	if got := h.mails(mail.TemplateProfileReport); len(got) != 0 {
		t.Fatalf("a report mail with nothing to attach: %+v", got)
	}
	if got := h.mails(mail.TemplateProfileReportPending); len(got) != 1 || strings.Contains(got[0].Text, "attached") {
		t.Fatalf("the purchase's mail: %+v", got)
	}
	if home := string(h.screen("/dashboard").raw); !strings.Contains(home, "Analyse my profile") ||
		strings.Contains(home, server.PathProfileReport) {
		t.Fatalf("My Plan of an owner with no analysis: %s", home)
	}
	if a := string(h.screen("/dashboard/analytics").raw); !strings.Contains(a, "we email it to you as soon as this analysis is ready") {
		t.Fatalf("Analytics of an owner with no analysis: %s", a)
	}

	if err := h.app.Profiles.SeedDemo(ctx, u.ID, 7); err != nil {
		t.Fatal(err)
	}
	got := h.mails(mail.TemplateProfileReport)
	if len(got) != 1 || got[0].To != "ann@example.com" || len(got[0].Attachments) != 1 {
		t.Fatalf("after the first analysis: %+v", got)
	}
	res := h.do(httptest.NewRequest(http.MethodGet, server.PathProfileReport, nil))
	if res.status != http.StatusOK || !bytes.HasPrefix(res.raw, []byte("%PDF")) {
		t.Fatalf("download after the analysis: %d %s", res.status, res.header.Get("Content-Type"))
	}
	if home := string(h.screen("/dashboard").raw); !strings.Contains(home, server.PathProfileReport) || strings.Contains(home, "Analyse my profile") {
		t.Fatalf("My Plan after the analysis: %s", home)
	}
}
