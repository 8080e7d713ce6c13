// Package app wires Glimpse together: configuration, the database, the
// services and the HTTP server, and the admin commands of the binary.
package app

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"glimpse/content"
	"glimpse/engine"
	"glimpse/engine/analysis"
	"glimpse/engine/auth"
	"glimpse/engine/brand"
	"glimpse/engine/breach"
	"glimpse/engine/config"
	library "glimpse/engine/content"
	"glimpse/engine/imageproxy"
	"glimpse/engine/instagram"
	"glimpse/engine/instagram/api"
	"glimpse/engine/lesson"
	"glimpse/engine/profile"
	"glimpse/engine/server"
	"glimpse/engine/staff"
	"glimpse/engine/store"
	"glimpse/fixtures"
	"glimpse/renderer"
)

const usage = `usage: glimpse [command]

commands:
  serve               start the server (the default)
  login-link EMAIL    print a single-use sign-in link, valid for 10 minutes
  staff add --role editor|tester|admin EMAIL
                      create a staff account (or reset it) and print its password;
                      a reset ends the member's sessions
  staff remove EMAIL  delete a staff account and end its sessions
  db-server --data DIR [--socket PATH]
                      run the embedded database as a process of its own on a
                      Unix socket and print its MONGODB_URI (fault tests)
  version             print the version
`

// Run runs the command in args.
func Run(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer, version string) error {
	cmd := "serve"
	if len(args) > 0 {
		cmd, args = args[0], args[1:]
	}
	if cmd == "version" {
		_, err := fmt.Fprintln(stdout, version)
		return err
	}
	cfg, err := config.Load(getenv)
	if err != nil {
		return err
	}
	logger := newLogger(cfg.LogLevel)
	switch cmd {
	case "serve":
		return serve(ctx, cfg, logger, stdout, version)
	case "login-link":
		fs := flag.NewFlagSet("login-link", flag.ContinueOnError)
		if err := fs.Parse(args); err != nil || fs.NArg() != 1 {
			return errors.New("usage: glimpse login-link EMAIL")
		}
		return loginLink(ctx, cfg, logger, stdout, fs.Arg(0))
	case "staff":
		return staffCommand(ctx, cfg, logger, stdout, args)
	case "db-server":
		return dbServer(ctx, args, logger, stdout)
	case "-h", "--help", "help":
		_, err := io.WriteString(stdout, usage)
		return err
	}
	return fmt.Errorf("unknown command %q\n%s", cmd, usage)
}

func newLogger(level string) *slog.Logger {
	var l slog.Level
	_ = l.UnmarshalText([]byte(level))
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: l}))
}

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
	// Library is the reading content (insights, articles, news).
	Library *library.Library
	// Passwords answers whether a password appears in known breaches.
	Passwords breach.PasswordChecker
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
	a := &App{Config: cfg, Clock: clock, Logger: logger, Store: st,
		Auth: auth.NewService(st.DB(), clock, auth.NewHasher(), cfg.SessionLifetime), Brands: brand.NewRegistry(cfg.BrandHosts)}
	if err := a.openBreach(cfg, logger); err != nil {
		return nil, err
	}
	specs := []store.CollectionSpec{{Name: settingsCollection}}
	a.Profiles = profile.NewService(st.DB(), clock, logger)
	a.Staff = staff.NewService(st.DB(), clock, auth.NewHasher())
	a.Content = library.NewRepo(st.DB(), clock)
	for _, collections := range []map[string][]mongo.IndexModel{auth.Collections(), breach.Collections(),
		profile.Collections(), staff.Collections(), library.RepoCollections(), store.ClaimsCollections()} {
		for name, idx := range collections {
			specs = append(specs, store.CollectionSpec{Name: name, Indexes: idx})
		}
	}
	if err := st.EnsureCollections(ctx, specs); err != nil {
		return nil, err
	}
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
	if a.Lessons, err = lesson.Load(content.Library); err != nil {
		return nil, fmt.Errorf("load lessons: %w", err)
	}
	if a.Sealer, err = instagram.NewSealer(deriveKey(a.Secret, "instagram-token")); err != nil {
		return nil, err
	}
	if cfg.InstagramAppID != "" {
		a.Instagram = api.New(api.Config{AppID: cfg.InstagramAppID, AppSecret: cfg.InstagramAppSecret,
			RedirectURI: cfg.InstagramRedirectURI, AuthBaseURL: cfg.InstagramAuthBaseURL,
			APIBaseURL: cfg.InstagramAPIBaseURL, TokenBaseURL: cfg.InstagramTokenBaseURL, Clock: clock})
		a.Profiles.SetFetcher(profile.SourceAPI, a.fetchInstagram)
	}
	if a.Secret, err = loadSecret(ctx, st.DB(), cfg.Secret); err != nil {
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
	a.Breach = breach.NewService(a.Store.DB(), provider, a.Clock, logger, breach.Limits{})
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

const settingsCollection = "settings"

// loadSecret returns the configured secret, or one generated on first start
// and kept in the database so that every instance agrees on it.
func loadSecret(ctx context.Context, db *mongo.Database, configured string) ([]byte, error) {
	if configured != "" {
		return []byte(configured), nil
	}
	coll := db.Collection(settingsCollection)
	_, err := coll.InsertOne(ctx, bson.M{"_id": "csrf_secret", "value": engine.NewToken()})
	if err != nil && !mongo.IsDuplicateKeyError(err) {
		return nil, fmt.Errorf("create secret: %w", err)
	}
	var doc struct {
		Value string `bson:"value"`
	}
	if err := coll.FindOne(ctx, bson.M{"_id": "csrf_secret"}).Decode(&doc); err != nil {
		return nil, fmt.Errorf("read secret: %w", err)
	}
	return []byte(doc.Value), nil
}

// Demo account, documented in README.md.
const (
	DemoEmail    = "demo@example.com"
	DemoPassword = "glimpse-demo"
)

// SeedDemo creates the demo subscriber (in the sample breaches) and a second
// one whose email is in none, each with an active weekly plan on the default
// brand, unless they exist. It is idempotent.
func SeedDemo(ctx context.Context, a *App) error {
	if err := seedSubscriber(ctx, a, DemoEmail, DemoPassword, "demo-weekly"); err != nil {
		return err
	}
	demo, err := a.Auth.UserByEmail(ctx, DemoEmail)
	if err != nil {
		return err
	}
	// The demo subscriber's Analytics shows a generated profile.
	if err := a.Profiles.SeedDemo(ctx, demo.ID, demoProfileSeed); err != nil {
		return fmt.Errorf("seed demo profile: %w", err)
	}
	if err := seedSubscriber(ctx, a, CleanEmail, CleanPassword, "clean-weekly"); err != nil {
		return err
	}
	// A demo editor for the studio.
	return a.Staff.Put(ctx, EditorEmail, staff.RoleEditor, EditorPassword)
}

// The demo editor, documented in README.md.
const (
	EditorEmail    = "editor@example.com"
	EditorPassword = "glimpse-editor"
)

// demoProfileSeed makes the demo profile the same on every machine.
const demoProfileSeed = 42

// A second demo subscriber whose email is in no (sample) breach.
const (
	CleanEmail    = "clean@example.com"
	CleanPassword = "glimpse-clean"
)

func seedSubscriber(ctx context.Context, a *App, email, password, subID string) error {
	u, err := a.Auth.UserByEmail(ctx, email)
	if engine.IsNotFound(err) {
		u, err = a.Auth.CreateUser(ctx, email, password)
	}
	if err != nil {
		return fmt.Errorf("seed %s: %w", email, err)
	}
	return a.Auth.PutSubscription(ctx, auth.Subscription{
		ID: subID, UserID: u.ID, Email: u.Email, Bundle: a.Brands.Get(brand.DefaultKey).Bundle,
		PlanCode: "glimpse_weekly_trial", Status: auth.StatusActive, MainPlan: true,
		StartedAt: a.Clock.Now().Add(-24 * time.Hour),
	})
}

// Server builds the HTTP server over the app.
func (a *App) Server(version string, validateResponses bool) (*server.Server, error) {
	return server.New(server.Deps{
		Config: a.Config, Clock: a.Clock, Logger: a.Logger, Auth: a.Auth, Brands: a.Brands, Breach: a.Breach, Profiles: a.Profiles, Library: a.Library,
		Images:    imageproxy.New(imageproxy.Config{Secret: deriveKey(a.Secret, "image-proxy")}),
		Instagram: a.Instagram, Sealer: a.Sealer, Lessons: a.Lessons, Staff: a.Staff, Content: a.Content,
		Secret: a.Secret, Version: version, Renderer: renderer.Build(), Static: content.Static,
		// A write, not a ping: a full disk still answers pings.
		Ready:             a.Store.CheckWritable,
		ValidateResponses: validateResponses,
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

func serve(ctx context.Context, cfg config.Config, logger *slog.Logger, stdout io.Writer, version string) error {
	a, err := Open(ctx, cfg, logger, engine.SystemClock{}, nil)
	if err != nil {
		return err
	}
	defer func() {
		closeCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := a.Close(closeCtx); err != nil {
			logger.Error("close store", "error", err)
		}
	}()
	srv, err := a.Server(version, false)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.Addr, err)
	}
	fmt.Fprintf(stdout, "Glimpse %s is running at %s\n", version, cfg.BaseURL)
	if cfg.Demo {
		fmt.Fprintf(stdout, "Demo sign-in: %s / %s\n", DemoEmail, DemoPassword)
		fmt.Fprintf(stdout, "One-time sign-in link: ./bin/glimpse login-link %s\n", DemoEmail)
		fmt.Fprintf(stdout, "Studio: %s/studio as %s / %s\n", cfg.BaseURL, EditorEmail, EditorPassword)
	}
	go a.Breach.RunCatalogueSync(ctx, cfg.HIBPCatalogueSync)
	go a.Profiles.RunRefresh(ctx, time.Minute)
	go a.RunSweeper(ctx, sweepEvery)
	// Published content reaches every instance within seconds.
	go a.Content.Watch(ctx, 2*time.Second, func(int64) {
		if err := srv.ReloadContent(ctx); err != nil {
			logger.Error("reload content", "error", err)
		}
	})
	errc := make(chan error, 1)
	go func() { errc <- srv.App().Listener(ln, fiberListenConfig()) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	logger.Info("shutting down: draining requests", "timeout", cfg.ShutdownTimeout)
	defer srv.FlushReports(2 * time.Second) // error reports of the last requests, when reporting is on
	if err := srv.App().ShutdownWithTimeout(cfg.ShutdownTimeout); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	return nil
}

// sweepEvery is how often expired sessions, sign-in links and sign-in
// counters are deleted. They stop counting when they expire whether swept or
// not, so this only bounds how much dead data the collections hold.
const sweepEvery = 10 * time.Minute

// Sweep deletes what has expired: subscriber and staff sessions, sign-in
// links and claims (the sign-in counters among them).
func (a *App) Sweep(ctx context.Context) error {
	if _, err := a.Auth.Sweep(ctx); err != nil {
		return err
	}
	if _, err := a.Staff.Sweep(ctx); err != nil {
		return err
	}
	if _, err := store.NewClaims(a.Store.DB()).Sweep(ctx, a.Clock.Now()); err != nil {
		return err
	}
	return nil
}

// RunSweeper sweeps every interval until ctx ends. Every instance runs it;
// deleting what is expired is the same work whoever does it first.
func (a *App) RunSweeper(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := a.Sweep(ctx); err != nil && ctx.Err() == nil {
				a.Logger.Error("sweep expired sessions and claims", "error", err)
			}
		}
	}
}

func staffCommand(ctx context.Context, cfg config.Config, logger *slog.Logger, stdout io.Writer, args []string) error {
	if len(args) == 2 && args[0] == "remove" {
		a, err := Open(ctx, cfg, logger, engine.SystemClock{}, nil)
		if err != nil {
			return err
		}
		defer a.Close(context.Background())
		if err := a.Staff.Remove(ctx, args[1]); err != nil {
			return err
		}
		_, err = fmt.Fprintf(stdout, "Staff member %s removed; their sessions have ended.\n", args[1])
		return err
	}
	if len(args) == 0 || args[0] != "add" {
		return errors.New("usage: glimpse staff add --role editor|tester|admin EMAIL")
	}
	fs := flag.NewFlagSet("staff add", flag.ContinueOnError)
	role := fs.String("role", "", "editor, tester or admin")
	if err := fs.Parse(args[1:]); err != nil || fs.NArg() != 1 || *role == "" {
		return errors.New("usage: glimpse staff add --role editor|tester|admin EMAIL")
	}
	a, err := Open(ctx, cfg, logger, engine.SystemClock{}, nil)
	if err != nil {
		return err
	}
	defer a.Close(context.Background())
	password, err := a.Staff.Add(ctx, fs.Arg(0), *role)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "Staff member %s (%s) added.\nPassword (shown once): %s\nSign in at %s/studio\n",
		fs.Arg(0), *role, password, cfg.BaseURL)
	return err
}

func loginLink(ctx context.Context, cfg config.Config, logger *slog.Logger, stdout io.Writer, email string) error {
	a, err := Open(ctx, cfg, logger, engine.SystemClock{}, nil)
	if err != nil {
		return err
	}
	defer a.Close(context.Background())
	token, err := a.Auth.MintLoginLink(ctx, email)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "%s/?login=%s\n(single use, valid for %s)\n", cfg.BaseURL, token, auth.LoginLinkLifetime)
	return err
}
