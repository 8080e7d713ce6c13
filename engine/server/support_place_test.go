package server_test

import (
	"context"
	"net/netip"
	"strings"
	"testing"

	"glimpse/engine/config"
	"glimpse/engine/staff"
)

// A sign-in keeps the country the proxy in front reports
// (GLIMPSE_COUNTRY_HEADER), and the desk's sign-ins say it: "Chrome on
// Android · Germany" (#34: "sign-ins with device and approximate place").
// The header is read only when configured, only as an assigned ISO 3166-1
// code, and, with trusted proxies set, only from one of them; the IP
// address is never kept.
func TestSignInsKeepTheCountryTheProxyReports(t *testing.T) {
	t.Parallel()
	const android = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36"
	for _, c := range []struct {
		name, header, sent, want string
		proxies                  []netip.Prefix
	}{
		{name: "configured", header: "CF-IPCountry", sent: "DE", want: "DE"},
		{name: "lower case", header: "CF-IPCountry", sent: "de", want: "DE"},
		{name: "unknown to Cloudflare", header: "CF-IPCountry", sent: "XX"},
		{name: "Tor", header: "CF-IPCountry", sent: "T1"},
		{name: "not a code", header: "CF-IPCountry", sent: "Germany"},
		// Not configured: a client's header is not believed.
		{name: "not configured", sent: "DE"},
		// From a client that is not one of the trusted proxies.
		{name: "not from a trusted proxy", header: "CF-IPCountry", sent: "DE", proxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, func(cfg *config.Config) { cfg.CountryHeader, cfg.TrustedProxies = c.header, c.proxies })
			userID, _ := h.buyer("ann@example.com")
			h.screen("/sign-in")
			req := h.request("/sign-in", "session.sign_in", map[string]any{"email": "ann@example.com", "password": "correct-horse"})
			req.Header.Set("CF-IPCountry", c.sent)
			req.Header.Set("User-Agent", android)
			if r := h.do(req); len(effects(r)) == 0 {
				t.Fatalf("sign in: %d %s", r.status, r.raw)
			}
			sessions, err := h.app.Auth.Sessions(context.Background(), userID)
			if err != nil || len(sessions) != 1 {
				t.Fatalf("sessions: %+v, %v", sessions, err)
			}
			if got := sessions[0].Country; got != c.want {
				t.Errorf("the session's country: %q, want %q", got, c.want)
			}
			h.cookies = map[string]string{}
			h.studioSignIn(staff.RoleSupport)
			raw := string(h.screen(deskPath("ann@example.com")).raw)
			wantLine := " · Chrome on Android\""
			if c.want != "" {
				wantLine = " · Chrome on Android · Germany\""
			}
			if !strings.Contains(raw, wantLine) {
				t.Errorf("the dossier's sign-in lacks %q: %s", wantLine, raw)
			}
		})
	}
}
