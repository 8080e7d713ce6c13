package server_test

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"glimpse/engine/auth"
	"glimpse/screens"
)

// zipTree zips a fixture export tree as Instagram would.
func zipTree(t *testing.T, dir string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	root := filepath.Join("..", "..", "fixtures", "instagram", "exports", dir)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		w, err := zw.Create(filepath.ToSlash(rel))
		if err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func (h *harness) upload(body []byte) response {
	h.t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/ui/actions/profile.upload_export", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/zip")
	req.Header.Set("X-SDUI-Version", "1")
	req.Header.Set("X-CSRF-Token", h.csrf)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	return h.do(req)
}

func TestUploadExportAnalysesIt(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.subscriber("ann@example.com", "correct-horse")
	h.signIn("ann@example.com", "correct-horse")
	if !contains(texts(h.screen("/dashboard/analytics").body["screen"]), "Connect your Instagram profile") {
		t.Fatal("an unconnected subscriber is not offered a way to connect")
	}
	res := h.upload(zipTree(t, "accounts-center-2024"))
	if res.status != 200 || res.body["v"] != float64(1) {
		t.Fatalf("upload: %d %s", res.status, res.raw)
	}
	all := strings.Join(texts(res.body["screen"]), "\n")
	for _, want := range []string{"User Engagement", "Audience", "Your friends", "Your fans"} {
		if !strings.Contains(all, want) {
			t.Errorf("the analysed screen lacks %q", want)
		}
	}
	// Stored: the next visit shows the same analysis.
	if screenID(h.screen("/dashboard/analytics")) != "analytics" {
		t.Fatal("analytics after the upload")
	}
}

func TestUploadRefusesBadExports(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.subscriber("ann@example.com", "correct-horse")
	h.signIn("ann@example.com", "correct-horse")
	h.screen("/dashboard/analytics")
	cases := map[string][]byte{
		"not a zip":          []byte("this is not a zip file"),
		"malformed json":     zipTree(t, "malformed"),
		"date-range limited": zipTree(t, "date-range-limited"),
		"empty":              {},
	}
	for name, body := range cases {
		res := h.upload(body)
		msg, _ := fieldErrors(res)["export"].(string)
		if res.status != http.StatusUnprocessableEntity || msg == "" {
			t.Errorf("%s: %d %s", name, res.status, res.raw)
		}
	}
	if contains(texts(h.screen("/dashboard/analytics").body["screen"]), "User Engagement") {
		t.Error("a refused upload stored something")
	}
}

func TestProfileReportForOwners(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	u := h.subscriber("ann@example.com", "correct-horse")
	if err := h.app.Profiles.SeedDemo(context.Background(), u.ID, 7); err != nil {
		t.Fatal(err)
	}
	h.signIn("ann@example.com", "correct-horse")
	get := func() response {
		return h.do(httptest.NewRequest(http.MethodGet, "/reports/profile.pdf", nil))
	}
	if res := get(); res.status != http.StatusForbidden {
		t.Fatalf("without the add-on: %d", res.status)
	}
	if strings.Contains(string(h.screen("/dashboard/analytics").raw), "/reports/profile.pdf") {
		t.Fatal("a non-owner is offered the report")
	}
	err := h.app.Auth.PutSubscription(context.Background(), auth.Subscription{ID: "report-1", UserID: u.ID,
		Email: u.Email, Bundle: "glimpse.web", PlanCode: "glimpse_profile_report", Status: auth.StatusActive})
	if err != nil {
		t.Fatal(err)
	}
	res := get()
	if res.status != http.StatusOK || res.header.Get("Content-Type") != "application/pdf" || !bytes.HasPrefix(res.raw, []byte("%PDF")) {
		t.Fatalf("owner: %d %s", res.status, res.header.Get("Content-Type"))
	}
	if !strings.Contains(string(h.screen("/dashboard/analytics").raw), "/reports/profile.pdf") {
		t.Fatal("an owner is not offered the report")
	}
}

func TestImageProxyRoute(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	for name, query := range map[string]string{
		"unsigned":      "u=https%3A%2F%2Fscontent.cdninstagram.com%2Fa.jpg",
		"bad signature": "u=https%3A%2F%2Fscontent.cdninstagram.com%2Fa.jpg&s=AAAA",
	} {
		res := h.do(httptest.NewRequest(http.MethodGet, "/img?"+query, nil))
		if res.status != http.StatusForbidden {
			t.Errorf("%s: %d", name, res.status)
		}
	}
}

func TestAnalyticsShowsTheDemoProfilesNumbers(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	u := h.subscriber("ann@example.com", "correct-horse")
	if err := h.app.Profiles.SeedDemo(context.Background(), u.ID, 42); err != nil {
		t.Fatal(err)
	}
	p, err := h.app.Profiles.Get(context.Background(), u.ID)
	if err != nil || p.Result == nil {
		t.Fatalf("demo profile: %v", err)
	}
	h.signIn("ann@example.com", "correct-horse")
	shown := texts(h.screen("/dashboard/analytics").body["screen"])
	a, e := p.Result.Audience, p.Result.Engagement
	want := []string{
		fmt.Sprintf("%.2f%%", e.Rate),
		fmt.Sprintf("%.1f", e.AverageLikes),
		fmt.Sprintf("%.1f", e.AverageComments),
		screens.Thousands(e.TotalLikes),
		fmt.Sprintf("%d latest posts", e.PostsAnalysed),
		screens.Thousands(*a.LostFollowers.Count),
		screens.Thousands(*a.NewFollowers.Count),
		screens.Thousands(*a.SecretFans.Count),
		screens.Thousands(*a.InactiveFollowers.Count),
		screens.Thousands(*a.Friends.Count),
		screens.Thousands(*a.Fans.Count),
	}
	for _, w := range want {
		if !contains(shown, w) {
			t.Errorf("Analytics does not show %q from the demo profile's analysis", w)
		}
	}
}

func TestCourseForOwnersOnly(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	u := h.subscriber("ann@example.com", "correct-horse")
	h.signIn("ann@example.com", "correct-horse")
	want := []map[string]any{{"type": "replace", "to": "/dashboard"}, {"type": "open_overlay", "id": "course-purchase"}}
	if got := effects(h.screen("/dashboard/course")); !cmp.Equal(got, want) {
		t.Fatalf("non-owner course: %v", got)
	}
	lesson := func(path string, header ...string) response {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		if len(header) == 2 {
			req.Header.Set(header[0], header[1])
		}
		return h.do(req)
	}
	if res := lesson("/course/lessons/lesson-01.pdf"); res.status != http.StatusForbidden {
		t.Fatalf("non-owner lesson: %d", res.status)
	}
	for _, code := range []string{"glimpse_pdf_course", "glimpse_reels_playbook"} {
		if err := h.app.Auth.PutSubscription(context.Background(), auth.Subscription{ID: code, UserID: u.ID, Email: u.Email,
			Bundle: "glimpse.web", PlanCode: code, Status: auth.StatusActive}); err != nil {
			t.Fatal(err)
		}
	}
	course := h.screen("/dashboard/course")
	if screenID(course) != "course" {
		t.Fatalf("owner course: %s", course.raw)
	}
	shown := texts(course.body["screen"])
	for _, w := range []string{"10-lessons pdf course", "Instagram PRO course", "Strategies to Boost Engagement on Your Instagram Profile",
		"Lesson 1", "Lesson 10", "View lesson 1", "View lesson 10"} {
		if !contains(shown, w) {
			t.Errorf("course lacks %q", w)
		}
	}
	first := lesson("/course/lessons/lesson-01.pdf")
	if first.status != http.StatusOK || first.header.Get("Content-Type") != "application/pdf" || !bytes.HasPrefix(first.raw, []byte("%PDF")) {
		t.Fatalf("lesson pdf: %d %s", first.status, first.header.Get("Content-Type"))
	}
	if again := lesson("/course/lessons/lesson-01.pdf", "If-None-Match", first.header.Get("ETag")); again.status != http.StatusNotModified {
		t.Fatalf("cached lesson revalidation: %d", again.status)
	}
	if res := lesson("/reels-playbook.pdf"); res.status != http.StatusOK || !bytes.HasPrefix(res.raw, []byte("%PDF")) {
		t.Fatalf("reels playbook: %d", res.status)
	}
	if res := lesson("/course/lessons/no-such-lesson.pdf"); res.status != http.StatusNotFound {
		t.Fatalf("unknown lesson: %d", res.status)
	}
}
