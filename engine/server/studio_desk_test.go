package server_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"glimpse/engine/staff"
	"glimpse/engine/ui"
)

// nodesOfType returns every node of type typ in a decoded tree, depth first.
func nodesOfType(v any, typ string) []map[string]any {
	var out []map[string]any
	switch n := v.(type) {
	case map[string]any:
		if n["type"] == typ {
			out = append(out, n)
		}
		for _, child := range n {
			out = append(out, nodesOfType(child, typ)...)
		}
	case []any:
		for _, child := range n {
			out = append(out, nodesOfType(child, typ)...)
		}
	}
	return out
}

// editForm is the edit screen's form values as its state holds them.
func editForm(t *testing.T, edit response) map[string]any {
	t.Helper()
	state, _ := edit.body["state"].(map[string]any)
	form, ok := state["form"].(map[string]any)
	if !ok {
		t.Fatalf("no form state: %.300s", edit.raw)
	}
	return form
}

func TestStudioEditIsWideWithALivePreviewAndAPicturePicker(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.studioSignIn(staff.RoleEditor)
	edit := h.screen("/studio/edit/news/carousels-are-back")
	if err := ui.ValidateEnvelope(edit.raw); err != nil {
		t.Fatalf("the edit screen breaks the schema: %v", err)
	}
	scr := edit.body["screen"].(map[string]any)
	if scr["width"] != "wide" {
		t.Errorf("the edit screen is not wide: %v", scr["width"])
	}
	splits := nodesOfType(scr, "split")
	if len(splits) != 1 {
		t.Fatalf("%d splits on the edit screen", len(splits))
	}
	columns := splits[0]["children"].([]any)
	// The editor's column holds the edit form (and the schedule's, #34).
	editForms := slices.DeleteFunc(nodesOfType(columns[0], "form"), func(f map[string]any) bool { return f["id"] != "studio-edit" })
	if len(columns) != 2 || len(editForms) != 1 || columns[1].(map[string]any)["type"] != "preview" {
		t.Fatalf("the split is not the editor beside the preview: %v", columns)
	}
	preview := columns[1].(map[string]any)
	if preview["watch"] != "/form" || preview["bind"] != "/preview" {
		t.Errorf("the preview follows %v into %v", preview["watch"], preview["bind"])
	}
	if !contains(texts(preview["children"]), editForm(t, edit)["title"].(string)) {
		t.Error("the preview does not start with the draft's title")
	}

	pickers := nodesOfType(scr, "image_choice")
	if len(pickers) != 1 || pickers[0]["bind"] != "/form/image" {
		t.Fatalf("the news item has no picker for its image: %v", pickers)
	}
	var values []string
	for _, o := range pickers[0]["options"].([]any) {
		opt := o.(map[string]any)
		values = append(values, opt["value"].(string))
		if img, _ := opt["image"].(map[string]any); img["src"] != opt["value"] {
			t.Errorf("option %v has no thumbnail of itself", opt)
		}
	}
	if !slices.Contains(values, "/static/news/carousels-are-back.svg") {
		t.Errorf("the pictures leave out the news pictures: %v", values)
	}
	if slices.ContainsFunc(values, func(v string) bool { return strings.HasPrefix(v, "/static/brands/") }) {
		t.Error("brand logos are offered as pictures")
	}

	// The copy editor previews its key on the screen that shows it (#34;
	// it had none).
	cp := h.screen("/studio/edit/copy/default/studio.title")
	if err := ui.ValidateEnvelope(cp.raw); err != nil {
		t.Fatal(err)
	}
	if p := nodesOfType(cp.body["screen"], "preview"); len(p) != 1 || !contains(texts(p[0]), "On screen: Studio") {
		t.Errorf("a copy item's preview: %v", p)
	}
	// A topic's background is a picture too.
	topic := h.screen("/studio/edit/topic/secret-admirers")
	if p := nodesOfType(topic.body["screen"], "image_choice"); len(p) != 1 || p[0]["bind"] != "/form/background" {
		t.Errorf("a topic's background has no picker: %v", p)
	}
}

func TestStudioLivePreviewComposesTheUnsavedDraft(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.studioSignIn(staff.RoleEditor)
	form := editForm(t, h.screen("/studio/edit/news/carousels-are-back"))
	form["title"] = "A title typed, not saved"
	form["image"] = "/static/news/trial-reels-explained.svg"
	res := h.action("studio.preview", map[string]any{"/form": form, "/doc/kind": "news", "/doc/slug": "carousels-are-back"})
	if res.status != http.StatusOK {
		t.Fatalf("preview: %d %s", res.status, res.raw)
	}
	if err := ui.ValidateResult(res.raw); err != nil {
		t.Fatal(err)
	}
	got := effects(res)
	if len(got) != 1 || got[0]["type"] != "set_state" || got[0]["path"] != "/preview" {
		t.Fatalf("preview effects: %s", res.raw)
	}
	tree := got[0]["value"]
	var node ui.Node
	raw, _ := json.Marshal(tree)
	if err := json.Unmarshal(raw, &node); err != nil {
		t.Fatal(err)
	}
	if err := ui.ValidateNode(&node); err != nil {
		t.Fatalf("the preview's tree breaks the schema: %v", err)
	}
	if !contains(texts(tree), "A title typed, not saved") {
		t.Errorf("the preview does not show the typed title: %s", raw)
	}
	if imgs := nodesOfType(tree, "image"); len(imgs) != 1 || imgs[0]["src"] != "/static/news/trial-reels-explained.svg" {
		t.Errorf("the preview does not show the picked picture: %v", imgs)
	}
	// Nothing was saved.
	if editForm(t, h.screen("/studio/edit/news/carousels-are-back"))["title"] == "A title typed, not saved" {
		t.Error("the preview saved the draft")
	}

	// A value that breaks its rule is left out rather than drawn.
	form["image"] = "https://elsewhere.example/x.png"
	res = h.action("studio.preview", map[string]any{"/form": form, "/doc/kind": "news", "/doc/slug": "carousels-are-back"})
	if got := effects(res); len(got) != 1 || len(nodesOfType(got[0]["value"], "image")) != 0 {
		t.Errorf("an image from elsewhere reached the preview: %s", res.raw)
	}

	// A new item previews before it has a slug.
	res = h.action("studio.preview", map[string]any{"/form": map[string]any{"slug": "", "title": "Brand new", "body": "Hello"},
		"/doc/kind": "news", "/doc/slug": ""})
	if got := effects(res); len(got) != 1 || !contains(texts(got[0]["value"]), "Brand new") {
		t.Errorf("a new item's preview: %s", res.raw)
	} else if today := h.clock.Now().UTC().Format("January 2, 2006"); !contains(texts(got[0]["value"]), today) {
		t.Errorf("a new item without a date is not dated today (%s): %s", today, res.raw)
	}
	// Copy is drawn on the screen that shows it (#34; it had no preview):
	// the studio's title on the studio's sign-in screen.
	res = h.action("studio.preview", map[string]any{"/form": map[string]any{"body": "Typed title"}, "/doc/kind": "copy", "/doc/slug": "default/studio.title"})
	if got := effects(res); res.status != http.StatusOK || len(got) != 1 || got[0]["path"] != "/preview" ||
		!contains(texts(got[0]["value"]), "Typed title") || !contains(texts(got[0]["value"]), "On screen: Studio") {
		t.Errorf("a copy preview: %d %s", res.status, res.raw)
	}
}

func TestStudioPreviewNeedsStaff(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.screen("/sign-in")
	res := h.action("studio.preview", map[string]any{"/form": map[string]any{"title": "x"}, "/doc/kind": "news", "/doc/slug": "carousels-are-back"})
	if res.status != http.StatusUnauthorized {
		t.Fatalf("a preview without a staff session: %d %s", res.status, res.raw)
	}
}

func TestPublishSavesAnUnsavedEditFirst(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.studioSignIn(staff.RoleEditor)
	sub := newSubscriberView(t, h)
	form := editForm(t, h.screen("/studio/edit/news/carousels-are-back"))

	// Values that break a rule: nothing is saved or published.
	bad := map[string]any{}
	for k, v := range form {
		bad[k] = v
	}
	bad["title"], bad["date"] = "Never published", "someday"
	res := h.action("studio.publish", item("news", "carousels-are-back", bad))
	if res.status != http.StatusUnprocessableEntity || fieldErrors(res)["date"] == nil {
		t.Fatalf("publishing a bad date: %d %s", res.status, res.raw)
	}
	if contains(texts(sub.screen("/dashboard/news").body["screen"]), "Never published") {
		t.Fatal("values with errors were published")
	}

	// Publish with an edit not yet saved: the edit is saved, then published.
	form["title"] = "Typed and published at once"
	if res := h.action("studio.publish", item("news", "carousels-are-back", form)); res.status != http.StatusOK {
		t.Fatalf("publish: %d %s", res.status, res.raw)
	}
	if !contains(texts(sub.screen("/dashboard/news").body["screen"]), "Typed and published at once") {
		t.Fatal("the unsaved edit was dropped by Publish")
	}
	edit := h.screen("/studio/edit/news/carousels-are-back")
	if editForm(t, edit)["title"] != "Typed and published at once" {
		t.Error("the draft does not hold the published edit")
	}
	revs := texts(edit.body["screen"])
	for _, want := range []string{"#2 save ", "#3 publish "} {
		if !slices.ContainsFunc(revs, func(s string) bool { return strings.HasPrefix(s, want) }) {
			t.Errorf("no revision %q: %v", want, revs)
		}
	}
}
