package screens

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"glimpse/engine/brand"
	"glimpse/engine/ui"
)

// deskContext is the default brand's words, as the studio edits them.
func deskContext(t *testing.T) Context {
	t.Helper()
	reg, _ := brands(t)
	b := reg.Get(brand.DefaultKey)
	return Context{Brand: b, Copy: reg.Copy(b)}
}

// Every key of the catalogue gets a screen name (none falls to "Other
// texts"), and the examples of the issue are named as it names them.
func TestCopyScreenNames(t *testing.T) {
	c := deskContext(t)
	for key := range c.Brand.Copy {
		if _, id, _ := copyScreenOf(c, key); id == "other" {
			t.Errorf("%s: no screen", key)
		}
	}
	for key, want := range map[string]string{
		"signIn.title":                  "Sign in",
		"auth.tooManyRequests":          "Sign in",
		"unsubscribe.step3.title":       "Unsubscribe · step 3 (A better price for you)",
		"unsubscribe.step0.title":       "Unsubscribe · step 0 (Before you go)",
		"unsubscribe.back":              "Unsubscribe",
		"studio.experiments.title":      "Studio · experiments",
		"studio.title":                  "Studio",
		"home.news.title":               "Home",
		"no.such.prefix.anywhere.known": "Other texts",
	} {
		if got := CopyScreenName(c, key); got != want {
			t.Errorf("CopyScreenName(%s) = %q, want %q", key, got, want)
		}
	}
}

// The catalogue in screen order: the flow's steps in theirs, and a search
// for "free month" finds the keys whose text holds both words, under their
// screens.
func TestStudioCopySearch(t *testing.T) {
	c := deskContext(t)
	keys := make([]string, 0, len(c.Brand.Copy))
	for k := range c.Brand.Copy {
		keys = append(keys, k)
	}
	items := StudioCopyItems(c.Copy, brand.DefaultKey, keys)
	all := listLabels(StudioCopy(c, brand.DefaultKey, nil, items, "").Screen)
	step := func(n string) int {
		return slices.IndexFunc(all, func(l string) bool { return strings.HasPrefix(l, "Unsubscribe · step "+n) })
	}
	if !(step("0") >= 0 && step("0") < step("3") && step("3") < step("8")) {
		t.Errorf("steps out of order: %v", all)
	}
	if i, j := slices.Index(all, "Sign in"), slices.Index(all, "Checkout"); i < 0 || j < 0 || i > j {
		t.Errorf("sign in should come before checkout: %v", all)
	}

	page := StudioCopy(c, brand.DefaultKey, nil, items, "free month")
	found := map[string]string{}
	walk(page.Screen, func(n *ui.Node) {
		if n.Type == "list_item" {
			found[n.Title] = n.Subtitle
		}
	})
	if len(found) == 0 {
		t.Fatal("free month found nothing")
	}
	for key, text := range found {
		if !strings.Contains(strings.ToLower(text+" "+key+" "+CopyScreenName(c, key)), "free") {
			t.Errorf("%s (%q) does not hold the words", key, text)
		}
	}
	if _, ok := found["unsubscribe.step7.accept"]; !ok {
		t.Errorf("unsubscribe.step7.accept (Get my free month) not found: %v", found)
	}
	if labels := listLabels(page.Screen); !slices.Contains(labels, "Unsubscribe · step 7 (A gift before you go)") {
		t.Errorf("groups %v", labels)
	}
}

// Every key's preview composes, validates against the schema in the editor's
// page, and where it draws the key's screen the text is in it; the screens
// the studio can draw do draw their own keys.
func TestCopyPreviewEveryKey(t *testing.T) {
	c := deskContext(t)
	drawn := 0
	for key := range c.Brand.Copy {
		text := "Preview text for " + key
		tree := CopyPreview(c, key, text, CopySample{})
		page := StudioNewCopy(c, brand.DefaultKey+"/"+key, c.T(key), true, StudioCopyTarget{BrandKey: brand.DefaultKey, BrandName: "Glimpse"}, tree)
		raw, err := json.Marshal(page.Envelope(ui.Meta{ServerNow: "2026-11-01T12:00:00Z", TraceID: "t", Brand: c.Brand.UI(), CSRF: "c", Version: "v"}))
		if err != nil {
			t.Fatal(err)
		}
		if err := ui.ValidateEnvelope(raw); err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		b, _ := json.Marshal(tree)
		if !strings.Contains(string(b), text) && !strings.Contains(string(b), strings.ReplaceAll(text, "&", `\u0026`)) {
			t.Errorf("%s: the preview does not show the text", key)
		}
		if len(tree.Children) > 0 && tree.Children[1].Text != c.T("studio.copyPreview.alone") {
			drawn++
		}
	}
	for _, key := range []string{"signIn.submit", "signIn.headline", "unsubscribe.step3.title", "unsubscribe.step7.accept",
		"createAccount.title", "accessRecovery.title", "studio.signInText",
		// A mail of each kind, its shared words, a variant's sentence, an
		// error in its form and screens after an action.
		"mail.receipt.subject", "mail.purchase.body", "mail.activation.button", "mail.greeting", "mail.footer", "mail.demoSubject",
		"mail.canceled.dropped", "mail.refunded.duplicate", "mail.receipt.refunded", "auth.invalidCredential",
		"accessRecovery.alreadySent", "createAccount.emailInUse", "checkout.done.accountReady", "breach.compromised",
		"unsubscription.canceledTitle"} {
		if tree := CopyPreview(c, key, "X", CopySample{}); tree.Children[1].Text == c.T("studio.copyPreview.alone") {
			t.Errorf("%s: drawn alone, want its screen", key)
		}
	}
	// The coverage may only grow: a key that stops being drawn on its
	// screen (a composer dropped, a screen's state renamed) fails here.
	const floor = copyPreviewFloor
	t.Logf("%d of %d keys drawn on their screen (floor %d)", drawn, len(c.Brand.Copy), floor)
	if drawn < floor {
		t.Errorf("%d keys drawn on their screen, want at least %d", drawn, floor)
	}
}

// copyPreviewFloor is how many of the catalogue's keys the copy editor
// draws on their screen (docs/studio-desk.md §3); raise it with each
// composer added.
const copyPreviewFloor = 901

// A mail's text is drawn in the mail as the dev mailbox shows it, with the
// sample subscriber's values filled in; a form's error in its form.
func TestCopyPreviewMailAndError(t *testing.T) {
	c := deskContext(t)
	sample := CopySample{PeriodEnd: time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC), Operator: "Example Ltd", Origin: "https://app.example"}
	tree := CopyPreview(c, "mail.receipt.subject", "Receipt {number} from {brand}", sample)
	b, _ := json.Marshal(tree)
	for _, want := range []string{"Receipt GL-2026-004217 from " + c.Brand.Name, "Nov 30, 2026", copySampleEmail, "Example Ltd"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("receipt mail: no %q in %s", want, b)
		}
	}
	tree = CopyPreview(c, "mail.purchase.button", "Make my account", sample)
	b, _ = json.Marshal(tree)
	if !strings.Contains(string(b), "Make my account:") || !strings.Contains(string(b), "https://app.example/access-recovery?key=") {
		t.Errorf("purchase mail: button or link missing: %s", b)
	}
	tree = CopyPreview(c, "auth.invalidCredential", "Wrong email or password, sorry", sample)
	found := false
	walk(tree, func(n *ui.Node) {
		found = found || n.Type == "banner" && n.Tone == "danger" && n.Text == "Wrong email or password, sorry"
	})
	if !found {
		t.Errorf("sign-in error not drawn in its form: %+v", tree)
	}
}

// The home's sorts: by date newest first, by editor under each name (the
// never-edited last), and the search over title, slug and kind.
func TestStudioHomeView(t *testing.T) {
	c := deskContext(t)
	at := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	items := []StudioItem{
		{Kind: "news", Slug: "old", Title: "Old news", Status: "published", UpdatedAt: at.Add(-48 * time.Hour), By: "zed@example.com"},
		{Kind: "article", Slug: "fresh", Title: "Fresh article", Status: "draft", UpdatedAt: at, By: "ann@example.com"},
		{Kind: "page", Slug: "privacy", Title: "Privacy", Status: "published"},
	}
	titles := func(p Page) []string {
		var out []string
		walk(p.Screen, func(n *ui.Node) {
			if n.Type == "list_item" {
				out = append(out, n.Title)
			}
		})
		return out
	}
	if got := titles(StudioHomeView(c, "x", items, StudioHomeQuery{Sort: StudioSortDate})); !slices.Equal(got, []string{"Fresh article", "Old news", "Privacy"}) {
		t.Errorf("by date: %v", got)
	}
	p := StudioHomeView(c, "x", items, StudioHomeQuery{Sort: StudioSortEditor})
	if got := listLabels(p.Screen); !slices.Equal(got, []string{"ann@example.com", "zed@example.com", c.T("studio.sort.noEditor")}) {
		t.Errorf("by editor: %v", got)
	}
	if got := titles(StudioHomeView(c, "x", items, StudioHomeQuery{Q: "NEWS"})); !slices.Equal(got, []string{"Old news"}) {
		t.Errorf("search by kind: %v", got)
	}
	if got := titles(StudioHomeView(c, "x", items, StudioHomeQuery{Q: "fresh", Sort: "nonsense"})); !slices.Equal(got, []string{"Fresh article"}) {
		t.Errorf("search by title, unknown sort: %v", got)
	}
	for q, want := range map[StudioHomeQuery]string{
		{}:                                  "/studio",
		{Sort: StudioSortKind}:              "/studio",
		{Q: " free month ", Sort: "editor"}: "/studio?q=free+month&sort=editor",
	} {
		if got := StudioHomeURL(q); got != want {
			t.Errorf("StudioHomeURL(%+v) = %q, want %q", q, got, want)
		}
	}
}

// listLabels are the labels of a tree's lists, in order.
func listLabels(n *ui.Node) []string {
	var out []string
	walk(n, func(n *ui.Node) {
		if n.Type == "list" && n.Label != "" {
			out = append(out, n.Label)
		}
	})
	return out
}
