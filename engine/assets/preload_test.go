package assets

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAppPreloadTags(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, manifest, want string
	}{
		{
			name: "the entry's dynamic imports with what they import",
			manifest: `{
				"src/boot.ts": {"file": "assets/boot-1.js", "isEntry": true, "dynamicImports": ["src/app.tsx", "src/late.css"]},
				"src/app.tsx": {"file": "assets/app-2.js", "imports": ["_react.js", "src/boot.ts"]},
				"_react.js": {"file": "assets/react-3.js", "imports": ["src/app.tsx"]},
				"src/late.css": {"file": "assets/late-4.css"}
			}`,
			want: `<link rel="modulepreload" crossorigin href="/assets/app-2.js">` +
				`<link rel="modulepreload" crossorigin href="/assets/react-3.js">`,
		},
		{name: "no entry", manifest: `{"a": {"file": "assets/a.js"}}`, want: ""},
		{
			name:     "a name is escaped",
			manifest: `{"e": {"isEntry": true, "dynamicImports": ["x"]}, "x": {"file": "assets/\"x\".js"}}`,
			want:     `<link rel="modulepreload" crossorigin href="/assets/&#34;x&#34;.js">`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := appPreloadTags([]byte(tc.manifest))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("tags (-want +got):\n%s", diff)
			}
		})
	}
	if _, err := appPreloadTags([]byte(`[`)); err == nil {
		t.Error("a manifest that is not JSON is accepted")
	}
}
