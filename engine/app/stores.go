package app

import (
	"context"
	"fmt"

	"glimpse/engine/auth"
	"glimpse/engine/billing"
	"glimpse/engine/breach"
	"glimpse/engine/experiment"
	"glimpse/engine/library"
	"glimpse/engine/mail"
	"glimpse/engine/privacy"
	"glimpse/engine/profile"
	"glimpse/engine/retention"
	"glimpse/engine/settings"
	"glimpse/engine/staff"
	"glimpse/engine/store"
	"glimpse/engine/store/mongostore"
	"glimpse/engine/store/sqlstore"
	"glimpse/engine/support"
	"glimpse/engine/tracking"
)

// stores are the domains' storage: on the embedded SQLite database when the
// store has one (a bare machine, one process), on MongoDB otherwise
// (docs/store.md).
type stores struct {
	events      tracking.Events
	auth        auth.Stores
	settings    settings.Store
	mails       mail.Mails
	profiles    profile.Profiles
	attempts    retention.Attempts
	experiments experiment.Storage
	content     library.Items
	schedules   library.Schedules
	staff       staff.Accounts
	// supportAudit is the support desk's audit log.
	supportAudit support.AuditLog
	breach       breach.Records
	privacy      privacy.Stores
	billing      billing.Store
	// sandbox is the sandbox payment provider's books.
	sandbox billing.SandboxRecords
}

func openStores(ctx context.Context, st *store.Store) (stores, error) {
	if db := st.SQL(); db != nil {
		return stores{events: sqlstore.NewEvents(db), mails: sqlstore.NewMails(db), profiles: sqlstore.NewProfiles(db),
			attempts: sqlstore.NewAttempts(db), experiments: sqlstore.NewExperiments(db),
			content: sqlstore.NewContentItems(db), schedules: sqlstore.NewContentSchedules(db), staff: sqlstore.NewStaffAccounts(db), supportAudit: sqlstore.NewSupportAudit(db),
			breach: sqlstore.NewBreachRecords(db), auth: sqlstore.AuthStores(db),
			settings: sqlstore.NewSettings(db), privacy: sqlstore.NewPrivacy(db), billing: sqlstore.NewBilling(db),
			sandbox: sqlstore.NewSandboxRecords(db)}, nil
	}
	if err := mongostore.Ensure(ctx, st); err != nil {
		return stores{}, fmt.Errorf("open stores: %w", err)
	}
	return stores{events: mongostore.NewEvents(st.DB()), mails: mongostore.NewMails(st.DB()), profiles: mongostore.NewProfiles(st.DB()),
		attempts: mongostore.NewAttempts(st.DB()), experiments: mongostore.NewExperiments(st.DB()),
		content: mongostore.NewContentItems(st.DB()), schedules: mongostore.NewContentSchedules(st.DB()), staff: mongostore.NewStaffAccounts(st.DB()), supportAudit: mongostore.NewSupportAudit(st.DB()),
		breach: mongostore.NewBreachRecords(st.DB()), auth: mongostore.AuthStores(st.DB()),
		settings: mongostore.NewSettings(st.DB()), privacy: mongostore.NewPrivacy(st.DB()), billing: mongostore.NewBilling(st.DB()),
		sandbox: mongostore.NewSandboxRecords(st.DB())}, nil
}

// authBilling is what auth reads and writes of billing's subscriptions:
// billing's own store of them (auth is made before billing's service, which
// needs auth's cache to drop); auth never names a table or collection.
type authBilling struct{ subs billing.Subscriptions }

func (b authBilling) SubscriptionsOf(ctx context.Context, userID string) ([]billing.Subscription, error) {
	return b.subs.OfUser(ctx, userID)
}

// PutSubscription writes a subscription as given (tests and seeds).
func (b authBilling) PutSubscription(ctx context.Context, sub billing.Subscription) error {
	return b.subs.Put(ctx, sub)
}
