package prerender

import (
	"bytes"
	"encoding/json"
	"flag"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"glimpse/content"
)

var update = flag.Bool("update", false, "rewrite the goldens in fixtures/prerender")

const (
	screensDir   = "../../../fixtures/screens"
	prerenderDir = "../../../fixtures/prerender"
)

// defaultWords are the default brand's renderer words, as the page's shell
// copy gives them to the renderer (and as its FALLBACK_COPY has them, which
// the React side of the goldens' comparison uses).
func defaultWords(t testing.TB) Words {
	t.Helper()
	raw, err := fs.ReadFile(content.Brands, "brands/default.json")
	if err != nil {
		t.Fatal(err)
	}
	var brand struct {
		Copy map[string]string `json:"copy"`
	}
	if err := json.Unmarshal(raw, &brand); err != nil {
		t.Fatal(err)
	}
	return func(key string) string { return brand.Copy["renderer."+key] }
}

// The first screens a subscriber meets must be drawn on the server: they are
// what issue #12's LCP aim is about.
var mustPrerender = []string{"sign-in__default", "home__weekly__default", "home__fetching-plans__default",
	"analytics__completed__default"}

// TestGoldens draws every golden screen of the default brand that can be
// drawn and keeps the markup in fixtures/prerender, where
// renderer/src/prerender.test.tsx compares it with React's.
func TestGoldens(t *testing.T) {
	entries, err := os.ReadDir(screensDir)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	words := defaultWords(t)
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), "__default.json")
		if !ok {
			continue
		}
		name += "__default"
		envelope, err := os.ReadFile(filepath.Join(screensDir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		page, ok := Screen(envelope, words)
		if !ok {
			continue
		}
		want[name+".html"] = true
		golden := filepath.Join(prerenderDir, name+".html")
		got := append(page.Root, '\n')
		if *update {
			if err := os.MkdirAll(prerenderDir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(golden, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		stored, err := os.ReadFile(golden)
		if err != nil || !bytes.Equal(stored, got) {
			t.Errorf("%s differs from what is drawn (go test ./engine/ui/prerender -update)", golden)
		}
	}
	for _, name := range mustPrerender {
		if !want[name+".html"] {
			t.Errorf("%s is not prerendered", name)
		}
	}
	stored, _ := os.ReadDir(prerenderDir)
	for _, e := range stored {
		if !want[e.Name()] {
			if *update {
				_ = os.Remove(filepath.Join(prerenderDir, e.Name()))
				continue
			}
			t.Errorf("%s is drawn by no golden screen", e.Name())
		}
	}
}

func TestScreenTitleAndTheme(t *testing.T) {
	envelope := []byte(`{"v":1,"screen":{"type":"screen","title":"Home","children":[]},
		"meta":{"brand":{"name":"Glimpse","theme":{"primary":"#3d5afe","panel":"rgb(0 0 0 / 12%)"}}}}`)
	page, ok := Screen(envelope, nil)
	if !ok {
		t.Fatal("not drawn")
	}
	if page.Title != "Home · Glimpse" {
		t.Errorf("title %q", page.Title)
	}
	if page.Theme != "--color-panel:rgb(0 0 0 / 12%);--color-primary:#3d5afe;" {
		t.Errorf("theme %q", page.Theme)
	}
}

// What must not reach the page as markup: text, attributes and colours are
// escaped or refused.
func TestScreenEscapes(t *testing.T) {
	cases := []struct {
		name, envelope string
		ok             bool
		absent         []string
	}{
		{"text", `{"screen":{"type":"screen","children":[{"type":"text","text":"</div><script>x()</script>"}]}}`, true,
			[]string{"<script>", "</div><script"}},
		{"attribute", `{"screen":{"type":"screen","children":[{"type":"image","src":"/a\" onerror=\"x()","alt":""}]}}`, true,
			[]string{`" onerror="`}},
		{"class", `{"screen":{"type":"screen","children":[{"type":"badge","label":"x","tone":"a\"><script>"}]}}`, true,
			[]string{"<script>"}},
		{"link class", `{"screen":{"type":"screen","children":[{"type":"link","label":"x","tone":"a\"><script>","action":{"type":"navigate","to":"/a"}}]}}`, true,
			[]string{"<script>", "&amp;#34;"}},
		{"theme", `{"screen":{"type":"screen","children":[]},"meta":{"brand":{"theme":{"primary":"red;}</style><script>"}}}}`, false, nil},
		{"hostile link", `{"screen":{"type":"screen","children":[{"type":"link","label":"x","action":{"type":"navigate","to":"/\\evil.example"}}]}}`, true,
			[]string{"href"}},
		{"javascript url", `{"screen":{"type":"screen","children":[{"type":"link","label":"x","action":{"type":"open_url","url":"javascript:x()"}}]}}`, true,
			[]string{"javascript"}},
		{"unknown node", `{"screen":{"type":"screen","children":[{"type":"rating"}]}}`, false, nil},
		{"conditional node", `{"screen":{"type":"screen","children":[{"type":"text","text":"x","visible":{"path":"/a"}}]}}`, false, nil},
		{"open overlay", `{"screen":{"type":"screen","children":[]},"open":["menu"]}`, false, nil},
	}
	for _, c := range cases {
		page, ok := Screen([]byte(c.envelope), nil)
		if ok != c.ok {
			t.Errorf("%s: drawn %v, want %v", c.name, ok, c.ok)
			continue
		}
		for _, s := range c.absent {
			if bytes.Contains(page.Root, []byte(s)) {
				t.Errorf("%s: %q in %s", c.name, s, page.Root)
			}
		}
	}
}

func TestTextInputValueFromState(t *testing.T) {
	envelope := []byte(`{"screen":{"type":"screen","children":[{"type":"form","id":"f","children":[
		{"type":"text_input","id":"email","label":"Email","bind":"/form/e~1mail","kind":"email"}]}]},
		"state":{"form":{"e/mail":"a@b.example"}}}`)
	page, ok := Screen(envelope, nil)
	if !ok {
		t.Fatal("not drawn")
	}
	if !bytes.Contains(page.Root, []byte(`value="a@b.example"`)) {
		t.Errorf("the bound value is missing: %s", page.Root)
	}
}

// A bound value is drawn as the renderer's asText writes it, or the screen
// is left to the renderer.
func TestTextInputBoundValues(t *testing.T) {
	tests := []struct {
		name, state string
		ok          bool
		value       string
	}{
		{"text", `"a"`, true, "a"},
		{"boolean", `true`, true, "true"},
		{"integer", `42`, true, "42"},
		{"negative zero", `-0`, true, "0"},
		{"null", `null`, true, ""},
		{"object", `{"a":1}`, true, ""},
		{"fraction", `1.5`, false, ""},
		{"exponent", `1e3`, false, ""},
		{"past 2^53", `9007199254740993`, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			envelope := []byte(`{"screen":{"type":"screen","children":[{"type":"form","id":"f","children":[
				{"type":"text_input","id":"v","label":"V","bind":"/form/v"}]}]},"state":{"form":{"v":` + tt.state + `}}}`)
			page, ok := Screen(envelope, nil)
			if ok != tt.ok {
				t.Fatalf("drawn %v, want %v", ok, tt.ok)
			}
			if want := `value="` + tt.value + `"`; ok && !bytes.Contains(page.Root, []byte(want)) {
				t.Errorf("%s is missing: %s", want, page.Root)
			}
		})
	}
}

func FuzzScreen(f *testing.F) {
	for _, name := range mustPrerender {
		if b, err := os.ReadFile(filepath.Join(screensDir, name+".json")); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"screen":{"type":"screen","children":[{"type":"level_meter","level":1e400}]}}`))
	f.Fuzz(func(t *testing.T, envelope []byte) {
		page, ok := Screen(envelope, nil)
		if !ok {
			return
		}
		if bytes.Contains(page.Root, []byte("<script")) || strings.Contains(page.Theme, "<") {
			t.Errorf("markup escaped the drawer: %s", page.Root)
		}
	})
}

// A chart's numbers must be written as the renderer's JavaScript writes them.
func TestJavaScriptNumbers(t *testing.T) {
	for v, want := range map[float64]string{0.25: "0.3", -0.25: "-0.3", 0.75: "0.8", 8.05: "8.1", 2.5: "2.5",
		0: "0.0", -0.04: "-0.0", 109.33333333333333: "109.3", 112: "112.0"} {
		if got := jsToFixed1(v); got != want {
			t.Errorf("toFixed(%v) = %q, want %q", v, got, want)
		}
	}
	for v, want := range map[float64]string{109.33333333333333: "109.33333333333333", 8: "8", 0.30000000000000004: "0.30000000000000004",
		math.Copysign(0, -1): "0", 1e21: "1e+21"} {
		if got := jsNumber(v); got != want {
			t.Errorf("String(%v) = %q, want %q", v, got, want)
		}
	}
}

func TestCountdownFromServerTime(t *testing.T) {
	envelope := []byte(`{"screen":{"type":"screen","children":[{"type":"countdown","label":"Next update in",
		"endsAt":"2026-11-02T13:01:05Z"}]},"meta":{"serverNow":"2026-11-01T12:00:00.400Z","brand":{"name":"G"}}}`)
	page, ok := Screen(envelope, nil)
	if !ok {
		t.Fatal("not drawn")
	}
	var values []string
	for _, part := range strings.Split(string(page.Root), `<span class="countdown__value">`)[1:] {
		values = append(values, part[:strings.Index(part, "<")])
	}
	// 1 day 1 h 1 min 4.6 s: whole seconds, as the renderer counts.
	if got := strings.Join(values, " "); got != "00 01 01 01 04" {
		t.Errorf("countdown %q", got)
	}
	expired := bytes.Replace(envelope, []byte("2026-11-02T13:01:05Z"), []byte("2026-11-01T11:00:00Z"), 1)
	if page, _ := Screen(expired, nil); bytes.Contains(page.Root, []byte("countdown")) {
		t.Error("an expired countdown is drawn")
	}
}
