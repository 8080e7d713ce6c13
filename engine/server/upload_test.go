package server_test

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v3"
	"github.com/google/go-cmp/cmp"

	"glimpse/engine/billing"
	"glimpse/engine/config"
	"glimpse/screens"
)

// zipTree zips a fixture export tree as Instagram would.
func zipTree(t *testing.T, dir string) []byte {
	t.Helper()
	return zipTreeWith(t, dir, nil)
}

// zipTreeWith zips a fixture export tree and extra files, stored as they are.
func zipTreeWith(t *testing.T, dir string, extra map[string][]byte) []byte {
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
	for name, b := range extra {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Store})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(b); err != nil {
			t.Fatal(err)
		}
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
	if !contains(texts(h.screen("/dashboard/analytics").body["screen"]), "Analyse your Instagram followers") {
		t.Fatal("an unconnected subscriber is not offered the upload (the only way here: no Instagram Login configured)")
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
	err := h.app.Auth.PutSubscription(context.Background(), billing.Subscription{ID: "report-1", UserID: u.ID,
		Email: u.Email, Bundle: "glimpse.web", PlanCode: "glimpse_profile_report", Status: billing.StatusActive})
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
		if err := h.app.Auth.PutSubscription(context.Background(), billing.Subscription{ID: code, UserID: u.ID, Email: u.Email,
			Bundle: "glimpse.web", PlanCode: code, Status: billing.StatusActive}); err != nil {
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

// paddedExport is a fixture export with an extra 64 KiB file Import does
// not read. fasthttp reads the first 8 KiB of a body before the handler
// runs and streams the rest, so only a body well over 8 KiB reaches the
// upload handler while it is still arriving, as every real export does.
func paddedExport(t *testing.T) []byte {
	t.Helper()
	pad := make([]byte, 64<<10)
	for i := range pad {
		pad[i] = byte(i * 7919 >> 3)
	}
	return zipTreeWith(t, "accounts-center-2024", map[string][]byte{"media/padding.bin": pad})
}

// listenUploads serves h's app on a real TCP listener, with fasthttp's total read
// timeout set to readTimeout, and returns the address.
func (h *harness) listenUploads(readTimeout time.Duration) string {
	h.t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		h.t.Fatal(err)
	}
	h.srv.App().Server().ReadTimeout = readTimeout
	served := make(chan error, 1)
	go func() { served <- h.srv.App().Listener(ln, fiber.ListenConfig{DisableStartupMessage: true}) }()
	h.t.Cleanup(func() {
		_ = h.srv.App().ShutdownWithTimeout(5 * time.Second)
		<-served
	})
	return ln.Addr().String()
}

// rawUpload sends the upload request head for a body of size bytes on a new
// connection and returns it; the caller writes the body.
func (h *harness) rawUpload(addr string, size int) net.Conn {
	h.t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { conn.Close() })
	var cookies []string
	for k, v := range h.cookies {
		cookies = append(cookies, k+"="+v)
	}
	head := fmt.Sprintf("POST /ui/actions/profile.upload_export HTTP/1.1\r\nHost: %s\r\nContent-Type: application/zip\r\n"+
		"Content-Length: %d\r\nX-SDUI-Version: 1\r\nX-CSRF-Token: %s\r\nSec-Fetch-Site: same-origin\r\nCookie: %s\r\n\r\n",
		h.host, size, h.csrf, strings.Join(cookies, "; "))
	if _, err := io.WriteString(conn, head); err != nil {
		h.t.Fatal(err)
	}
	return conn
}

// readResponse reads one response from conn.
func readResponse(t *testing.T, conn net.Conn) response {
	t.Helper()
	_ = conn.SetReadDeadline(time.Now().Add(time.Minute))
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	out := response{status: res.StatusCode, header: res.Header, raw: raw}
	if res.Close {
		// ReadResponse moves "Connection: close" into res.Close.
		out.header.Set("Connection", "close")
	}
	if err := json.Unmarshal(raw, &out.body); err != nil {
		t.Fatalf("decode %s: %v", raw, err)
	}
	return out
}

// trickle writes body in pieces spread evenly over d.
func trickle(t *testing.T, conn net.Conn, body []byte, pieces int, d time.Duration) {
	t.Helper()
	size := (len(body) + pieces - 1) / pieces
	for off := 0; off < len(body); off += size {
		if _, err := conn.Write(body[off:min(off+size, len(body))]); err != nil {
			t.Fatal(err)
		}
		time.Sleep(d / time.Duration(pieces))
	}
}

// TestSlowUploadSucceeds: an upload that takes twice the server's total
// read timeout succeeds while bytes keep arriving (it used to fail at the
// 15 s ReadTimeout whatever the progress).
func TestSlowUploadSucceeds(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(c *config.Config) { c.UploadIdleTimeout = 800 * time.Millisecond })
	h.subscriber("ann@example.com", "correct-horse")
	h.signIn("ann@example.com", "correct-horse")
	h.screen("/dashboard/analytics")
	addr := h.listenUploads(time.Second)
	body := paddedExport(t)
	conn := h.rawUpload(addr, len(body))
	trickle(t, conn, body, 20, 2*time.Second)
	if res := readResponse(t, conn); res.status != http.StatusOK || res.body["v"] != float64(1) {
		t.Fatalf("slow upload: %d %s", res.status, res.raw)
	}
}

// TestStalledUploadFails: an upload that stops sending fails after the idle
// timeout with a message under the input, not a 500.
func TestStalledUploadFails(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(c *config.Config) { c.UploadIdleTimeout = 500 * time.Millisecond })
	h.subscriber("ann@example.com", "correct-horse")
	h.signIn("ann@example.com", "correct-horse")
	h.screen("/dashboard/analytics")
	addr := h.listenUploads(time.Minute)
	body := paddedExport(t)
	conn := h.rawUpload(addr, len(body))
	if _, err := conn.Write(body[:len(body)/2]); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	res := readResponse(t, conn)
	msg, _ := fieldErrors(res)["export"].(string)
	if res.status != http.StatusUnprocessableEntity || !strings.Contains(msg, "nothing arrived for") {
		t.Fatalf("stalled upload: %d %s", res.status, res.raw)
	}
	if waited := time.Since(began); waited > 20*time.Second {
		t.Errorf("answered after %s, want about the idle timeout", waited)
	}
	if res.header.Get("Connection") != "close" {
		t.Error("the connection is kept open with the rest of the body unread")
	}
}

// TestOneUploadPerSubscriber: while one upload of a subscriber is in
// progress a second is refused at once with a clear message. Not parallel:
// see waitSpooled.
func TestOneUploadPerSubscriber(t *testing.T) {
	h := newHarness(t)
	h.subscriber("ann@example.com", "correct-horse")
	h.signIn("ann@example.com", "correct-horse")
	h.screen("/dashboard/analytics")
	addr := h.listenUploads(time.Minute)
	body := paddedExport(t)
	first := h.rawUpload(addr, len(body))
	if _, err := first.Write(body[:16<<10]); err != nil {
		t.Fatal(err)
	}
	// The first upload holds the subscriber's claim once its handler runs,
	// which is when it spools.
	waitSpooled(t)
	res := h.upload(body)
	if res.status != http.StatusConflict || !strings.Contains(string(res.raw), "An upload is already being processed.") {
		t.Fatalf("second upload: %d %s", res.status, res.raw)
	}
	if _, err := first.Write(body[16<<10:]); err != nil {
		t.Fatal(err)
	}
	if res := readResponse(t, first); res.status != http.StatusOK {
		t.Fatalf("first upload: %d %s", res.status, res.raw)
	}
	h.clock.Advance(time.Minute) // a snapshot per moment
	if res := h.upload(body); res.status != http.StatusOK {
		t.Fatalf("an upload after the first finished: %d %s", res.status, res.raw)
	}
}

// TestShutdownRemovesTheSpooledUpload: an upload cut off by shutdown stops
// and removes its temporary file. The file is found among this process's
// open files, so uploads by other test processes sharing the temporary
// folder do not count. Not parallel: see waitSpooled.
func TestShutdownRemovesTheSpooledUpload(t *testing.T) {
	h := newHarness(t)
	h.subscriber("ann@example.com", "correct-horse")
	h.signIn("ann@example.com", "correct-horse")
	h.screen("/dashboard/analytics")
	addr := h.listenUploads(time.Minute)
	body := paddedExport(t)
	conn := h.rawUpload(addr, len(body))
	if _, err := conn.Write(body[:len(body)/2]); err != nil {
		t.Fatal(err)
	}
	spooled := waitSpooled(t)
	if err := h.srv.App().ShutdownWithTimeout(10 * time.Second); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	for _, name := range spooled {
		if _, err := os.Stat(name); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s left behind: %v", name, err)
		}
	}
}

// waitSpooled waits until an upload handler of this process is spooling,
// and returns its temporary files. Tests using it run one at a time (it
// would see another test's spooling).
func waitSpooled(t *testing.T) []string {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if names := openFiles(t, "glimpse-export-"); len(names) > 0 {
			return names
		}
		if time.Now().After(deadline) {
			t.Fatal("the upload was never spooled")
		}
	}
}

// openFiles lists the files this process holds open whose base name starts
// with prefix.
func openFiles(t *testing.T, prefix string) []string {
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	var out []string
	for _, fd := range fds {
		if target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); err == nil && strings.HasPrefix(filepath.Base(target), prefix) {
			out = append(out, target)
		}
	}
	return out
}
