// Package privacy runs a subscriber's data rights: downloading everything
// Glimpse holds about them (a ZIP of JSON documents built by a background
// job), deleting the account (every collection erased or anonymised, the
// receipts kept for the tax period), disconnecting Instagram, Meta's
// deauthorize and data-deletion callbacks, and deleting accounts left
// unused for the retention period the privacy policy promises.
package privacy

import (
	"context"
	"log/slog"
	"strings"
	"time"

	"glimpse/engine"
	"glimpse/engine/auth"
	"glimpse/engine/billing"
	"glimpse/engine/breach"
	"glimpse/engine/experiment"
	"glimpse/engine/mail"
	"glimpse/engine/profile"
	"glimpse/engine/retention"
	"glimpse/engine/tracking"
)

// Defaults of Options.
const (
	// DefaultTaxPeriod is how long the receipts of a deleted account are
	// kept: ten years, the longest of the periods commercial and tax law
	// set for books and invoices in the EU countries we sell in (France
	// 10, Germany 8 for invoices and 10 for books).
	DefaultTaxPeriod = 10 * 365 * 24 * time.Hour
	// DefaultExportLifetime is how long a built export can be downloaded.
	DefaultExportLifetime = 7 * 24 * time.Hour
	// DefaultInactivity is how long an account may go unused before it is
	// deleted, as the privacy policy says.
	DefaultInactivity = 730 * 24 * time.Hour
	// DefaultWarning is how long before that deletion the warning mail goes.
	DefaultWarning = 30 * 24 * time.Hour
)

// Mailer queues mail (mail.Outbox).
type Mailer interface {
	Enqueue(ctx context.Context, m mail.Message) error
	To(ctx context.Context, addresses, unlisted []string) ([]mail.Mail, error)
	EraseTo(ctx context.Context, addresses, unlisted []string, keep string) (int, error)
	Erase(ctx context.Context, key string) (bool, error)
}

// Options are the Service's collaborators and settings.
type Options struct {
	Logger   *slog.Logger
	Auth     *auth.Service
	Billing  *billing.Service
	Profiles *profile.Service
	Mail     Mailer
	// Events are the analytics events (required).
	Events *tracking.Store
	// Retention keeps the cancel attempts and Experiments the people's
	// exposures and outcomes (both required).
	Retention   *retention.Service
	Experiments *experiment.Service
	// Breach holds the person's last breach check (required).
	Breach *breach.Service
	// TaxPeriod is how long a deleted account's charges and subscriptions
	// are kept, anonymised (GLIMPSE_TAX_RETENTION).
	TaxPeriod time.Duration
	// ExportLifetime is how long an export's download works.
	ExportLifetime time.Duration
	// Inactivity and Warning drive the retention job.
	Inactivity, Warning time.Duration
	// InstagramAppSecret verifies Meta's signed requests; empty refuses
	// them all.
	InstagramAppSecret string
	// BaseURL is the public origin for the status page link given to Meta.
	BaseURL string
}

// Service runs the privacy use cases.
type Service struct {
	st    Stores
	clock engine.Clock
	o     Options
	owner string
	// wake starts the export job at once when an export is requested.
	wake chan struct{}
	// seen is the day each account was last recorded as used (Touch).
	seen *touched
}

// NewService returns the privacy service over its stores.
func NewService(st Stores, clock engine.Clock, o Options) *Service {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.TaxPeriod <= 0 {
		o.TaxPeriod = DefaultTaxPeriod
	}
	if o.ExportLifetime <= 0 {
		o.ExportLifetime = DefaultExportLifetime
	}
	if o.Inactivity <= 0 {
		o.Inactivity = DefaultInactivity
	}
	if o.Warning <= 0 {
		o.Warning = DefaultWarning
	}
	o.BaseURL = strings.TrimRight(o.BaseURL, "/")
	return &Service{st: st, clock: clock, o: o, owner: "privacy:" + engine.NewID(),
		wake: make(chan struct{}, 1), seen: &touched{days: map[string]string{}}}
}

// TaxPeriodYears is the tax period in whole years, for the screens and the
// last mail.
func (s *Service) TaxPeriodYears() int {
	return int((s.o.TaxPeriod + 24*time.Hour) / (365 * 24 * time.Hour))
}

// ExportLifetime is how long an export's download works.
func (s *Service) ExportLifetime() time.Duration { return s.o.ExportLifetime }

func (s *Service) now() time.Time { return s.clock.Now().UTC().Truncate(time.Millisecond) }
