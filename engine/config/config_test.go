package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// env is an environment of m's variables, in development unless m says
// otherwise (outside it, Load needs GLIMPSE_PAYMENTS and the operator).
func env(m map[string]string) func(string) string {
	return func(k string) string {
		if v, ok := m[k]; ok || k != "GLIMPSE_ENVIRONMENT" {
			return v
		}
		return Development
	}
}

// production is what a deployment outside development must set, with more.
func production(more map[string]string) map[string]string {
	m := map[string]string{"GLIMPSE_ENVIRONMENT": "", "GLIMPSE_PAYMENTS": "stripe", "GLIMPSE_STRIPE_SECRET_KEY": "sk_test_x",
		"GLIMPSE_STRIPE_WEBHOOK_SECRET": "whsec_x", "GLIMPSE_OPERATOR_NAME": "Ana Example", "GLIMPSE_OPERATOR_ADDRESS": "Rua Exemplo 1, São Paulo"}
	for k, v := range more {
		m[k] = v
	}
	return m
}

func TestDefaults(t *testing.T) {
	t.Parallel()
	c, err := Load(env(nil))
	if err != nil {
		t.Fatal(err)
	}
	want := Config{Addr: "127.0.0.1:8080", BaseURL: "http://127.0.0.1:8080", DataDir: "./data", Database: "glimpse",
		SupportEmail: "support@glimpse.example", LogLevel: "info", Environment: Development,
		OperatorName: DemoOperatorName, OperatorAddress: DemoOperatorAddress, SessionLifetime: 5 * time.Hour, TaxRetentionYears: 10,
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
// The country header is off unless named; named, it is kept as written
// (header names are matched in any case).
func TestCountryHeader(t *testing.T) {
	t.Parallel()
	for v, want := range map[string]string{"": "", "CF-IPCountry": "CF-IPCountry", " X-Country-Code ": "X-Country-Code"} {
		c, err := Load(env(map[string]string{"GLIMPSE_COUNTRY_HEADER": v}))
		if err != nil || c.CountryHeader != want {
			t.Errorf("GLIMPSE_COUNTRY_HEADER=%q: %q, %v; want %q", v, c.CountryHeader, err, want)
		}
	}
}

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
		// A header's name is a token: a space or a colon never matches one.
		"country header":       {"GLIMPSE_COUNTRY_HEADER": "CF IPCountry"},
		"country header colon": {"GLIMPSE_COUNTRY_HEADER": "CF-IPCountry:"},
		// The dev mailbox shows sign-in links to anyone: never over https.
		"mailbox https": {"GLIMPSE_DEV_MAILBOX": "1", "GLIMPSE_ENVIRONMENT": "development", "GLIMPSE_BASE_URL": "https://glimpse.example"},
		// The scheme decides, however it is written.
		"mailbox HTTPS": {"GLIMPSE_DEV_MAILBOX": "1", "GLIMPSE_ENVIRONMENT": "development", "GLIMPSE_BASE_URL": "HTTPS://Glimpse.Example"},
		// Only in development.
		"mailbox in production": production(map[string]string{"GLIMPSE_DEV_MAILBOX": "1"}),
		"mailbox in staging":    production(map[string]string{"GLIMPSE_DEV_MAILBOX": "1", "GLIMPSE_ENVIRONMENT": "staging"}),
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

// TestOutsideDevelopment: with GLIMPSE_ENVIRONMENT unset (production) or
// any name but development, the sandbox is never the payment provider by
// default (a test card bought a plan with no payment), and receipts and the
// privacy policy name a real operator, so the start is refused without
// GLIMPSE_PAYMENTS and without GLIMPSE_OPERATOR_NAME and _ADDRESS. The
// sandbox asked for is a public demo. Development names a fictional
// operator.
func TestOutsideDevelopment(t *testing.T) {
	t.Parallel()
	for name, vars := range map[string]map[string]string{
		"no provider": production(map[string]string{"GLIMPSE_PAYMENTS": ""}),
		"no provider, staging, https": production(map[string]string{"GLIMPSE_PAYMENTS": "", "GLIMPSE_ENVIRONMENT": "staging",
			"GLIMPSE_BASE_URL": "https://glimpse.example"}),
		"no operator":       production(map[string]string{"GLIMPSE_OPERATOR_NAME": ""}),
		"no address":        production(map[string]string{"GLIMPSE_OPERATOR_ADDRESS": " "}),
		"demo, no operator": production(map[string]string{"GLIMPSE_PAYMENTS": "sandbox", "GLIMPSE_OPERATOR_NAME": ""}),
	} {
		_, err := Load(env(vars))
		if err == nil {
			t.Errorf("%s: started", name)
			continue
		}
		want := "GLIMPSE_OPERATOR_"
		if vars["GLIMPSE_PAYMENTS"] == "" {
			want = "GLIMPSE_PAYMENTS is required outside development"
		}
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want it to say %q", name, err, want)
		}
	}

	c, err := Load(env(production(nil)))
	if err != nil {
		t.Fatal(err)
	}
	if c.Payments != "stripe" || c.PublicDemo() || c.OperatorName != "Ana Example" || c.OperatorAddress != "Rua Exemplo 1, São Paulo" {
		t.Errorf("production: %+v", c)
	}
	c, err = Load(env(production(map[string]string{"GLIMPSE_PAYMENTS": "sandbox"})))
	if err != nil {
		t.Fatal(err)
	}
	if c.Payments != "sandbox" || !c.PublicDemo() {
		t.Errorf("the sandbox asked for outside development: payments %q, public demo %v", c.Payments, c.PublicDemo())
	}

	// Development (make run): the sandbox, a fictional operator, no demo
	// notice; a named operator is kept.
	c, err = Load(env(map[string]string{"GLIMPSE_ENVIRONMENT": Development, "GLIMPSE_DEMO": "1"}))
	if err != nil {
		t.Fatal(err)
	}
	if c.Payments != "sandbox" || c.PublicDemo() || !strings.Contains(c.OperatorName, "fictional") || !strings.Contains(c.OperatorAddress, "fictional") {
		t.Errorf("development: payments %q, public demo %v, operator %q at %q", c.Payments, c.PublicDemo(), c.OperatorName, c.OperatorAddress)
	}
	c, err = Load(env(map[string]string{"GLIMPSE_ENVIRONMENT": Development, "GLIMPSE_OPERATOR_NAME": "Ana Example"}))
	if err != nil || c.OperatorName != "Ana Example" {
		t.Errorf("development with an operator: %q, %v", c.OperatorName, err)
	}
}

// TestLoadForCommand: the commands that serve nothing (login-link, staff,
// backup, …) start outside development without a payment provider or an
// operator; what they name is still checked.
func TestLoadForCommand(t *testing.T) {
	t.Parallel()
	c, err := LoadForCommand(env(map[string]string{"GLIMPSE_ENVIRONMENT": "", "GLIMPSE_DATA_DIR": "/srv/glimpse"}))
	if err != nil || c.DataDir != "/srv/glimpse" || c.Payments != "" || c.PublicDemo() {
		t.Fatalf("a command in production: payments %q, %v", c.Payments, err)
	}
	if _, err := LoadForCommand(env(map[string]string{"GLIMPSE_ENVIRONMENT": "", "GLIMPSE_PAYMENTS": "paypal"})); err == nil {
		t.Error("an unknown provider was accepted")
	}
	if _, err := Load(env(map[string]string{"GLIMPSE_ENVIRONMENT": "", "GLIMPSE_DATA_DIR": "/srv/glimpse"})); err == nil {
		t.Error("serve in production started with no provider and no operator")
	}
}
