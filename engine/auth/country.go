package auth

import "strings"

// A session keeps the country it was opened from, as the proxy in front
// reports it (config GLIMPSE_COUNTRY_HEADER, e.g. Cloudflare's
// CF-IPCountry), so the support desk can say "Chrome on Android ·
// Germany". Only the country is kept, never the IP address: a country is
// enough to tell a subscriber's trip from a stranger's sign-in, and it
// names no household.

// CountryOf reads a proxy's country header: an officially assigned ISO
// 3166-1 alpha-2 code, in either case ("de" reads "DE"); "" for anything
// else, Cloudflare's "XX" (unknown) and "T1" (Tor) included.
func CountryOf(header string) string {
	code := strings.TrimSpace(header)
	if len(code) != 2 {
		return ""
	}
	// Upper-cased as ASCII: strings.ToUpper would read "ıt" (a dotless i)
	// as Italy.
	code = string([]byte{code[0] &^ 0x20, code[1] &^ 0x20})
	if _, ok := countries[code]; !ok {
		return ""
	}
	return code
}

// CountryName is a country's English name ("DE": "Germany"); "" for a
// code that is not one.
func CountryName(code string) string { return countries[code] }
