package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestDefaults(t *testing.T) {
	t.Parallel()
	c, err := Load(env(nil))
	if err != nil {
		t.Fatal(err)
	}
	want := Config{Addr: "127.0.0.1:8080", BaseURL: "http://127.0.0.1:8080", DataDir: "./data", Database: "glimpse",
		SupportEmail: "support@glimpse.example", LogLevel: "info",
		OperatorName:    "the operator named in your purchase receipt",
		OperatorAddress: "the registered address available from our support team", SessionLifetime: 5 * time.Hour, TaxRetentionYears: 10,
		ShutdownTimeout: 10 * time.Second, BrandHosts: map[string]string{}, HIBPCatalogueSync: 24 * time.Hour,
		PwnedPasswords: "local", InstagramRedirectURI: "http://127.0.0.1:8080/instagram/callback",
		SMTPPort: 587, SMTPFrom: "Glimpse <no-reply@glimpse.example>", SMTPTLS: "opportunistic",
		Payments: "sandbox", StripeAPIBase: "https://api.stripe.com"}
	if diff := cmp.Diff(want, c); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	if c.SecureCookies() {
		t.Fatal("plain http must not ask for Secure cookies")
	}
}

func TestSettingsAndSecretFiles(t *testing.T) {
	t.Parallel()
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Load(env(map[string]string{
		"GLIMPSE_ADDR": "0.0.0.0:9000", "GLIMPSE_BASE_URL": "https://glimpse.example/", "GLIMPSE_SECRET_FILE": secret,
		"GLIMPSE_BRAND_HOSTS": "X.example.com=_x_, y.example.com=_y_", "GLIMPSE_DEMO": "1",
		"GLIMPSE_SESSION_LIFETIME": "2h", "MONGODB_URI": "mongodb://db/?replicaSet=rs0",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if c.Secret != "s3cret" || c.BaseURL != "https://glimpse.example" || !c.Demo || c.SessionLifetime != 2*time.Hour ||
		!c.SecureCookies() || c.MongoURI != "mongodb://db/?replicaSet=rs0" {
		t.Fatalf("unexpected config %+v", c)
	}
	if diff := cmp.Diff(map[string]string{"x.example.com": "_x_", "y.example.com": "_y_"}, c.BrandHosts); diff != "" {
		t.Fatal(diff)
	}
}

// An https origin written in capitals is https: Secure cookies, __Host-
// and HSTS follow the parsed scheme (they were all off for "HTTPS://").
func TestBaseURLSchemeDecidesHTTPS(t *testing.T) {
	t.Parallel()
	c, err := Load(env(map[string]string{"GLIMPSE_BASE_URL": "HTTPS://Glimpse.Example/"}))
	if err != nil {
		t.Fatal(err)
	}
	if c.BaseURL != "https://glimpse.example" || !c.SecureCookies() {
		t.Fatalf("base URL %q, secure cookies %v", c.BaseURL, c.SecureCookies())
	}
}

func TestRejectsBadValues(t *testing.T) {
	t.Parallel()
	for name, vars := range map[string]map[string]string{
		"addr":     {"GLIMPSE_ADDR": "nope"},
		"base url": {"GLIMPSE_BASE_URL": "ftp://x"},
		"demo":     {"GLIMPSE_DEMO": "maybe"},
		"lifetime": {"GLIMPSE_SESSION_LIFETIME": "-1h"},
		"hosts":    {"GLIMPSE_BRAND_HOSTS": "x.example.com"},
		"level":    {"GLIMPSE_LOG_LEVEL": "loud"},
		"rpm":      {"GLIMPSE_HIBP_RPM": "0"},
		"sync":     {"GLIMPSE_HIBP_CATALOGUE_SYNC": "1s"},
		"pwned":    {"GLIMPSE_PWNED_PASSWORDS": "maybe"},
		"file":     {"GLIMPSE_SECRET_FILE": "/does/not/exist"},
		"port":     {"GLIMPSE_SMTP_PORT": "70000"},
		"tls":      {"GLIMPSE_SMTP_TLS": "sometimes"},
		"from":     {"GLIMPSE_SMTP_FROM": "not an address"},
		"mailbox":  {"GLIMPSE_DEV_MAILBOX": "maybe"},
		// The dev mailbox shows sign-in links to anyone: never over https.
		"mailbox https": {"GLIMPSE_DEV_MAILBOX": "1", "GLIMPSE_ENVIRONMENT": "development", "GLIMPSE_BASE_URL": "https://glimpse.example"},
		// The scheme decides, however it is written.
		"mailbox HTTPS": {"GLIMPSE_DEV_MAILBOX": "1", "GLIMPSE_ENVIRONMENT": "development", "GLIMPSE_BASE_URL": "HTTPS://Glimpse.Example"},
		// Only in development.
		"mailbox in production": {"GLIMPSE_DEV_MAILBOX": "1"},
		"mailbox in staging":    {"GLIMPSE_DEV_MAILBOX": "1", "GLIMPSE_ENVIRONMENT": "staging"},
	} {
		if _, err := Load(env(vars)); err == nil {
			t.Errorf("%s: accepted %v", name, vars)
		}
	}
}

func TestSMTPAndDevMailbox(t *testing.T) {
	t.Parallel()
	pw := filepath.Join(t.TempDir(), "smtp")
	if err := os.WriteFile(pw, []byte("hunter2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Load(env(map[string]string{
		"GLIMPSE_SMTP_HOST": "mailpit", "GLIMPSE_SMTP_PORT": "1025", "GLIMPSE_SMTP_USERNAME": "app",
		"GLIMPSE_SMTP_PASSWORD_FILE": pw, "GLIMPSE_SMTP_FROM": "Profilio <hi@profilio.example>", "GLIMPSE_SMTP_TLS": "none",
		"GLIMPSE_DEV_MAILBOX": "1", "GLIMPSE_ENVIRONMENT": "development",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if c.SMTPHost != "mailpit" || c.SMTPPort != 1025 || c.SMTPUsername != "app" || c.SMTPPassword != "hunter2" ||
		c.SMTPFrom != "Profilio <hi@profilio.example>" || c.SMTPTLS != "none" || !c.DevMailbox {
		t.Fatalf("unexpected config %+v", c)
	}
}

// A brand's mail links go to its own host from GLIMPSE_BRAND_HOSTS, with
// the base URL's scheme and port; a brand without one uses the base URL.
func TestBrandOrigin(t *testing.T) {
	t.Parallel()
	c, err := Load(env(map[string]string{"GLIMPSE_BASE_URL": "https://glimpse.example:8443",
		"GLIMPSE_BRAND_HOSTS": "y2.example.com=_y_,x.example.com=_x_,y.example.com=_y_"}))
	if err != nil {
		t.Fatal(err)
	}
	for brandKey, want := range map[string]string{"_x_": "https://x.example.com:8443", "_y_": "https://y.example.com:8443",
		"default": "https://glimpse.example:8443"} {
		if got := c.BrandOrigin(brandKey); got != want {
			t.Errorf("BrandOrigin(%s) = %s, want %s", brandKey, got, want)
		}
	}
}

// TestMetricsAddrIsLoopbackOnly: GLIMPSE_METRICS_ADDR is off by default and,
// like GLIMPSE_PPROF_ADDR, refused for anything but a loopback host:port.
func TestMetricsAddrIsLoopbackOnly(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		addr string
		ok   bool
	}{
		"off":         {"", true},
		"ipv4":        {"127.0.0.1:9090", true},
		"ipv6":        {"[::1]:9090", true},
		"localhost":   {"localhost:0", true},
		"any host":    {":9090", false},
		"all":         {"0.0.0.0:9090", false},
		"private":     {"10.0.0.1:9090", false},
		"public name": {"example.com:9090", false},
		"no port":     {"127.0.0.1", false},
	} {
		c, err := Load(env(map[string]string{"GLIMPSE_METRICS_ADDR": tc.addr}))
		switch {
		case tc.ok && (err != nil || c.MetricsAddr != tc.addr):
			t.Errorf("%s: %q, %v", name, c.MetricsAddr, err)
		case !tc.ok && err == nil:
			t.Errorf("%s: %s was accepted", name, tc.addr)
		}
	}
}

// TestBrandHostsRefusePorts: a brand is chosen by host name alone
// (brand.Registry.ForHost drops the port), so x.example.com:8443=_x_ was
// accepted and never matched; it is refused at start with a message that
// says why, as is any entry that is not a host name.
func TestBrandHostsRefusePorts(t *testing.T) {
	t.Parallel()
	for entry, want := range map[string]string{
		"x.example.com:8443=_x_":          "has a port (8443)",
		"X.Example.com:443=_x_":           "write x.example.com=_x_",
		"localhost:8080=_x_":              "has a port",
		"https://x.example.com=_x_":       "not host=brand with a host name",
		"x.example.com/partner=_x_":       "not host=brand with a host name",
		"x..example.com=_x_":              "not host=brand with a host name",
		"y.example.com=_y_,x.example.com": "not host=brand",
	} {
		_, err := Load(env(map[string]string{"GLIMPSE_BRAND_HOSTS": entry}))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error saying %q", entry, err, want)
		}
	}
	c, err := Load(env(map[string]string{"GLIMPSE_BRAND_HOSTS": "localhost=_x_, Y.example.com = _y_"}))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{"localhost": "_x_", "y.example.com": "_y_"}, c.BrandHosts); diff != "" {
		t.Fatal(diff)
	}
}
