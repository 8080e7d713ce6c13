// Package config loads the one Config of the binary from the environment,
// once, at start. It is passed down; nothing reads the environment later.
package config

import (
	"fmt"
	"net"
	"net/mail"
	"net/netip"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Config is every setting of the binary. The table in README.md lists the
// variables; secrets also accept a NAME_FILE variant holding a file path, so
// they can come from a secrets mount instead of the environment.
type Config struct {
	Addr     string // GLIMPSE_ADDR: where the HTTP server listens
	BaseURL  string // GLIMPSE_BASE_URL: the public origin, used for links in mail and CLI output
	DataDir  string // GLIMPSE_DATA_DIR: the embedded database's files
	MongoURI string // MONGODB_URI: a real MongoDB; empty starts the embedded one
	Database string // GLIMPSE_DATABASE: the database name
	Demo     bool   // GLIMPSE_DEMO: seed the demo subscriber

	// Secret keys the CSRF tokens. Empty means one is generated and kept in
	// the database, so every instance sharing the database agrees on it.
	Secret string // GLIMPSE_SECRET (or GLIMPSE_SECRET_FILE)

	// BrandHosts maps a request host name (no port: config refuses one) to
	// a brand key.
	BrandHosts map[string]string // GLIMPSE_BRAND_HOSTS: "x.example.com=_x_,y.example.com=_y_"

	SessionLifetime time.Duration // GLIMPSE_SESSION_LIFETIME: absolute session lifetime
	// TaxRetentionYears is how long a deleted account's charges and
	// receipts are kept, anonymised, for the tax and accounting law the
	// operator is under (GLIMPSE_TAX_RETENTION_YEARS, default 10).
	TaxRetentionYears int
	ShutdownTimeout   time.Duration // GLIMPSE_SHUTDOWN_TIMEOUT: how long SIGTERM waits for requests

	// PasswordMemoryKiB and PasswordPasses set argon2id's cost for new
	// password hashes. Not read from the environment: zero means the OWASP
	// parameters (19 MiB, two passes), which every deployment uses; test
	// suites lower them (engine/auth.NewHasherCosting).
	PasswordMemoryKiB uint32
	PasswordPasses    uint32

	// Operator details shown in the legal pages and support links. The
	// operator sells (receipts) and is the data controller (privacy
	// policy): outside development both are required at start; in
	// development they default to a clearly fictional operator (the demo).
	SupportEmail    string // GLIMPSE_SUPPORT_EMAIL
	OperatorName    string // GLIMPSE_OPERATOR_NAME: the seller and data controller named in receipts and the legal pages
	OperatorAddress string // GLIMPSE_OPERATOR_ADDRESS: its registered address

	LogLevel string // GLIMPSE_LOG_LEVEL: debug, info, warn or error

	// PprofAddr, when set, serves net/http/pprof on a listener of its own
	// (engine/app/pprof.go); it must be a loopback address. Off by default.
	PprofAddr string // GLIMPSE_PPROF_ADDR: "127.0.0.1:6060"
	// MetricsAddr, when set, serves Prometheus metrics at /metrics on a
	// listener of its own (engine/app/metrics.go, engine/metrics); it must
	// be a loopback address, like PprofAddr. Off by default.
	MetricsAddr string // GLIMPSE_METRICS_ADDR: "127.0.0.1:9090"

	// TrustedProxies are the proxies (CIDRs or single addresses) in front of
	// the server; only a request from one of them has its X-Forwarded-For
	// believed. Empty trusts none, and the client is the socket peer.
	TrustedProxies []netip.Prefix // GLIMPSE_TRUSTED_PROXIES: "10.0.0.0/8,192.0.2.7"
	// CountryHeader names the request header in which the proxy in front
	// reports the client's country as an ISO 3166-1 alpha-2 code
	// ("CF-IPCountry" behind Cloudflare): a session keeps the country it
	// was opened from, for the support desk. Empty (the default) reads no
	// header, since without a proxy that sets it a client could send any.
	CountryHeader string // GLIMPSE_COUNTRY_HEADER: "CF-IPCountry"

	// Error reporting to a Sentry-compatible service; off without a DSN
	// (docs/error-reporting.md).
	SentryDSN string // GLIMPSE_SENTRY_DSN (or _FILE)
	// Environment names the deployment, for error reports too; empty means
	// production. Only "development" (make run, the end-to-end tests)
	// starts without a payment provider chosen and an operator named.
	Environment string // GLIMPSE_ENVIRONMENT

	// Have I Been Pwned. With no key, a bundled sample dataset answers.
	HIBPKey           string        // GLIMPSE_HIBP_API_KEY (or _FILE)
	HIBPBaseURL       string        // GLIMPSE_HIBP_BASE_URL
	HIBPRPM           int           // GLIMPSE_HIBP_RPM: the key's requests per minute; 0 asks the service
	HIBPCatalogueSync time.Duration // GLIMPSE_HIBP_CATALOGUE_SYNC: how often the breach catalogue is refreshed
	// Instagram Login. With no app id, the Instagram connection is not
	// offered and profiles come from data-export uploads.
	InstagramAppID        string // GLIMPSE_INSTAGRAM_APP_ID
	InstagramAppSecret    string // GLIMPSE_INSTAGRAM_APP_SECRET (or _FILE)
	InstagramRedirectURI  string // GLIMPSE_INSTAGRAM_REDIRECT_URI: default GLIMPSE_BASE_URL/instagram/callback
	InstagramAuthBaseURL  string // GLIMPSE_INSTAGRAM_AUTH_BASE_URL (tests point these at a fake)
	InstagramAPIBaseURL   string // GLIMPSE_INSTAGRAM_API_BASE_URL
	InstagramTokenBaseURL string // GLIMPSE_INSTAGRAM_TOKEN_BASE_URL

	// PwnedPasswords is "api" (the k-anonymity range API) or "local" (the
	// bundled sample corpus). Default: api with an HIBP key, else local.
	PwnedPasswords string // GLIMPSE_PWNED_PASSWORDS

	// Data-export uploads. A slow upload is fine as long as bytes keep
	// arriving; imports are CPU-bound, so few run at once. Zero means the
	// default, which the upload handler applies (15s, 2m and 2).
	UploadIdleTimeout time.Duration // GLIMPSE_UPLOAD_IDLE_TIMEOUT: an upload with no bytes for this long fails
	ImportTimeout     time.Duration // GLIMPSE_IMPORT_TIMEOUT: the most one import may take
	ImportConcurrency int           // GLIMPSE_IMPORT_CONCURRENCY: imports running at once on this instance

	// Outgoing mail (engine/mail). With no host, mail is queued and kept
	// but not sent.
	SMTPHost     string // GLIMPSE_SMTP_HOST
	SMTPPort     int    // GLIMPSE_SMTP_PORT: default 587
	SMTPUsername string // GLIMPSE_SMTP_USERNAME
	SMTPPassword string // GLIMPSE_SMTP_PASSWORD (or _FILE)
	SMTPFrom     string // GLIMPSE_SMTP_FROM: default "Glimpse <no-reply@glimpse.example>"
	SMTPTLS      string // GLIMPSE_SMTP_TLS: mandatory, opportunistic (default) or none
	// DevMailbox shows the outbox at /dev/mail, to loopback clients only.
	// Refused unless GLIMPSE_ENVIRONMENT is development, and with an https
	// base URL, so it can never be on in production.
	DevMailbox bool // GLIMPSE_DEV_MAILBOX

	// Payments (engine/billing, docs/stripe.md): "sandbox" (takes no money)
	// or "stripe". The sandbox is the default in development only;
	// elsewhere it must be asked for, and then every page and mail says the
	// site is a demo (PublicDemo).
	Payments            string // GLIMPSE_PAYMENTS
	StripeSecretKey     string // GLIMPSE_STRIPE_SECRET_KEY (or _FILE); required with stripe
	StripeWebhookSecret string // GLIMPSE_STRIPE_WEBHOOK_SECRET (or _FILE): the endpoint's whsec_… signing secret
	StripeAPIBase       string // GLIMPSE_STRIPE_API_BASE: default https://api.stripe.com (tests point it at stripe-mock)
}

// Load reads the configuration from getenv (os.Getenv in production) and
// validates it.
func Load(getenv func(string) string) (Config, error) { return load(getenv, true) }

// LoadForCommand is Load for the commands that serve nothing (login-link,
// staff, backup, restore, seed-scale): what a site needs before it may
// serve anyone (outside development, a payment provider chosen and an
// operator named) is not asked of them.
func LoadForCommand(getenv func(string) string) (Config, error) { return load(getenv, false) }

func load(getenv func(string) string, serving bool) (Config, error) {
	c := Config{
		Addr:              or(getenv("GLIMPSE_ADDR"), "127.0.0.1:8080"),
		DataDir:           or(getenv("GLIMPSE_DATA_DIR"), "./data"),
		Database:          or(getenv("GLIMPSE_DATABASE"), "glimpse"),
		SupportEmail:      or(getenv("GLIMPSE_SUPPORT_EMAIL"), "support@glimpse.example"),
		OperatorName:      strings.TrimSpace(getenv("GLIMPSE_OPERATOR_NAME")),
		OperatorAddress:   strings.TrimSpace(getenv("GLIMPSE_OPERATOR_ADDRESS")),
		LogLevel:          or(getenv("GLIMPSE_LOG_LEVEL"), "info"),
		PprofAddr:         getenv("GLIMPSE_PPROF_ADDR"),
		MetricsAddr:       getenv("GLIMPSE_METRICS_ADDR"),
		SessionLifetime:   5 * time.Hour,
		TaxRetentionYears: 10,
		ShutdownTimeout:   10 * time.Second,
		BrandHosts:        map[string]string{},
	}
	var err error
	if c.MongoURI, err = secret(getenv, "MONGODB_URI"); err != nil {
		return c, err
	}
	if c.Secret, err = secret(getenv, "GLIMPSE_SECRET"); err != nil {
		return c, err
	}
	if c.HIBPKey, err = secret(getenv, "GLIMPSE_HIBP_API_KEY"); err != nil {
		return c, err
	}
	c.Environment = getenv("GLIMPSE_ENVIRONMENT") // empty: the reporter's default, production
	if c.SentryDSN, err = secret(getenv, "GLIMPSE_SENTRY_DSN"); err != nil {
		return c, err
	}
	if c.SentryDSN != "" {
		// A DSN is scheme://publickey@host/projectid; checked here so a typo
		// stops the start instead of silently losing every report.
		u, err := url.Parse(c.SentryDSN)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.User == nil || u.Host == "" || strings.Trim(u.Path, "/") == "" {
			return c, fmt.Errorf("GLIMPSE_SENTRY_DSN must look like https://publickey@host/projectid")
		}
	}
	c.HIBPBaseURL = getenv("GLIMPSE_HIBP_BASE_URL")
	c.InstagramAppID = getenv("GLIMPSE_INSTAGRAM_APP_ID")
	if c.InstagramAppSecret, err = secret(getenv, "GLIMPSE_INSTAGRAM_APP_SECRET"); err != nil {
		return c, err
	}
	if c.InstagramAppID != "" && c.InstagramAppSecret == "" {
		return c, fmt.Errorf("GLIMPSE_INSTAGRAM_APP_SECRET is required with GLIMPSE_INSTAGRAM_APP_ID")
	}
	c.InstagramRedirectURI = getenv("GLIMPSE_INSTAGRAM_REDIRECT_URI")
	c.InstagramAuthBaseURL = getenv("GLIMPSE_INSTAGRAM_AUTH_BASE_URL")
	c.InstagramAPIBaseURL = getenv("GLIMPSE_INSTAGRAM_API_BASE_URL")
	c.InstagramTokenBaseURL = getenv("GLIMPSE_INSTAGRAM_TOKEN_BASE_URL")
	if v := getenv("GLIMPSE_HIBP_RPM"); v != "" {
		if c.HIBPRPM, err = strconv.Atoi(v); err != nil || c.HIBPRPM <= 0 {
			return c, fmt.Errorf("GLIMPSE_HIBP_RPM must be a positive whole number, got %q", v)
		}
	}
	c.HIBPCatalogueSync = 24 * time.Hour
	if v := getenv("GLIMPSE_HIBP_CATALOGUE_SYNC"); v != "" {
		if c.HIBPCatalogueSync, err = time.ParseDuration(v); err != nil || c.HIBPCatalogueSync < time.Minute {
			return c, fmt.Errorf("GLIMPSE_HIBP_CATALOGUE_SYNC must be a duration of at least 1m, got %q", v)
		}
	}
	c.PwnedPasswords = getenv("GLIMPSE_PWNED_PASSWORDS")
	switch {
	case c.PwnedPasswords == "" && c.HIBPKey != "":
		c.PwnedPasswords = "api"
	case c.PwnedPasswords == "":
		c.PwnedPasswords = "local"
	case c.PwnedPasswords != "api" && c.PwnedPasswords != "local":
		return c, fmt.Errorf("GLIMPSE_PWNED_PASSWORDS must be api or local, got %q", c.PwnedPasswords)
	}
	if v := getenv("GLIMPSE_DEMO"); v != "" {
		if c.Demo, err = strconv.ParseBool(v); err != nil {
			return c, fmt.Errorf("GLIMPSE_DEMO: %w", err)
		}
	}
	if v := getenv("GLIMPSE_SESSION_LIFETIME"); v != "" {
		if c.SessionLifetime, err = time.ParseDuration(v); err != nil || c.SessionLifetime <= 0 {
			return c, fmt.Errorf("GLIMPSE_SESSION_LIFETIME must be a positive duration, got %q", v)
		}
	}
	if v := getenv("GLIMPSE_TAX_RETENTION_YEARS"); v != "" {
		if c.TaxRetentionYears, err = strconv.Atoi(v); err != nil || c.TaxRetentionYears < 1 || c.TaxRetentionYears > 30 {
			return c, fmt.Errorf("GLIMPSE_TAX_RETENTION_YEARS must be a whole number of years from 1 to 30, got %q", v)
		}
	}
	if v := getenv("GLIMPSE_SHUTDOWN_TIMEOUT"); v != "" {
		if c.ShutdownTimeout, err = time.ParseDuration(v); err != nil || c.ShutdownTimeout <= 0 {
			return c, fmt.Errorf("GLIMPSE_SHUTDOWN_TIMEOUT must be a positive duration, got %q", v)
		}
	}
	for name, d := range map[string]*time.Duration{"GLIMPSE_UPLOAD_IDLE_TIMEOUT": &c.UploadIdleTimeout, "GLIMPSE_IMPORT_TIMEOUT": &c.ImportTimeout} {
		if v := getenv(name); v != "" {
			if *d, err = time.ParseDuration(v); err != nil || *d <= 0 {
				return c, fmt.Errorf("%s must be a positive duration, got %q", name, v)
			}
		}
	}
	if v := getenv("GLIMPSE_IMPORT_CONCURRENCY"); v != "" {
		if c.ImportConcurrency, err = strconv.Atoi(v); err != nil || c.ImportConcurrency <= 0 {
			return c, fmt.Errorf("GLIMPSE_IMPORT_CONCURRENCY must be a positive whole number, got %q", v)
		}
	}
	if err := c.loadSMTP(getenv); err != nil {
		return c, err
	}
	if err := c.loadPayments(getenv, serving); err != nil {
		return c, err
	}
	if err := c.loadOperator(serving); err != nil {
		return c, err
	}
	if err := c.loadBrandHosts(getenv("GLIMPSE_BRAND_HOSTS")); err != nil {
		return c, err
	}
	if c.TrustedProxies, err = trustedProxies(getenv("GLIMPSE_TRUSTED_PROXIES")); err != nil {
		return c, err
	}
	if c.CountryHeader, err = headerName("GLIMPSE_COUNTRY_HEADER", getenv("GLIMPSE_COUNTRY_HEADER")); err != nil {
		return c, err
	}
	if _, _, err := net.SplitHostPort(c.Addr); err != nil {
		return c, fmt.Errorf("GLIMPSE_ADDR: %w", err)
	}
	baseURL := strings.TrimRight(or(getenv("GLIMPSE_BASE_URL"), "http://"+c.Addr), "/")
	u, err := url.Parse(baseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return c, fmt.Errorf("GLIMPSE_BASE_URL must be an http(s) origin, got %q", baseURL)
	}
	// Kept as parsed, scheme and host in lower case: everything that
	// decides on https (Secure cookies, __Host-, HSTS, the dev mailbox)
	// reads the scheme, so "HTTPS://…" is https too.
	u.Host = strings.ToLower(u.Host)
	c.BaseURL = strings.TrimRight(u.String(), "/")
	c.InstagramRedirectURI = or(c.InstagramRedirectURI, c.BaseURL+"/instagram/callback")
	if c.DevMailbox && c.Environment != Development {
		// The mailbox shows every mail, sign-in and reset links included: it
		// is for a developer's own machine, never a deployment.
		return c, fmt.Errorf("GLIMPSE_DEV_MAILBOX needs GLIMPSE_ENVIRONMENT=development (make run sets both)")
	}
	if c.DevMailbox && c.SecureCookies() {
		// The mailbox shows every mail, sign-in and reset links included, to
		// anyone: a development tool that must never face the internet.
		return c, fmt.Errorf("GLIMPSE_DEV_MAILBOX is for development and cannot be on with an https GLIMPSE_BASE_URL")
	}
	switch c.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		return c, fmt.Errorf("GLIMPSE_LOG_LEVEL must be debug, info, warn or error, got %q", c.LogLevel)
	}
	if c.PprofAddr != "" && !loopbackAddr(c.PprofAddr) {
		// Profiles show memory contents and cost CPU: never for the network.
		return c, fmt.Errorf("GLIMPSE_PPROF_ADDR must be a loopback host:port such as 127.0.0.1:6060, got %q", c.PprofAddr)
	}
	if c.MetricsAddr != "" && !loopbackAddr(c.MetricsAddr) {
		// The metrics are for the operator's scraper on this host (or a
		// sidecar), never the public: they show traffic and failures.
		return c, fmt.Errorf("GLIMPSE_METRICS_ADDR must be a loopback host:port such as 127.0.0.1:9090, got %q", c.MetricsAddr)
	}
	return c, nil
}

// loadBrandHosts reads GLIMPSE_BRAND_HOSTS, "x.example.com=_x_,…". A brand
// is chosen by the request's host name alone, on whatever port
// (brand.Registry.ForHost), so an entry with a port would never match: the
// partner's host would serve the default brand and its buyers' returns from
// the payment page would cross origins. It is refused, as is anything else
// that is not a host name (a scheme, a path).
func (c *Config) loadBrandHosts(v string) error {
	if v == "" {
		return nil
	}
	for _, pair := range strings.Split(v, ",") {
		host, brand, ok := strings.Cut(strings.TrimSpace(pair), "=")
		host, brand = strings.ToLower(strings.TrimSpace(host)), strings.TrimSpace(brand)
		if !ok || host == "" || brand == "" {
			return fmt.Errorf("GLIMPSE_BRAND_HOSTS: %q is not host=brand", pair)
		}
		if name, port, err := net.SplitHostPort(host); err == nil && hostName(name) && port != "" && strings.Trim(port, "0123456789") == "" {
			return fmt.Errorf("GLIMPSE_BRAND_HOSTS: %q has a port (%s): a brand is chosen by host name alone, on any port, "+
				"so this entry would never match; write %s=%s (links in mail take GLIMPSE_BASE_URL's port)", pair, port, name, brand)
		}
		if !hostName(host) {
			return fmt.Errorf("GLIMPSE_BRAND_HOSTS: %q is not host=brand with a host name such as x.example.com "+
				"(no scheme, port or path)", pair)
		}
		c.BrandHosts[host] = brand
	}
	return nil
}

// hostName reports whether h is a DNS name or an IPv4 address as a Host
// header carries it: letters, digits, hyphens and dots, no empty label.
func hostName(h string) bool {
	if len(h) > 253 {
		return false
	}
	for _, label := range strings.Split(h, ".") {
		if label == "" || len(label) > 63 {
			return false
		}
		for _, r := range label {
			if (r < 'a' || r > 'z') && (r < '0' || r > '9') && r != '-' && r != '_' {
				return false
			}
		}
	}
	return true
}

// Development is the environment name of a developer's own machine (make
// run, the end-to-end tests): the only one that starts with the sandbox by
// default and a fictional operator.
const Development = "development"

// The fictional operator of development (the demo `make run` starts):
// receipts and the legal pages name someone, and nobody could take it for a
// real business.
const (
	DemoOperatorName    = "Example Operator (fictional: this is a demo)"
	DemoOperatorAddress = "1 Example Street, Exampleville (a fictional address)"
)

// loadOperator requires the operator's name and address outside
// development: a receipt must name the seller and the privacy policy the
// data controller, with an address (consumer law; GDPR Art. 13), and
// neither may point at the other instead. In development the fictional
// operator stands in. A command that serves nothing needs none.
func (c *Config) loadOperator(serving bool) error {
	if c.Environment == Development {
		c.OperatorName = or(c.OperatorName, DemoOperatorName)
		c.OperatorAddress = or(c.OperatorAddress, DemoOperatorAddress)
		return nil
	}
	if !serving {
		return nil
	}
	var missing []string
	if c.OperatorName == "" {
		missing = append(missing, "GLIMPSE_OPERATOR_NAME (who sells and controls the data: a person's or a company's legal name)")
	}
	if c.OperatorAddress == "" {
		missing = append(missing, "GLIMPSE_OPERATOR_ADDRESS (its registered postal address)")
	}
	if len(missing) > 0 {
		verb := "is"
		if len(missing) > 1 {
			verb = "are"
		}
		return fmt.Errorf("%s %s required outside development (GLIMPSE_ENVIRONMENT=%q): receipts name the seller and the privacy policy "+
			"the data controller; GLIMPSE_ENVIRONMENT=development uses a fictional one", strings.Join(missing, " and "), verb, c.envName())
	}
	return nil
}

// PublicDemo reports whether this is the sandbox outside development: a
// public demo, which takes no money and sells nothing, and says so on every
// page and in every mail.
func (c Config) PublicDemo() bool { return c.Payments == "sandbox" && c.Environment != Development }

// envName is GLIMPSE_ENVIRONMENT as the error messages name it.
func (c Config) envName() string { return or(c.Environment, "production") }

// loopbackAddr reports whether addr is host:port with a loopback host.
func loopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// loadSMTP reads the outgoing mail settings and the dev mailbox switch.
func (c *Config) loadSMTP(getenv func(string) string) error {
	var err error
	c.SMTPHost = getenv("GLIMPSE_SMTP_HOST")
	c.SMTPUsername = getenv("GLIMPSE_SMTP_USERNAME")
	if c.SMTPPassword, err = secret(getenv, "GLIMPSE_SMTP_PASSWORD"); err != nil {
		return err
	}
	c.SMTPFrom = or(getenv("GLIMPSE_SMTP_FROM"), "Glimpse <no-reply@glimpse.example>")
	if _, err := mail.ParseAddress(c.SMTPFrom); err != nil {
		return fmt.Errorf("GLIMPSE_SMTP_FROM must be an address such as \"Glimpse <no-reply@example.com>\", got %q", c.SMTPFrom)
	}
	c.SMTPPort = 587
	if v := getenv("GLIMPSE_SMTP_PORT"); v != "" {
		if c.SMTPPort, err = strconv.Atoi(v); err != nil || c.SMTPPort <= 0 || c.SMTPPort > 65535 {
			return fmt.Errorf("GLIMPSE_SMTP_PORT must be a port number, got %q", v)
		}
	}
	c.SMTPTLS = or(getenv("GLIMPSE_SMTP_TLS"), "opportunistic")
	switch c.SMTPTLS {
	case "mandatory", "opportunistic", "none":
	default:
		return fmt.Errorf("GLIMPSE_SMTP_TLS must be mandatory, opportunistic or none, got %q", c.SMTPTLS)
	}
	if v := getenv("GLIMPSE_DEV_MAILBOX"); v != "" {
		if c.DevMailbox, err = strconv.ParseBool(v); err != nil {
			return fmt.Errorf("GLIMPSE_DEV_MAILBOX: %w", err)
		}
	}
	return nil
}

// BrandOrigin is the public origin of a brand's links (in mails): the
// scheme and port of GLIMPSE_BASE_URL on the brand's own host from
// GLIMPSE_BRAND_HOSTS (the first in order, when it has several), or
// GLIMPSE_BASE_URL itself for a brand with no host of its own. It comes from
// configuration only, never from a request's Host header.
func (c Config) BrandOrigin(brandKey string) string {
	var hosts []string
	for host, key := range c.BrandHosts {
		if key == brandKey {
			hosts = append(hosts, host)
		}
	}
	if len(hosts) == 0 {
		return c.BaseURL
	}
	slices.Sort(hosts)
	u, err := url.Parse(c.BaseURL)
	if err != nil {
		return c.BaseURL
	}
	host := hosts[0] // a host name: loadBrandHosts refuses ports
	if port := u.Port(); port != "" {
		host = net.JoinHostPort(host, port)
	}
	return u.Scheme + "://" + host
}

// SecureCookies reports whether cookies must carry Secure: always, except for
// a plain-http loopback origin used in development and tests.
func (c Config) SecureCookies() bool {
	// Schemes are case-insensitive (RFC 3986 §3.1); this runs per request,
	// so it compares rather than parses.
	return len(c.BaseURL) >= len("https://") && strings.EqualFold(c.BaseURL[:len("https://")], "https://")
}

// trustedProxies parses a comma-separated list of CIDRs or addresses; an
// address is a prefix of its full length.
func trustedProxies(v string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, part := range strings.Split(v, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if p, err := netip.ParsePrefix(part); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(part)
		if err != nil {
			return nil, fmt.Errorf("GLIMPSE_TRUSTED_PROXIES: %q is not a CIDR or an IP address: %w", part, err)
		}
		out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
	}
	return out, nil
}

// headerName reads an HTTP header's name: a token (RFC 9110 §5.1, §5.6.2),
// so that a typo such as "CF IPCountry" is refused at start rather than
// never matching. Empty stays empty.
func headerName(variable, v string) (string, error) {
	v = strings.TrimSpace(v)
	for _, c := range v {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("!#$%&'*+-.^_`|~", c)) {
			return "", fmt.Errorf("%s: %q is not an HTTP header name", variable, v)
		}
	}
	return v, nil
}

func or(v, fallback string) string {
	if v == "" {
		return fallback
	}
	return v
}

// secret reads NAME, or the file named by NAME_FILE.
func secret(getenv func(string) string, name string) (string, error) {
	if v := getenv(name); v != "" {
		return v, nil
	}
	path := getenv(name + "_FILE")
	if path == "" {
		return "", nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("%s_FILE: %w", name, err)
	}
	return strings.TrimSpace(string(b)), nil
}
