package server_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"glimpse/content"
	"glimpse/engine/brand"
	"glimpse/engine/experiment"
	"glimpse/engine/library"
	"glimpse/engine/staff"
)

// studioSignIn signs a staff member in to the studio.
func (h *harness) studioSignIn(role string) {
	h.t.Helper()
	pw, err := h.app.Staff.Add(context.Background(), role+"@glimpse.example", role)
	if err != nil {
		h.t.Fatal(err)
	}
	if id := screenID(h.screen("/studio")); id != "studio-sign-in" {
		h.t.Fatalf("studio signed out shows %q", id)
	}
	res := h.action("studio.sign_in", map[string]any{"email": role + "@glimpse.example", "password": pw})
	if got := effects(res); len(got) != 1 || got[0]["to"] != "/studio" {
		h.t.Fatalf("studio sign-in: %d %s", res.status, res.raw)
	}
}

func item(kind, slug string, fields map[string]any) map[string]any {
	v := map[string]any{"/doc/kind": kind, "/doc/slug": slug}
	for k, f := range fields {
		v[k] = f
	}
	return v
}

// save posts the edit form's values from the screen that shows it: the
// item's edit screen, or a new item's, whose rules check them.
func (h *harness) save(values map[string]any) response {
	h.t.Helper()
	path := "/studio/new/" + values["/doc/kind"].(string)
	if slug := values["/doc/slug"].(string); slug != "" {
		path = "/studio/edit/" + values["/doc/kind"].(string) + "/" + slug
	}
	return h.actionAt(path, "studio.save", values)
}

func TestEditorPublishesANewsTitleSubscribersSee(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.studioSignIn(staff.RoleEditor)
	if id := screenID(h.screen("/studio")); id != "studio" {
		t.Fatalf("studio home: %q", id)
	}
	edit := h.screen("/studio/edit/news/carousels-are-back")
	if screenID(edit) != "studio-edit" {
		t.Fatalf("edit screen: %s", edit.raw)
	}
	form := edit.body["state"].(map[string]any)["form"].(map[string]any)
	form["title"] = "Carousels are back, and better"
	// A title left empty breaks the screen's rule; a date that is no date,
	// content's.
	bad := h.save(item("news", "carousels-are-back", map[string]any{"title": "", "date": form["date"],
		"summary": form["summary"], "body": form["body"], "image": form["image"]}))
	if bad.status != http.StatusUnprocessableEntity || fieldErrors(bad)["title"] != "This field is required." {
		t.Fatalf("a save without a title: %d %s", bad.status, bad.raw)
	}
	bad = h.save(item("news", "carousels-are-back", map[string]any{"title": form["title"], "date": "yesterday",
		"summary": form["summary"], "body": form["body"], "image": form["image"]}))
	if bad.status != http.StatusUnprocessableEntity || fieldErrors(bad)["date"] != "Use a date like 2025-01-31." {
		t.Fatalf("a save with a bad date: %d %s", bad.status, bad.raw)
	}
	if res := h.save(item("news", "carousels-are-back", form)); res.status != 200 {
		t.Fatalf("save: %d %s", res.status, res.raw)
	}
	// The preview shows the draft.
	if !contains(texts(h.screen("/studio/preview/news/carousels-are-back").body["screen"]), "Carousels are back, and better") {
		t.Fatal("the preview does not show the draft")
	}
	// Saved but not published: subscribers still see the old title.
	sub := newSubscriberView(t, h)
	if contains(texts(sub.screen("/dashboard/news").body["screen"]), "Carousels are back, and better") {
		t.Fatal("a draft reached subscribers")
	}
	if res := h.action("studio.publish", item("news", "carousels-are-back", nil)); res.status != 200 {
		t.Fatalf("publish: %d %s", res.status, res.raw)
	}
	if !contains(texts(sub.screen("/dashboard/news").body["screen"]), "Carousels are back, and better") {
		t.Fatal("the published title does not reach subscribers")
	}
	// The revision history lets the old title come back.
	edit = h.screen("/studio/edit/news/carousels-are-back")
	if !strings.Contains(string(edit.raw), "#1 seed") || !strings.Contains(string(edit.raw), "#3 publish") {
		t.Fatalf("revisions: %s", edit.raw)
	}
	if res := h.action("studio.restore", item("news", "carousels-are-back", map[string]any{"/restore": 1})); res.status != 200 {
		t.Fatalf("restore: %d %s", res.status, res.raw)
	}
	h.action("studio.publish", item("news", "carousels-are-back", nil))
	if contains(texts(sub.screen("/dashboard/news").body["screen"]), "Carousels are back, and better") {
		t.Fatal("restoring and publishing the seed did not bring the old title back")
	}
}

func TestTestersAndSubscribersCannotEdit(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.subscriber("ann@example.com", "correct-horse")
	h.signIn("ann@example.com", "correct-horse")
	h.screen("/dashboard")
	if res := h.action("studio.publish", item("news", "carousels-are-back", nil)); res.status != http.StatusUnauthorized {
		t.Fatalf("a subscriber publishing: %d", res.status)
	}
	h.studioSignIn(staff.RoleTester)
	edit := h.screen("/studio/edit/news/carousels-are-back")
	if !contains(texts(edit.body["screen"]), "Your role can look at content but not change it.") {
		t.Fatalf("a tester is not told they cannot edit: %.400s", edit.raw)
	}
	if res := h.action("studio.save", item("news", "carousels-are-back", map[string]any{"title": "x"})); res.status != http.StatusForbidden {
		t.Fatalf("a tester saving: %d %s", res.status, res.raw)
	}
}

// newSubscriberView is a second browser, signed in as a subscriber, on the
// same server.
func newSubscriberView(t *testing.T, h *harness) *harness {
	t.Helper()
	sub := &harness{t: t, app: h.app, srv: h.srv, clock: h.clock, cookies: map[string]string{}, host: h.host}
	sub.subscriber("reader@example.com", "correct-horse")
	sub.signIn("reader@example.com", "correct-horse")
	return sub
}

func TestStudioPreviewsEveryKind(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.studioSignIn(staff.RoleEditor)
	for path, id := range map[string]string{
		"/studio/preview/news/carousels-are-back":                                         "news-post",
		"/studio/preview/topic/secret-admirers":                                           "topic",
		"/studio/preview/article/secret-admirers/key-metrics-to-identify-secret-admirers": "article",
		"/studio/preview/page/insights":                                                   "insights",
		"/studio/preview/page/top-trends":                                                 "top-trends",
		"/studio/preview/page/privacy":                                                    "privacy",
	} {
		if got := screenID(h.screen(path)); got != id {
			t.Errorf("%s shows %q, want %q", path, got, id)
		}
	}
	if got := effects(h.screen("/studio/preview/news/no-such")); len(got) != 1 || got[0]["to"] != "/studio" {
		t.Errorf("an unknown item: %v", got)
	}
}

func TestEditorChangesOneBrandsCopy(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.studioSignIn(staff.RoleEditor)
	list := h.screen("/studio/copy/_x_")
	if screenID(list) != "studio-copy" || !strings.Contains(string(list.raw), "signIn.headline") {
		t.Fatalf("copy list: %.300s", list.raw)
	}
	edit := h.screen("/studio/edit/copy/_x_/signIn.headline")
	if screenID(edit) != "studio-edit" {
		t.Fatalf("copy edit: %.300s", edit.raw)
	}
	headline := "See your Instagram the way your audience does"
	if res := h.save(item("copy", "_x_/signIn.headline", map[string]any{"body": headline})); res.status != 200 {
		t.Fatalf("save copy: %d %s", res.status, res.raw)
	}
	if res := h.action("studio.publish", item("copy", "_x_/signIn.headline", nil)); res.status != 200 {
		t.Fatalf("publish copy: %d %s", res.status, res.raw)
	}
	x := &harness{t: t, app: h.app, srv: h.srv, clock: h.clock, cookies: map[string]string{}, host: "x.glimpse.test"}
	if !contains(texts(x.screen("/sign-in").body["screen"]), headline) {
		t.Fatal("the _x_ brand does not show its edited headline")
	}
	d := &harness{t: t, app: h.app, srv: h.srv, clock: h.clock, cookies: map[string]string{}, host: h.host}
	if contains(texts(d.screen("/sign-in").body["screen"]), headline) {
		t.Fatal("the default brand shows _x_'s headline")
	}
}

func TestEditorCreatesATopicAndAPart(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.studioSignIn(staff.RoleEditor)
	if id := screenID(h.screen("/studio/new/topic")); id != "studio-edit" {
		t.Fatalf("new topic screen: %q", id)
	}
	res := h.save(map[string]any{"/doc/kind": "topic", "/doc/slug": "", "slug": "growth-basics",
		"title": "Growth basics", "description": "Where every account starts."})
	if res.status != 200 {
		t.Fatalf("create topic: %d %s", res.status, res.raw)
	}
	res = h.save(map[string]any{"/doc/kind": "article", "/doc/slug": "", "slug": "growth-basics/first-steps",
		"part": "1", "title": "First steps", "description": "Begin here.", "body": "## Start\n\nPost often."})
	if res.status != 200 {
		t.Fatalf("create part: %d %s", res.status, res.raw)
	}
	dup := h.save(map[string]any{"/doc/kind": "topic", "/doc/slug": "", "slug": "growth-basics",
		"title": "Again", "description": "Again."})
	if dup.status != http.StatusUnprocessableEntity || fieldErrors(dup)["slug"] != "This slug is already used." {
		t.Fatalf("a duplicate slug: %d %s", dup.status, dup.raw)
	}
	h.action("studio.publish", map[string]any{"/doc/kind": "topic", "/doc/slug": "growth-basics"})
	h.action("studio.publish", map[string]any{"/doc/kind": "article", "/doc/slug": "growth-basics/first-steps"})
	sub := newSubscriberView(t, h)
	if id := screenID(sub.screen("/dashboard/articles/growth-basics/first-steps")); id != "article" {
		t.Fatalf("the new part for subscribers: %q", id)
	}
}

// The studio's field rules are the content package's: a title one
// character over content's limit is refused through HTTP with content's
// message, whatever its length, and nothing is saved.
func TestStudioSaveReportsContentsFieldRules(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.studioSignIn(staff.RoleEditor)
	edit := h.screen("/studio/edit/news/carousels-are-back")
	form := edit.body["state"].(map[string]any)["form"].(map[string]any)
	before := form["title"]
	var limit int
	for _, f := range library.Fields(library.KindNews, "carousels-are-back") {
		if f.Name == "title" {
			limit = f.Max
		}
	}
	if limit != 140 {
		t.Fatalf("content's title limit is %d, want 140", limit)
	}
	for _, n := range []int{limit + 1, 5000} {
		form["title"] = strings.Repeat("a", n)
		res := h.save(item("news", "carousels-are-back", form))
		if res.status != http.StatusUnprocessableEntity || fieldErrors(res)["title"] != "Keep this under 141 characters." {
			t.Errorf("a %d-character title: %d %s", n, res.status, res.raw)
		}
	}
	form["title"] = 42
	if res := h.save(item("news", "carousels-are-back", form)); res.status != http.StatusUnprocessableEntity ||
		fieldErrors(res)["title"] != "This value is not valid." {
		t.Errorf("a title that is not text: %d %s", res.status, res.raw)
	}
	form["title"] = strings.Repeat("a", limit)
	if res := h.save(item("news", "carousels-are-back", form)); res.status != http.StatusOK {
		t.Fatalf("a title at the limit: %d %s", res.status, res.raw)
	}
	after := h.screen("/studio/edit/news/carousels-are-back").body["state"].(map[string]any)["form"].(map[string]any)
	if after["title"] != strings.Repeat("a", limit) || after["title"] == before {
		t.Errorf("the draft's title after the saves: %q", after["title"])
	}
}

// Every problem the content package and the experiments report is a copy
// key of the default brand, with no placeholder the packages leave unfilled:
// the studio words them all.
func TestStudioProblemsHaveDefaultCopy(t *testing.T) {
	t.Parallel()
	brands, err := brand.ReadShipped(content.Brands)
	if err != nil {
		t.Fatal(err)
	}
	var copy map[string]string
	for _, b := range brands {
		if b.Key == brand.DefaultKey {
			copy = b.Copy
		}
	}
	args := strings.NewReplacer("{"+library.ArgUnder+"}", "", "{"+experiment.ArgUnder+"}", "",
		"{"+experiment.ArgMin+"}", "", "{"+experiment.ArgMax+"}", "")
	for _, code := range append(slices.Clone(library.ProblemCodes), experiment.ProblemCodes...) {
		text, ok := copy[code]
		if !ok || strings.TrimSpace(text) == "" {
			t.Errorf("%s has no copy in the default brand", code)
		}
		if rest := args.Replace(text); strings.ContainsAny(rest, "{}") {
			t.Errorf("%s's copy has a placeholder no problem fills: %q", code, text)
		}
	}
}
