package server_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"testing"
)

// TestEveryStaticReferenceIsServed reads every /static/ path that a golden
// screen (each screen, state and brand) or a brand file names and fetches it
// from the server: a brand whose logo answers 404 fails here. It guards the
// embed pattern too, since go:embed skips names starting with '_' or '.'
// unless told otherwise, and two partner brands are called _x_ and _y_.
func TestEveryStaticReferenceIsServed(t *testing.T) {
	t.Parallel()
	var files []string
	for _, glob := range []string{"../../fixtures/screens/*.json", "../../content/brands/*.json"} {
		m, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 10 {
		t.Fatalf("found only %d golden screens and brand files; is the fixtures path right?", len(files))
	}
	ref := regexp.MustCompile(`"(/static/[^"?#]+)`)
	seen := map[string]bool{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ref.FindAllSubmatch(b, -1) {
			seen[string(m[1])] = true
		}
	}
	paths := make([]string, 0, len(seen))
	for p := range seen {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, want := range []string{"/static/brands/_x_/logo.svg", "/static/brands/_y_/logo.svg"} {
		if !seen[want] {
			t.Errorf("no golden screen or brand names %s; the test would not catch the partner logos", want)
		}
	}

	h := newHarness(t)
	for _, p := range paths {
		res := h.do(httptest.NewRequest(http.MethodGet, p, nil))
		if res.status != http.StatusOK {
			t.Errorf("GET %s = %d, want 200", p, res.status)
		}
	}
	t.Logf("%d static references served", len(paths))
}
