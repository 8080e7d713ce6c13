package privacy

import (
	"glimpse/engine/billing"
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

// ftsWhy is what happens to the support desk's index of address parts.
const ftsWhy = "the support desk's index of parts of subscriptions' addresses (SQLite's FTS5, migration 0044): " +
	"the erasure rewrites the subscription's address, and a trigger deletes its row and, with secure-delete on, its trigrams at once"

// Fates declares, for every collection the application uses, what Erase
// does to it. A test fails for a collection the application creates that
// is missing here, so a new collection cannot be forgotten by deletion.
func Fates() []Fate {
	return []Fate{
		{"users", Erased, "the account"},
		{"sessions", Erased, "every session ends"},
		{"auth_links", Erased, "one-time sign-in and password reset links of the account, activation links of its subscriptions"},
		{"auth_counters", Kept, "sign-in failure, request and mail-once counters keyed by hashes of an address, IP or account with " +
			"their window: no personal data, and each expires when its window ends"},
		{"subscriptions", Anonymised, "ended now; plan, price and dates stay with no address, account or card reference until the tax period ends (GLIMPSE_TAX_RETENTION), then the sweeper deletes them"},
		// The FTS5 table and the tables it keeps its index in.
		{"subscriptions_email_fts", Erased, ftsWhy},
		{"subscriptions_email_fts_config", Kept, "the address index's settings: no personal data"},
		{"subscriptions_email_fts_content", Erased, ftsWhy},
		{"subscriptions_email_fts_data", Erased, ftsWhy},
		{"subscriptions_email_fts_docsize", Erased, ftsWhy},
		{"subscriptions_email_fts_idx", Erased, ftsWhy},
		{"billing_outbox", Erased, "mails billing decided and has not yet handed to the mailer (the mail domain erases what it holds)"},
		{"billing_keys", Kept, "short bindings and attempt counters under keyed hashes, subscription and order ids: no personal data; each expires within hours"},
		{"subscription_history", Anonymised, "what changed and when stay with the kept subscription; who made the change and its free text are removed"},
		{"charges", Anonymised, "the ledger the tax law makes us keep: amounts, dates and the provider's reference, which name nobody here; the idempotency key, which can name the account, is replaced by a hash; kept until the tax period ends, then purged with its events"},
		{"charge_events", Kept, "the payment provider's status events per charge, by the charge's opaque id or the provider's reference: no personal data, kept with the ledger"},
		{billing.StripeEventsCollection, Kept, "ids and types of the provider's webhook events with the opaque id of the charge each concerned (never its key): no personal data; forgotten after 90 days"},
		{"sandbox_charges", Kept, "the test payment provider's charges: amounts, dates and test card tokens under ids derived from our charge keys; " +
			"a key that names the account is rewritten by the erasure, as the ledger's is: no personal data"},
		{billing.CancelLinksCollection, Erased, "cancel-by-email links"},
		{billing.ReceiptsCollection, Anonymised, "receipts belong to the ledger the tax law makes us keep: item, amount, date and card brand and last four digits stay until the tax period ends, without the address or the charge key"},
		{billing.RefundsCollection, Anonymised, "refunds belong to the ledger: amounts and dates stay until the tax period ends; staff's reason is removed"},
		{"checkout_orders", Erased, "hosted-page orders: what they bought is in the ledger"},
		{"sandbox_sessions", Erased, "the test payment provider's pages for those orders"},
		{"sandbox_refunds", Kept, "the test payment provider's refunds: charge references and amounts, no personal data"},
		{"support_audit", Kept, "the support desk's audit log, which nobody can edit: kept for the operator's defence of legal claims (GDPR Art. 17(3)(e)), see docs/support.md"},
		{"cancel_attempts", Erased, "cancellation flow attempts"},
		{"cancel_steps", Erased, "answers given in the cancellation flow (reasons, stars, reviews)"},
		{"events", Erased, "usage events"},
		{"schema_migrations", Kept, "the embedded database's schema version: no personal data"},
		{"experiment_people", Erased, "which experiment variants the person saw, and whether they stayed or canceled after"},
		{"experiment_counts", Kept, "totals per experiment variant and day: aggregates that name nobody"},
		{"experiments", Kept, "the experiments staff set up: no subscriber data"},
		{"breach_checks", Erased, "the last breach check"},
		{"breach_catalogue", Kept, "the public catalogue of known breaches: no subscriber data"},
		{"profiles", Erased, "the connected profile, its token and analysis"},
		{"profile_snapshots", Erased, "the profile's snapshots with their follower and following lists"},
		{"profile_chunks", Erased, "the snapshots' follower and following lists, cut under MongoDB's document size limit (MongoDB only)"},
		{"instagram_links", Erased, "which Instagram account the person connected"},
		{"mails", Erased, "every mail to the person's addresses, sent or queued (the outbox, engine/mail); the last mail saying the account is deleted is deleted once sent"},
		{"health", Kept, "one write-check row or document per server instance: no personal data"},
		{"settings", Kept, "the deployment's own secret: no personal data"},
		{"content_docs", Kept, "editorial content: no subscriber data"},
		{"content_version", Kept, "the content version number: no subscriber data"},
		{"content_schedules", Kept, "publishes editors set for a time, with the editor who set or cancelled each: staff, not subscribers"},
		{"staff", Kept, "staff accounts, not subscribers"},
		{"staff_sessions", Kept, "staff sessions, not subscribers"},
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
