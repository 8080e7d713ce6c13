package server_test

import (
	"net/http"
	"testing"

	"glimpse/engine/staff"
)

// The studio routes are guarded by guardStaff: a signed-out visitor (or a
// signed-in subscriber, who is no staff member) gets the studio sign-in at
// /studio and is sent there from every other studio path.
func TestStaffGuardSendsVisitorsToTheStudioSignIn(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	check := func(who string) {
		t.Helper()
		if id := screenID(h.screen("/studio")); id != "studio-sign-in" {
			t.Errorf("%s at /studio sees %q", who, id)
		}
		for _, path := range []string{"/studio/new/news", "/studio/edit/news/carousels-are-back",
			"/studio/preview/news/carousels-are-back", "/studio/copy/_x_"} {
			if got := effects(h.screen(path)); len(got) != 1 || got[0]["to"] != "/studio" {
				t.Errorf("%s at %s: %v", who, path, got)
			}
		}
		if res := h.action("studio.save", item("news", "carousels-are-back", map[string]any{"title": "x"})); res.status != http.StatusUnauthorized ||
			formError(res) != "Please sign in to the studio first." {
			t.Errorf("%s saving: %d %s", who, res.status, res.raw)
		}
	}
	check("a signed-out visitor")
	h.subscriber("ann@example.com", "correct-horse")
	h.signIn("ann@example.com", "correct-horse")
	check("a subscriber")
}

// The editor role of the action table admits editors and admins; a tester
// may look at every studio screen but is refused before anything is saved.
func TestStaffGuardAdmitsEditorsAndAdmins(t *testing.T) {
	t.Parallel()
	for _, role := range []string{staff.RoleEditor, staff.RoleAdmin, staff.RoleTester} {
		t.Run(role, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			h.studioSignIn(role)
			for path, id := range map[string]string{"/studio": "studio", "/studio/new/news": "studio-edit",
				"/studio/edit/news/carousels-are-back": "studio-edit", "/studio/copy/_x_": "studio-copy",
				"/studio/preview/news/carousels-are-back": "news-post"} {
				if got := screenID(h.screen(path)); got != id {
					t.Errorf("%s at %s sees %q, want %q", role, path, got, id)
				}
			}
			edit := h.screen("/studio/edit/news/carousels-are-back")
			form := edit.body["state"].(map[string]any)["form"].(map[string]any)
			form["title"] = "Saved by an " + role
			res := h.save(item("news", "carousels-are-back", form))
			want := http.StatusOK
			if role == staff.RoleTester {
				want = http.StatusForbidden
			}
			if res.status != want {
				t.Fatalf("%s saving: %d %s, want %d", role, res.status, res.raw, want)
			}
			if role == staff.RoleTester {
				if formError(res) != "Your role can look at content but not change it." {
					t.Errorf("a tester is told %q", formError(res))
				}
				return
			}
			again := h.screen("/studio/edit/news/carousels-are-back").body["state"].(map[string]any)["form"].(map[string]any)
			if again["title"] != "Saved by an "+role {
				t.Errorf("the %s's save is not the draft: title %q", role, again["title"])
			}
		})
	}
}
