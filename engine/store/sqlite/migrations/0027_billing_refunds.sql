-- Billing's refunds (engine/billing: Refunds), numbered per charge from 0.
-- A claim counts, sums and inserts in one transaction: one refund per
-- number and per request key, never more than the charge.
CREATE TABLE refunds (
	charge_id       TEXT NOT NULL,
	seq             INTEGER NOT NULL,
	key             TEXT,             -- the request's key; NULL when none
	status          TEXT NOT NULL,
	amount          INTEGER NOT NULL, -- minor units, what the claim sums
	created_at      INTEGER NOT NULL, -- Unix nanoseconds
	subscription_id TEXT,
	erased          INTEGER NOT NULL DEFAULT 0,
	retain_until    INTEGER,
	doc             TEXT NOT NULL,    -- the rest of the refund, JSON
	PRIMARY KEY (charge_id, seq)
) STRICT;
CREATE UNIQUE INDEX refunds_key ON refunds (charge_id, key) WHERE key IS NOT NULL;
CREATE INDEX refunds_pending ON refunds (created_at) WHERE status = 'pending';
