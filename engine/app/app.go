// Package app wires Glimpse together: configuration, the database, the
// services and the HTTP server, and the admin commands of the binary.
package app

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"fmt"
	"log/slog"
	"time"

	"glimpse/content"
	"glimpse/engine"
	"glimpse/engine/analysis"
	"glimpse/engine/auth"
	"glimpse/engine/billing"
	"glimpse/engine/brand"
	"glimpse/engine/breach"
	"glimpse/engine/config"
	"glimpse/engine/experiment"
	"glimpse/engine/imageproxy"
	"glimpse/engine/instagram"
	"glimpse/engine/instagram/api"
	"glimpse/engine/lesson"
	"glimpse/engine/library"
	"glimpse/engine/mail"
	"glimpse/engine/metrics"
	"glimpse/engine/privacy"
	"glimpse/engine/profile"
	"glimpse/engine/retention"
	"glimpse/engine/server"
	"glimpse/engine/settings"
	"glimpse/engine/staff"
	"glimpse/engine/store"
	"glimpse/engine/support"
	"glimpse/engine/tracking"
	"glimpse/fixtures"
	"glimpse/renderer"
)

// App is the wired application, shared by serve, the admin commands and tests.
type App struct {
	Config config.Config
	Clock  engine.Clock
	Logger *slog.Logger
	Store  *store.Store
	Auth   *auth.Service
	Brands *brand.Registry
	Secret []byte
	Breach *breach.Service
	// Profiles keeps connected Instagram profiles and their analyses.
	Profiles *profile.Service
	// Instagram is the Instagram Login client, nil when not configured.
	Instagram *api.Client
	// Sealer encrypts stored Instagram tokens.
	Sealer *instagram.Sealer
	// Lessons are the course's lessons and the Reels playbook.
	Lessons []lesson.Doc
	// Staff are the editors', testers' and admins' accounts.
	Staff *staff.Service
	// Content is the editors' content repository.
	Content *library.Repo
	// Schedules publishes content at the times editors set.
	Schedules *library.Scheduler
	// Library is the reading content (insights, articles, news).
	Library *library.Library
	// Passwords answers whether a password appears in known breaches.
	Passwords breach.PasswordChecker
	// Outbox keeps and delivers mail (engine/mail).
	Outbox *mail.Outbox
	// Billing sells plans and keeps subscriptions.
	Billing *billing.Service
	// Retention keeps the unsubscribe flow's attempts.
	Retention *retention.Service
	// Accounts creates subscribers' accounts (the purchase mail's
	// activation link) and gets them back in.
	Accounts *auth.Accounts
	// Events keeps analytics events for their retention period.
	Events *tracking.Store
	// stores are the domains' storage on this deployment's engine.
	stores stores
	// Experiments are the A/B experiments on the unsubscribe flow.
	Experiments *experiment.Service
	// Privacy runs data exports, account deletion and Meta's callbacks.
	Privacy *privacy.Service
	// Metrics are the business metrics, nil unless GLIMPSE_METRICS_ADDR is
	// set (engine/app/metrics.go).
	Metrics *metrics.Business
	// Support is the support desk (engine/support).
	Support *support.Desk
}

// Open connects to the database, prepares its collections, seeds what is
// missing and loads brands. With st nil it opens the store cfg describes.
func Open(ctx context.Context, cfg config.Config, logger *slog.Logger, clock engine.Clock, st *store.Store) (*App, error) {
	var err error
	if st == nil {
		st, err = store.Open(ctx, store.Config{URI: cfg.MongoURI, DataDir: cfg.DataDir, Database: cfg.Database}, logger)
		if err != nil {
			return nil, fmt.Errorf("open store: %w", err)
		}
	}
	a := &App{Config: cfg, Clock: clock, Logger: logger, Store: st, Brands: brand.NewRegistry(cfg.BrandHosts)}
	if a.stores, err = openStores(ctx, st); err != nil {
		return nil, err
	}
	a.Auth = auth.NewService(a.stores.auth, authBilling{subs: a.stores.billing.Subscriptions()}, clock, passwordHasher(cfg), cfg.SessionLifetime)
	if err := a.openBreach(cfg, logger); err != nil {
		return nil, err
	}
	// Staff sign-in has the subscribers' limits, counted in auth's counters
	// apart from theirs by the limiter's scope.
	a.Staff = staff.NewService(a.stores.staff, clock, passwordHasher(cfg), auth.NewLimiter(a.stores.auth.Counters, clock, "staff", auth.DefaultLimits))
	a.Content = library.NewRepo(a.stores.content, clock)
	a.Schedules = library.NewScheduler(a.stores.schedules, a.Content, clock, logger)
	// An experiment's change bumps the content version, so every instance's
	// content watch reloads the experiments within seconds.
	a.Experiments = experiment.NewService(a.stores.experiments, clock, func(ctx context.Context) error {
		_, err := a.Content.Bump(ctx)
		return err
	})
	a.Outbox = mail.NewOutbox(a.stores.mails, clock, logger, func(key string) brand.Copy { return a.Brands.Copy(a.Brands.Get(key)) }, cfg.BaseURL).
		WithOrigins(cfg.BrandOrigin).WithSenders(a.mailFrom).WithDemoNotice(cfg.PublicDemo())
	a.Events = tracking.NewStore(a.stores.events, clock, tracking.DefaultRetention)
	a.Profiles = profile.NewService(a.stores.profiles, clock, logger)
	webhookSecret := webhookSecret(cfg)
	provider, err := paymentProvider(cfg, a.stores.sandbox, clock, webhookSecret)
	if err != nil {
		return nil, err
	}
	a.Billing = billing.NewService(clock, billing.Options{Store: a.stores.billing, Provider: provider,
		Logger: logger, Notify: a.billingMail, NotifyMany: a.billingMails, Changed: a.Auth.ForgetSubscriptions, WebhookSecret: webhookSecret})
	// A profile report bought before the profile's first analysis is mailed
	// once there is one.
	a.Profiles.OnAnalysed(a.deliverProfileReport)
	a.wireOperations(cfg)
	a.Accounts = auth.NewAccounts(a.Auth, a.Billing, a.Outbox, server.AccountLinks())
	a.Retention = retention.NewService(a.stores.attempts, clock)
	a.Support = support.NewDesk(a.stores.supportAudit, clock, support.Deps{Auth: a.Auth, Accounts: a.Accounts, Billing: a.Billing,
		Retention: a.Retention, Profiles: a.Profiles, Outbox: a.Outbox, Brands: a.Brands})
	a.Privacy = privacy.NewService(a.stores.privacy, clock, privacy.Options{Logger: logger, Auth: a.Auth, Billing: a.Billing, Events: a.Events, Breach: a.Breach,
		Retention: a.Retention, Experiments: a.Experiments,
		Profiles: a.Profiles, Mail: a.Outbox, TaxPeriod: time.Duration(cfg.TaxRetentionYears) * 365 * 24 * time.Hour,
		InstagramAppSecret: cfg.InstagramAppSecret, BaseURL: cfg.BaseURL})
	// The retention job counts an account's disuse from its creation.
	a.Auth.OnCreated(a.Privacy.Started)
	shipped, err := brand.ReadShipped(content.Brands)
	if err != nil {
		return nil, err
	}
	if err := a.Brands.Install(shipped); err != nil {
		return nil, err
	}
	if err := library.SeedRepo(ctx, a.Content, content.Library); err != nil {
		return nil, fmt.Errorf("seed content: %w", err)
	}
	if a.Library, err = library.LoadPublished(ctx, a.Content); err != nil {
		return nil, fmt.Errorf("load content: %w", err)
	}
	overrides, err := library.LoadCopyOverrides(ctx, a.Content)
	if err != nil {
		return nil, fmt.Errorf("load copy: %w", err)
	}
	a.Brands.SetOverrides(overrides)
	if err := a.Experiments.Reload(ctx); err != nil {
		return nil, err
	}
	if a.Lessons, err = lesson.Load(content.Library); err != nil {
		return nil, fmt.Errorf("load lessons: %w", err)
	}
	if cfg.InstagramAppID != "" {
		a.Instagram = api.New(api.Config{AppID: cfg.InstagramAppID, AppSecret: cfg.InstagramAppSecret,
			RedirectURI: cfg.InstagramRedirectURI, AuthBaseURL: cfg.InstagramAuthBaseURL,
			APIBaseURL: cfg.InstagramAPIBaseURL, TokenBaseURL: cfg.InstagramTokenBaseURL, Clock: clock})
		a.Profiles.SetFetcher(profile.SourceAPI, a.fetchInstagram)
	}
	if a.Secret, err = loadSecret(ctx, a.stores.settings, cfg.Secret); err != nil {
		return nil, err
	}
	// Releases before this one derived the token key before the secret was
	// loaded, so from an empty secret: the same key everywhere. Tokens sealed
	// then still open; every token sealed from now on uses this
	// deployment's own key.
	if a.Sealer, err = instagram.NewSealer(deriveKey(a.Secret, "instagram-token"), deriveKey(nil, "instagram-token")); err != nil {
		return nil, err
	}
	if err := a.Breach.SyncCatalogue(ctx); err != nil {
		// The screen still works from the stored catalogue; the periodic
		// sync tries again.
		logger.Warn("breach catalogue sync failed", "error", err)
	}
	if cfg.Demo {
		if err := SeedDemo(ctx, a); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// openBreach picks the breach providers: the HIBP API when a key is
// configured, else the bundled sample data, so the screen works on a bare
// machine.
func (a *App) openBreach(cfg config.Config, logger *slog.Logger) error {
	userAgent := "Glimpse-PasswordSafety/1.0 (+" + cfg.BaseURL + ")"
	var provider breach.Provider
	if cfg.HIBPKey != "" {
		client := breach.NewClient(breach.ClientConfig{BaseURL: cfg.HIBPBaseURL, APIKey: cfg.HIBPKey,
			UserAgent: userAgent, RPM: cfg.HIBPRPM})
		if cfg.HIBPRPM == 0 {
			// Size the limiter from the key's own subscription; until that
			// answers, the client's default applies.
			go func() {
				ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
				defer cancel()
				rpm, err := client.SubscriptionRPM(ctx)
				if err != nil {
					logger.Warn("read HIBP subscription rate", "error", err)
					return
				}
				client.SetRPM(rpm)
				logger.Info("HIBP rate limit set from the subscription", "rpm", rpm)
			}()
		}
		provider = client
	} else {
		local, err := breach.NewLocalProvider(fixtures.Samples)
		if err != nil {
			return fmt.Errorf("open sample breaches: %w", err)
		}
		provider = local
	}
	a.Breach = breach.NewService(a.stores.breach, provider, a.Clock, logger, breach.Limits{})
	if cfg.PwnedPasswords == "api" {
		a.Passwords = breach.NewRangeClient(breach.RangeConfig{UserAgent: userAgent})
	} else {
		a.Passwords = breach.NewLocalRangeChecker(fixtures.Samples)
	}
	a.Auth.SetPasswordCheck(func(ctx context.Context, password string) error {
		return breach.CheckNewPassword(ctx, a.Passwords, password, logger)
	})
	return nil
}

// loadSecret returns the configured secret, or one generated on first start
// and kept in the database so that every instance agrees on it.
func loadSecret(ctx context.Context, store settings.Store, configured string) ([]byte, error) {
	if configured != "" {
		return []byte(configured), nil
	}
	secret, err := store.PutOnce(ctx, "csrf_secret", engine.NewToken())
	if err != nil {
		return nil, fmt.Errorf("load secret: %w", err)
	}
	return []byte(secret), nil
}

// Server builds the HTTP server over the app.
func (a *App) Server(version string, validateResponses bool) (*server.Server, error) {
	return server.New(server.Deps{
		Config: a.Config, Clock: a.Clock, Logger: a.Logger, Auth: a.Auth, Brands: a.Brands, Breach: a.Breach, Profiles: a.Profiles, Library: a.Library,
		Images:    imageproxy.New(imageproxy.Config{Secret: deriveKey(a.Secret, "image-proxy")}),
		Instagram: a.Instagram, Sealer: a.Sealer, Lessons: a.Lessons, Staff: a.Staff, Content: a.Content, Schedules: a.Schedules, Billing: a.Billing, Events: a.Events, Experiments: a.Experiments,
		Retention: a.Retention, Accounts: a.Accounts, Support: a.Support, Privacy: a.Privacy,
		Secret: a.Secret, Version: version, Renderer: renderer.Build(), Static: content.Static,
		// A write, not a ping: a full disk still answers pings.
		Ready:             a.Store.CheckWritable,
		ValidateResponses: validateResponses,
		Mail:              a.Outbox, DevMailbox: a.Config.DevMailbox,
		Business: a.Metrics,
	})
}

// fetchInstagram takes a new snapshot of an API-connected profile for the
// refresh job, refreshing the token when it is due.
func (a *App) fetchInstagram(ctx context.Context, p profile.Profile, now time.Time) (analysis.Snapshot, string, error) {
	tok, err := a.Sealer.Open(p.Credential)
	if err != nil {
		return analysis.Snapshot{}, "", err
	}
	sealed := ""
	if api.NeedsRefresh(tok, now) {
		if tok, err = a.Instagram.Refresh(ctx, tok); err != nil {
			return analysis.Snapshot{}, "", api.AppError(err)
		}
		if sealed, err = a.Sealer.Seal(tok); err != nil {
			return analysis.Snapshot{}, "", err
		}
	}
	snap, _, err := instagram.Snapshot(ctx, a.Instagram, tok, now)
	if err != nil {
		return analysis.Snapshot{}, "", api.AppError(err)
	}
	return snap, sealed, nil
}

// deriveKey makes a key for one purpose from the app secret, so a key
// leaked from one use cannot forge another's tokens.
func deriveKey(secret []byte, purpose string) []byte {
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(purpose))
	return mac.Sum(nil)
}

// Close releases the database.
func (a *App) Close(ctx context.Context) error { return a.Store.Close(ctx) }

// sweepEvery is how often expired sessions, sign-in links and sign-in
// counters are deleted. They stop counting when they expire whether swept or
// not, so this only bounds how much dead data the collections hold.
const sweepEvery = 10 * time.Minute

// Sweep deletes what has expired: subscriber and staff sessions, sign-in
// links and counters, analytics events past their retention, billing's keys
// and spent links, and what privacy keeps for a while.
// Each finds its rows by an index on their expiry, so every instance may
// sweep as often as it likes.
func (a *App) Sweep(ctx context.Context) error {
	if _, err := a.Auth.Sweep(ctx); err != nil {
		return err
	}
	if _, err := a.Events.Sweep(ctx); err != nil {
		return err
	}
	if _, err := a.Staff.Sweep(ctx); err != nil {
		return err
	}
	if _, err := a.Billing.SweepKeys(ctx); err != nil {
		return err
	}
	if _, err := a.Billing.SweepLedger(ctx); err != nil {
		return err
	}
	if err := a.Privacy.Sweep(ctx); err != nil {
		return err
	}
	return nil
}

// RunSweeper sweeps every interval until ctx ends, at most
// engine.PassShare of the time. Every instance runs it; deleting what is
// expired is the same work whoever does it first.
func (a *App) RunSweeper(ctx context.Context, every time.Duration) {
	engine.EveryAtMost(ctx, every, engine.PassShare, func(ctx context.Context) {
		if err := a.Sweep(ctx); err != nil && ctx.Err() == nil {
			a.Logger.Error("sweep expired data", "error", err)
		}
	})
}

// passwordHasher hashes at the configured argon2id cost (zero: OWASP's).
func passwordHasher(cfg config.Config) *auth.Hasher {
	return auth.NewHasherCosting(auth.Cost{MemoryKiB: cfg.PasswordMemoryKiB, Passes: cfg.PasswordPasses})
}
