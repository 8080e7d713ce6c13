package auth

import (
	"testing"
	"unicode/utf8"
)

// A country header is believed only as an assigned ISO 3166-1 alpha-2
// code; Cloudflare's XX (no country) and T1 (Tor), reserved and
// user-assigned codes, and anything longer are no place.
func TestCountryOf(t *testing.T) {
	for header, want := range map[string]string{
		"DE": "DE", "de": "DE", " GB ": "GB", "XX": "", "T1": "", "EU": "", "UK": "", "ZZ": "", "": "", "DEU": "",
		"D": "", "1.2.3.4": "", "DE,FR": "", "ıt": "", "ſe": "", "d\x05": "",
	} {
		if got := CountryOf(header); got != want {
			t.Errorf("CountryOf(%q) = %q, want %q", header, got, want)
		}
	}
	if CountryName("DE") != "Germany" || CountryName("CI") != "Côte d’Ivoire" || CountryName("XX") != "" {
		t.Errorf("names: %q %q %q", CountryName("DE"), CountryName("CI"), CountryName("XX"))
	}
}

// The table has every officially assigned code (249) and each is two
// capital letters with a name.
func TestCountriesAreISO3166(t *testing.T) {
	if len(countries) != 249 {
		t.Errorf("%d countries, want 249", len(countries))
	}
	for code, name := range countries {
		if len(code) != 2 || code[0] < 'A' || code[0] > 'Z' || code[1] < 'A' || code[1] > 'Z' || name == "" {
			t.Errorf("%q: %q", code, name)
		}
	}
}

// Whatever a client or proxy sends, CountryOf answers a code of the table
// or nothing.
func FuzzCountryOf(f *testing.F) {
	for _, seed := range []string{"DE", "de", "XX", "T1", "", "\xff\xfe", "ÄÖ", "DEU"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, header string) {
		code := CountryOf(header)
		if code == "" {
			return
		}
		if len(code) != 2 || !utf8.ValidString(code) || CountryName(code) == "" {
			t.Fatalf("CountryOf(%q) = %q", header, code)
		}
	})
}
