package profile

import (
	"strings"
	"testing"
)

// What staff type reads as the start of a username as Instagram spells
// them: lower case, without the "@"; anything Instagram does not allow in
// one is not one.
func TestUsernamePrefix(t *testing.T) {
	for q, want := range map[string]string{
		"glimpse": "glimpse", "@Glimpse.D": "glimpse.d", " @glimpse_demo ": "glimpse_demo", "G": "g",
		"@": "", "": "", "ann@example.com": "", "two words": "", "@@glimpse": "", "ünï": "", "#tag": "",
		strings.Repeat("a", MaxUsername): strings.Repeat("a", MaxUsername), strings.Repeat("a", MaxUsername+1): "",
	} {
		got, ok := UsernamePrefix(q)
		if got != want || ok != (want != "") {
			t.Errorf("UsernamePrefix(%q) = %q, %v; want %q", q, got, ok, want)
		}
	}
	if got := NormaliseUsername(" @Glimpse.Demo "); got != "glimpse.demo" {
		t.Errorf("NormaliseUsername = %q", got)
	}
}

// Whatever is typed, what UsernamePrefix accepts is 1 to 30 of Instagram's
// username characters, in lower case.
func FuzzUsernamePrefix(f *testing.F) {
	for _, seed := range []string{"glimpse", "@Glimpse.D", "ann@example.com", "", "@", "\xff", "İ", "K"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, q string) {
		p, ok := UsernamePrefix(q)
		if !ok {
			return
		}
		if p == "" || len(p) > MaxUsername || strings.Trim(p, "abcdefghijklmnopqrstuvwxyz0123456789._") != "" {
			t.Fatalf("UsernamePrefix(%q) = %q", q, p)
		}
	})
}
