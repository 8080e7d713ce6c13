package privacy

import (
	"glimpse/engine/auth"
	"glimpse/engine/billing"
	"glimpse/engine/breach"
	"glimpse/engine/experiment"
	"glimpse/engine/library"
	"glimpse/engine/mail"
	"glimpse/engine/profile"
	"glimpse/engine/retention"
	"glimpse/engine/staff"
	"glimpse/engine/store"
	"glimpse/engine/support"
)

// What an account's deletion does to a collection.
const (
	// Erased: every document about the person is deleted.
	Erased = "erased"
	// Anonymised: the documents stay, stripped of everything that leads
	// back to the person, for the reason given.
	Anonymised = "anonymised"
	// Kept: the documents stay as they are, for the reason given (they
	// hold nothing about a subscriber, or only what expires by itself).
	Kept = "kept"
)

// Fate is what an account's deletion does to one collection, and why.
type Fate struct {
	Collection string
	Fate       string
	Why        string
}

// Fates declares, for every collection the application uses, what Erase
// does to it. A test fails for a collection the application creates that
// is missing here, so a new collection cannot be forgotten by deletion.
func Fates() []Fate {
	return []Fate{
		{auth.UsersCollection, Erased, "the account"},
		{auth.UserEmailsCollection, Erased, "the address index of the account"},
		{auth.SessionsCollection, Erased, "every session ends"},
		{auth.SessionsByUserCollection, Erased, "the account's lists of its sessions by day"},
		{auth.SessionListExpiryCollection, Kept, "hashes of an account and a day, under the minute that day's list of sessions is erased: " +
			"no personal data; a deleted account's entries lead to lists already erased and go as their minutes pass"},
		{auth.LoginLinksCollection, Erased, "one-time sign-in links"},
		{auth.PasswordResetsCollection, Erased, "password reset links"},
		{auth.ActivationKeysCollection, Erased, "account activation links of the subscriptions"},
		{auth.LinksByOwnerCollection, Erased, "the lists of an account's sign-in and reset links and its subscriptions' activation links, by day"},
		{auth.LinkListExpiryCollection, Kept, "hashes of an owner and a day, under the minute that day's list of links is erased: " +
			"no personal data; a deleted account's entries lead to lists already erased and go as their minutes pass"},
		{"signin_failures", Kept, "legacy sign-in counters keyed by hashes, emptied by the sweeper; nothing new is written"},
		{billing.RetainedScheduleCollection, Kept, "the ids of the subscriptions and receipt numbers an erasure keeps, under the end of their tax period: " +
			"no personal data; each entry goes when its records are purged"},
		{billing.SubscriptionsCollection, Anonymised, "ended now; plan, price and dates stay with no address, account or card reference until the tax period ends (GLIMPSE_TAX_RETENTION), then the sweeper deletes them"},
		{billing.SubscriptionEmailsCollection, Erased, "the address index of the subscriptions"},
		{billing.UserSubscriptionsCollection, Erased, "the account's index of its subscriptions (ids named by the account id)"},
		{billing.FilingsCollection, Anonymised, "lists of a subscription's history lines and charges, a charge's status events and the charge a provider reference names: ids only, kept with the ledger; those under a charge key that names the account move with the charge to its anonymous key"},
		{"billing_outbox", Erased, "mails billing decided and has not yet handed to the mailer (the mail domain erases what it holds)"},
		{"billing_keys", Kept, "short bindings and attempt counters under keyed hashes, subscription and order ids: no personal data; each expires within hours"},
		{billing.HistoryCollection, Anonymised, "what changed and when stay with the kept subscription; who made the change and its free text are removed"},
		{billing.ChargesCollection, Anonymised, "the ledger the tax law makes us keep: amounts, dates and the provider's reference, which name nobody here; kept until the tax period ends"},
		{billing.ChargeEventsCollection, Kept, "the payment provider's status events per charge key: no personal data, kept with the ledger"},
		{billing.StripeEventsCollection, Kept, "ids and types of the provider's webhook events: no personal data"},
		{billing.RenewalScheduleCollection, Kept, "subscription ids under the minute they renew, no personal data; " +
			"the renewal pass skips an ended subscription's and deletes each entry once its minute has passed"},
		{billing.ChecksCollection, Kept, "order ids and subscription ids under the minute a pending payment or refund is looked at again, no personal data; " +
			"each entry is deleted once its minute has passed"},
		{billing.SandboxCollection, Kept, "the test payment provider's charges: no personal data"},
		{billing.CancelLinksCollection, Erased, "cancel-by-email links"},
		{billing.ReceiptsCollection, Anonymised, "receipts belong to the ledger the tax law makes us keep: item, amount, date and card brand and last four digits stay until the tax period ends, without the address or the charge key"},
		{billing.RefundsCollection, Anonymised, "refunds belong to the ledger: amounts and dates stay until the tax period ends; staff's reason is removed"},
		{billing.OrdersCollection, Erased, "hosted-page orders: what they bought is in the ledger"},
		{billing.SandboxSessionsCollection, Erased, "the test payment provider's pages for those orders"},
		{billing.SandboxRefundsCollection, Kept, "the test payment provider's refunds: charge references and amounts, no personal data"},
		{support.AuditCollection, Kept, "the support desk's audit log, which nobody can edit: kept for the operator's defence of legal claims (GDPR Art. 17(3)(e)), see docs/support.md"},
		{support.AuditByMonthCollection, Kept, "the audit log's list of each month's entries: entry ids, kept with the log"},
		{support.AuditBySubscriberCollection, Kept, "the audit log's list of each subscriber's entries, keyed by their email: kept with the log for the same legal claims"},
		{retention.AttemptsCollection, Erased, "cancellation flow attempts"},
		{retention.AttemptsByUserCollection, Erased, "the list of the person's cancellation flow attempts (keyed by their account id)"},
		{retention.StepsCollection, Erased, "answers given in the cancellation flow (reasons, stars, reviews)"},
		{"events", Erased, "usage events"},
		{"schema_migrations", Kept, "the embedded database's schema version: no personal data"},
		{experiment.PeopleCollection, Erased, "which experiment variants the person saw"},
		{experiment.CountsCollection, Kept, "totals per experiment variant: aggregates that name nobody"},
		{experiment.Collection, Kept, "the experiments staff set up: no subscriber data"},
		{breach.ChecksCollection, Erased, "the last breach check"},
		{breach.CatalogueCollection, Kept, "the public catalogue of known breaches: no subscriber data"},
		{profile.ProfilesCollection, Erased, "the connected profile, its token and analysis"},
		{profile.SnapshotsCollection, Erased, "the profile's snapshots"},
		{profile.ChunksCollection, Erased, "the snapshots' follower and following lists"},
		{profile.RefreshKeysCollection, Erased, "the key that ties the profile's refresh schedule entries to the account"},
		{profile.RefreshScheduleCollection, Kept, "random refresh keys under the minute they fall due: once the key's document " +
			"is erased they name nobody, and each goes once its minute has passed"},
		{profile.InstagramLinksCollection, Erased, "which Instagram account the person connected"},
		{profile.InstagramLinksByUserCollection, Erased, "the list of the person's Instagram links"},
		{mail.MailCollection, Erased, "every mail to the person's addresses; the last mail saying the account is deleted is deleted once sent"},
		{mail.QueueCollection, Erased, "pending deliveries of those mails"},
		{mail.RecipientsCollection, Erased, "the lists of mails to each of the person's addresses (the last mail is never listed)"},
		{store.ClaimsCollection, Erased, "claims naming the account id, each by the id forms erase_claims.go lists; the others name subscriptions, orders, hashes, days or random ids"},
		{store.HealthCollection, Kept, "one write-check document per server instance: no personal data"},
		{"settings", Kept, "the deployment's own secret: no personal data"},
		{library.DocsCollection, Kept, "editorial content: no subscriber data"},
		{library.MetaCollection, Kept, "editorial content: no subscriber data"},
		{library.VersionsCollection, Kept, "editorial content: no subscriber data"},
		{staff.MembersCollection, Kept, "staff accounts, not subscribers"},
		{staff.SessionsCollection, Kept, "staff sessions, not subscribers"},
		{ExportsCollection, Erased, "data exports"},
		{ExportChunksCollection, Erased, "the exports' files"},
		{ExportKeysCollection, Erased, "the exports' download links"},
		{ActivityCollection, Erased, "when the account was last used"},
		{PendingErasuresCollection, Erased, "an erasure begun and not yet finished (the account id and address), deleted when it ends"},
		{FarewellsCollection, Kept, "the random keys of deleted accounts' last mails, each forgotten once its mail is sent and deleted: no personal data"},
		{ErasuresCollection, Kept, "the erasure ledger: the deleted account's random id and the time, nothing that names the person, to apply the deletion again after restoring a backup"},
		{InstagramDeletionsCollection, Kept, "Meta's deletion requests, one per Instagram user: a code keyed-hashed from its id with the app secret, a status and times, no user id; deleted after 180 days"},
	}
}
