package breach_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"glimpse/engine/breach"
)

func newLocalProvider(t *testing.T) *breach.LocalProvider {
	t.Helper()
	p, err := breach.NewLocalProvider(os.DirFS("../../fixtures"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLocalProviderFixtures(t *testing.T) {
	t.Parallel()
	p := newLocalProvider(t)
	if !p.Sample() {
		t.Error("the local provider does not report sample data")
	}
	ctx := context.Background()
	cases := []struct {
		email   string
		want    []string
		wantErr error
	}{
		{email: "demo@example.com", want: []string{"PixelgramPrints", "NimbusNotes", "TrailMixFitness", "QuillForum"}},
		{email: " Demo@Example.COM ", want: []string{"PixelgramPrints", "NimbusNotes", "TrailMixFitness", "QuillForum"}},
		{email: "clean@example.com", want: []string{}},
		{email: "nobody@example.com", want: []string{}},
		{email: "rate-limited@example.com", wantErr: breach.ErrRateLimited},
		{email: "unavailable@example.com", wantErr: breach.ErrUnavailable},
		{email: "", wantErr: breach.ErrInvalidAccount},
	}
	for _, tc := range cases {
		got, err := p.BreachedAccount(ctx, tc.email)
		if !errors.Is(err, tc.wantErr) {
			t.Errorf("%q: error %v, want %v", tc.email, err, tc.wantErr)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%q: names (-want +got):\n%s", tc.email, diff)
		}
	}

	catalogue, err := p.Catalogue(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(catalogue) < 8 {
		t.Errorf("catalogue has %d breaches, want at least 8", len(catalogue))
	}
	for _, b := range catalogue {
		problems := []string{}
		if !strings.HasSuffix(b.Title, "(sample)") {
			problems = append(problems, "title not marked (sample)")
		}
		if !strings.HasSuffix(b.Domain, ".example") {
			problems = append(problems, "domain not under .example")
		}
		if len(b.BreachDate) != len("2006-01-02") || b.BreachDate < "2016" || b.BreachDate > "2026" || b.AddedDate.IsZero() {
			problems = append(problems, "dates "+b.BreachDate+" "+b.AddedDate.String())
		}
		if b.Description == "" || strings.ContainsAny(b.Description, "<>") || strings.Contains(b.Description, "&amp;") {
			problems = append(problems, "description not plain text: "+b.Description)
		}
		if len(b.DataClasses) == 0 || b.PwnCount <= 0 {
			problems = append(problems, "no data classes or count")
		}
		if len(problems) > 0 {
			t.Errorf("%s: %s", b.Name, strings.Join(problems, "; "))
		}
	}
}

func TestLocalProviderRejectsBrokenFixtures(t *testing.T) {
	t.Parallel()
	catalogue := `[{"Name":"A","Title":"A (sample)"}]`
	cases := []struct {
		name string
		fsys fstest.MapFS
	}{
		{"no catalogue", fstest.MapFS{breach.LocalAccountsPath: {Data: []byte(`{}`)}}},
		{"no accounts", fstest.MapFS{breach.LocalCataloguePath: {Data: []byte(catalogue)}}},
		{"account names an unknown breach", fstest.MapFS{
			breach.LocalCataloguePath: {Data: []byte(catalogue)},
			breach.LocalAccountsPath:  {Data: []byte(`{"a@example.com":["B"]}`)},
		}},
		{"repeated name", fstest.MapFS{
			breach.LocalCataloguePath: {Data: []byte(`[{"Name":"A"},{"Name":"A"}]`)},
			breach.LocalAccountsPath:  {Data: []byte(`{}`)},
		}},
		{"malformed failures", fstest.MapFS{
			breach.LocalCataloguePath: {Data: []byte(catalogue)},
			breach.LocalAccountsPath:  {Data: []byte(`{}`)},
			breach.LocalFailuresPath:  {Data: []byte(`[`)},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if _, err := breach.NewLocalProvider(tc.fsys); err == nil {
				t.Error("accepted")
			}
		})
	}
}
