-- Billing's subscriptions (engine/billing: Subscriptions, Notices, Keys).
-- A subscription changes only over the version it was read at (UPDATE …
-- WHERE id = ? AND version = ?); its history lines and the mails it decides
-- are written in the same transaction.
CREATE TABLE subscriptions (
	id           TEXT PRIMARY KEY,
	version      INTEGER NOT NULL,
	user_id      TEXT,             -- NULL until the buyer finalizes an account
	email        TEXT NOT NULL,    -- the current address, normalised
	bundle       TEXT NOT NULL,
	main_plan    INTEGER NOT NULL,
	status       TEXT NOT NULL,
	due_at       INTEGER,          -- Unix nanoseconds; NULL when nothing is due
	lease_owner  TEXT,             -- the renewal worker holding it
	lease_until  INTEGER,
	erased       INTEGER NOT NULL DEFAULT 0,
	retain_until INTEGER,
	doc          TEXT NOT NULL     -- the whole subscription, JSON
) STRICT;
CREATE INDEX subscriptions_user ON subscriptions (user_id) WHERE user_id IS NOT NULL;
CREATE INDEX subscriptions_email ON subscriptions (email, bundle);
CREATE INDEX subscriptions_due ON subscriptions (due_at) WHERE due_at IS NOT NULL;
CREATE INDEX subscriptions_retained ON subscriptions (retain_until) WHERE erased = 1;

-- One line per change, under "<subscription id>/<change key>": the same
-- change made twice is one line.
CREATE TABLE subscription_history (
	id              TEXT PRIMARY KEY,
	subscription_id TEXT NOT NULL,
	at              INTEGER NOT NULL,
	doc             TEXT NOT NULL
) STRICT;
CREATE INDEX history_of ON subscription_history (subscription_id, at);

-- The outbox: mails decided with a change, until handed to the mailer.
CREATE TABLE billing_outbox (
	key       TEXT PRIMARY KEY,
	recipient TEXT NOT NULL,
	at        INTEGER NOT NULL,
	doc       TEXT NOT NULL
) STRICT;
CREATE INDEX outbox_at ON billing_outbox (at);
CREATE INDEX outbox_to ON billing_outbox (recipient);

-- Short bindings (value) and bounded counters (n), each until expires_at.
CREATE TABLE billing_keys (
	key        TEXT PRIMARY KEY,
	value      TEXT NOT NULL,
	n          INTEGER NOT NULL DEFAULT 0,
	expires_at INTEGER NOT NULL
) STRICT;
CREATE INDEX billing_keys_expiry ON billing_keys (expires_at);
