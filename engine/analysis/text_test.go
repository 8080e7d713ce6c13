package analysis_test

import (
	"strings"
	"testing"
	"time"

	"glimpse/content"
	"glimpse/engine/analysis"
	"glimpse/engine/brand"
)

// Every code the package can return must have copy in the default brand, the
// fallback of every other brand; otherwise a screen shows the code itself.
func TestEveryCodeHasDefaultCopy(t *testing.T) {
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
	args := []string{"{" + analysis.ArgNow + "}", "{" + analysis.ArgThen + "}", "{" + analysis.ArgPosts + "}"}
	for _, code := range analysis.Codes {
		text, ok := copy[string(code)]
		if !ok || strings.TrimSpace(text) == "" {
			t.Errorf("%s has no copy in the default brand", code)
		}
		if !strings.HasPrefix(string(code), "analysis.") {
			t.Errorf("%s is not under analysis.", code)
		}
		for _, a := range args {
			text = strings.ReplaceAll(text, a, "")
		}
		if strings.ContainsAny(text, "{}") {
			t.Errorf("%s's copy has a placeholder the package never fills: %q", code, copy[string(code)])
		}
	}
	for _, label := range analysis.DefaultThresholds().Labels {
		if _, ok := copy[string(label)]; !ok {
			t.Errorf("default level label %s has no copy", label)
		}
	}
}

func TestWords(t *testing.T) {
	t.Parallel()
	copy := map[string]string{"analysis.basis.lostFollowers": "On {then}, gone by {now}; {other} stays."}
	lookup := func(key string) (string, bool) { text, ok := copy[key]; return text, ok }
	date := func(d time.Time) string { return d.Format("Jan 2") }
	tests := []struct {
		name string
		code analysis.Code
		args map[string]string
		want string
	}{
		{"dates written by the caller, unknown placeholders kept", analysis.BasisLostFollowers,
			map[string]string{analysis.ArgThen: "2026-03-01", analysis.ArgNow: "2026-03-02"}, "On Mar 1, gone by Mar 2; {other} stays."},
		{"a sentence stored before codes is shown as it is", "Compared with your followers on 30 Oct 2026.", nil,
			"Compared with your followers on 30 Oct 2026."},
		{"a code with no copy is shown as the code", analysis.BasisFans, nil, string(analysis.BasisFans)},
	}
	for _, tt := range tests {
		if got := analysis.Words(lookup, tt.code, tt.args, date); got != tt.want {
			t.Errorf("%s: Words = %q, want %q", tt.name, got, tt.want)
		}
	}
}
