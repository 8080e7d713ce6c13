-- Billing's cancel-by-email links and the Stripe webhook events handled
-- (engine/billing: CancelLinks, StripeEvents).
-- A link is kept by the SHA-256 of its token; the one tap that spends it is
-- a conditional update (… WHERE spent_at IS NULL), so a link cancels once.
CREATE TABLE cancel_links (
	id         TEXT PRIMARY KEY,
	email      TEXT NOT NULL,    -- normalised; erased with the address
	user_id    TEXT NOT NULL,
	bundle     TEXT NOT NULL,
	expires_at INTEGER NOT NULL, -- Unix nanoseconds
	spent_at   INTEGER           -- NULL until the tap
) STRICT;
CREATE INDEX cancel_links_email ON cancel_links (email);
CREATE INDEX cancel_links_expiry ON cancel_links (expires_at);

-- One row per webhook event handled, by the provider's event id: a
-- delivery seen before does nothing. Forgotten after 90 days. No personal
-- data: the charge is named by its opaque id.
CREATE TABLE stripe_events (
	id          TEXT PRIMARY KEY,
	type        TEXT NOT NULL,
	charge_id   TEXT NOT NULL,    -- the charge's opaque id (billing.ChargeIDOf), never its key
	order_id    TEXT NOT NULL,
	applied     INTEGER NOT NULL,
	created     INTEGER NOT NULL,
	received_at INTEGER NOT NULL
) STRICT;
CREATE INDEX stripe_events_age ON stripe_events (received_at);
