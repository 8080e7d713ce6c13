package server_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"glimpse/engine/auth"
	"glimpse/engine/profile"
	"glimpse/engine/staff"
)

// The desk's one search box (#34): the start of an address lists every
// subscriber it fits, each with their plan; a whole address, a receipt
// number (any case, dashes or none), a charge id and a card's last four
// each find theirs; one match opens it at once. Typing "demo" is no
// longer "Wrong email format".
func TestSupportFindsBySearch(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	_, annCharge := h.buyer("ann@example.com")
	h.buyer("anna@example.com")
	h.buyer("bob@example.com")
	ctx := context.Background()
	receipt, err := h.app.Billing.ReceiptOfCharge(ctx, annCharge)
	if err != nil {
		t.Fatal(err)
	}
	h.studioSignIn(staff.RoleSupport)
	find := h.supportFind
	// Several: listed, each with its plan, nobody opened.
	if to := find("An"); to != "/studio/support?q=An" {
		t.Fatalf("find An: %s", to)
	}
	listed := h.screen("/studio/support?q=An")
	for _, want := range []string{"Matches (2)", "ann@example.com", "anna@example.com", "Weekly Plan, Reels playbook"} {
		if !strings.Contains(string(listed.raw), want) {
			t.Errorf("the list of An's matches lacks %q: %s", want, listed.raw)
		}
	}
	if strings.Contains(string(listed.raw), "bob@example.com") || strings.Contains(string(listed.raw), `"Actions"`) {
		t.Errorf("An lists bob, or opens a dossier: %s", listed.raw)
	}
	// One: opened.
	for _, q := range []string{"ann@example.com", " ANN@example.com ", receipt.Number, strings.ToLower(strings.ReplaceAll(receipt.Number, "-", "")), annCharge} {
		if to := find(q); to != deskPath("ann@example.com") {
			t.Errorf("find %q: %s, want ann's dossier", q, to)
		}
	}
	if to := find("bo"); to != deskPath("bob@example.com") {
		t.Errorf("find bo: %s", to)
	}
	// A card's last four: everyone paying with it.
	if to := find("4242"); to != "/studio/support?q=4242" {
		t.Errorf("find 4242: %s", to)
	}
	if cards := h.screen("/studio/support?q=4242"); !strings.Contains(string(cards.raw), "Matches (3)") {
		t.Errorf("4242 does not list the three: %s", cards.raw)
	}
	// Nothing: said so, in words.
	if to := find("demo"); to != "/studio/support?q=demo" {
		t.Errorf("find demo: %s", to)
	}
	if none := h.screen("/studio/support?q=demo"); !strings.Contains(string(none.raw), "Nothing matches “demo”.") {
		t.Errorf("no match is not said: %s", none.raw)
	}
	// Too long to be anything: refused under the box.
	if r := h.actionAt("/studio/support", "support.find", map[string]any{"query": strings.Repeat("a", 300)}); r.status != http.StatusUnprocessableEntity {
		t.Errorf("a 300-character query: %d %s", r.status, r.raw)
	}
}

// The dossier reads in words: a charge as what it paid for, when, with
// which card and its receipt number; the extend dialog has the only plan
// chosen and shows the date each choice of days moves it to.
func TestSupportDossierInWords(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	userID, chargeID := h.buyer("ann@example.com")
	receipt, err := h.app.Billing.ReceiptOfCharge(context.Background(), chargeID)
	if err != nil {
		t.Fatal(err)
	}
	// A sign-in keeps its browser's label, which the desk shows.
	phone := auth.WithOrigin(context.Background(), auth.Origin{Device: auth.DeviceOf("Mozilla/5.0 (Linux; Android 14; Pixel 8) Chrome/131.0.0.0 Mobile Safari/537.36")})
	if _, err := h.app.Auth.SignIn(phone, "ann@example.com", "correct-horse", "1.2.3.4", "glimpse.web"); err != nil {
		t.Fatal(err)
	}
	h.studioSignIn(staff.RoleSupport)
	desk := h.screen(deskPath("ann@example.com"))
	raw := string(desk.raw)
	for _, want := range []string{"Reels playbook · $28.99", "paid Nov 1, 2026 with Visa ••4242 · receipt " + receipt.Number,
		"New renewal date: Nov 14, 2026 (now Nov 7, 2026).", `"focus":true`, " · Chrome on Android"} {
		if !strings.Contains(raw, want) {
			t.Errorf("the dossier lacks %q: %s", want, raw)
		}
	}
	form, _ := desk.body["state"].(map[string]any)["form"].(map[string]any)
	if got := form["extendSubscription"]; got != "sub-"+userID {
		t.Errorf("the only plan is not chosen in the extend dialog: %v", got)
	}
	if got := form["cancelSubscription"]; got != "sub-"+userID {
		t.Errorf("the only plan is not chosen in the cancel dialog: %v", got)
	}
}

// The desk's one box finds a subscriber by the start of their Instagram
// username, "@" or not, in any case (#34: "by part of an email or name";
// the username is the only name Glimpse keeps): merged with the matches by
// address, one per address, each saying what matched. An account erased,
// or being erased, is never found.
func TestSupportFindsByInstagramUsername(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ctx := context.Background()
	ann, _ := h.buyer("ann@example.com")
	bob, _ := h.buyer("bob@example.com")
	h.buyer("annie@example.com")
	gone, _ := h.buyer("gone@example.com")
	closing, _ := h.buyer("closing@example.com")
	for user, name := range map[string]string{ann: "ann.insta", bob: "@Annabel_B", gone: "ann.gone", closing: "ann.closing"} {
		if err := h.app.Profiles.Connect(ctx, user, profile.SourceExport, name, 0); err != nil {
			t.Fatal(err)
		}
	}
	goneUser, err := h.app.Auth.User(ctx, gone)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.app.Privacy.Erase(ctx, goneUser, "request"); err != nil {
		t.Fatal(err)
	}
	if err := h.app.Auth.Close(ctx, closing); err != nil { // an erasure under way closes the account first
		t.Fatal(err)
	}
	h.studioSignIn(staff.RoleSupport)
	find := h.supportFind
	// "ann": two addresses start with it, and bob's username does; ann is
	// found both ways, once. The erased and the closing are not listed.
	if to := find("ann"); to != "/studio/support?q=ann" {
		t.Fatalf("find ann: %s", to)
	}
	raw := string(h.screen("/studio/support?q=ann").raw)
	for _, want := range []string{"Matches (3)", "ann@example.com", "annie@example.com", "bob@example.com",
		"Weekly Plan, Reels playbook · Instagram @annabel_b", "Weekly Plan, Reels playbook · email · Instagram @ann.insta"} {
		if !strings.Contains(raw, want) {
			t.Errorf("the matches of ann lack %q: %s", want, raw)
		}
	}
	for _, never := range []string{"gone@example.com", "closing@example.com", "ann.gone", "ann.closing"} {
		if strings.Contains(raw, never) {
			t.Errorf("the matches of ann list %q: %s", never, raw)
		}
	}
	// "@Annab": the username alone, any case, with its "@": one, opened,
	// the dossier naming the username.
	if to := find("@Annab"); to != deskPath("bob@example.com") {
		t.Fatalf("find @Annab: %s", to)
	}
	if dossier := string(h.screen(deskPath("bob@example.com")).raw); !strings.Contains(dossier, `"@annabel_b"`) {
		t.Errorf("bob's dossier does not name @annabel_b: %s", dossier)
	}
	if to := find("ann.c"); to != "/studio/support?q=ann.c" {
		t.Errorf("find ann.c (the closing account's username): %s, want no match", to)
	}
}

// A part inside an address finds it, as Stripe's search does ("smith",
// "example.com"; #34): listed after and beside the starts, each saying
// what its address contains; a part that one address contains opens it; a
// start is still said to be the address. Fewer than three characters
// search starts only, and an erased subscriber is found by no part of the
// address they had.
func TestSupportFindsInsideAnAddress(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ctx := context.Background()
	h.buyer("ann.smith@example.com")
	h.buyer("bob@smith.example")
	h.buyer("smithers@mail.test")
	gone, _ := h.buyer("old.smith@example.com")
	goneUser, err := h.app.Auth.User(ctx, gone)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.app.Privacy.Erase(ctx, goneUser, "request"); err != nil {
		t.Fatal(err)
	}
	h.studioSignIn(staff.RoleSupport)
	find := h.supportFind
	if to := find("Smith"); to != "/studio/support?q=Smith" {
		t.Fatalf("find Smith: %s", to)
	}
	raw := string(h.screen("/studio/support?q=Smith").raw)
	for _, want := range []string{"Matches (3)", "Weekly Plan, Reels playbook · address contains “smith”",
		"ann.smith@example.com", "bob@smith.example", "smithers@mail.test"} {
		if !strings.Contains(raw, want) {
			t.Errorf("the matches of Smith lack %q: %s", want, raw)
		}
	}
	if strings.Count(raw, "address contains") != 2 || !strings.Contains(raw, "Weekly Plan, Reels playbook · email") {
		t.Errorf("smithers@ is not said to start with smith, or the others not to contain it: %s", raw)
	}
	if strings.Contains(raw, "old.smith") {
		t.Errorf("an erased subscriber is found by a part of their old address: %s", raw)
	}
	for q, want := range map[string]string{"b@smi": deskPath("bob@smith.example"), "TH@EXAMPLE.C": deskPath("ann.smith@example.com"),
		"old.smith": "/studio/support?q=old.smith", "th": "/studio/support?q=th"} {
		if to := find(q); to != want {
			t.Errorf("find %q: %s, want %s", q, to, want)
		}
	}
	if none := h.screen("/studio/support?q=th"); !strings.Contains(string(none.raw), "Nothing matches “th”.") {
		t.Errorf("a part of two characters is searched inside addresses: %s", none.raw)
	}
}

// supportFind submits the desk's search box and returns where it sends the
// desk.
func (h *harness) supportFind(q string) string {
	h.t.Helper()
	r := h.actionAt("/studio/support", "support.find", map[string]any{"query": q})
	got := effects(r)
	if r.status != http.StatusOK || len(got) != 1 {
		h.t.Fatalf("find %q: %d %s", q, r.status, r.raw)
	}
	to, _ := got[0]["to"].(string)
	return to
}
