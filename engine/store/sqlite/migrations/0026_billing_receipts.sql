-- Billing's receipts (engine/billing: Receipts), one per successful charge.
-- The number is the primary key and derived from the charge's key, so of
-- two issuers of one charge's receipt one inserts and the other reads it.
CREATE TABLE receipts (
	number          TEXT PRIMARY KEY,
	charge_key      TEXT,             -- NULL once an erasure strips it
	subscription_id TEXT NOT NULL,
	email           TEXT NOT NULL,
	erased          INTEGER NOT NULL DEFAULT 0,
	retain_until    INTEGER,          -- Unix nanoseconds, set by an erasure
	doc             TEXT NOT NULL     -- the rest of the receipt, JSON
) STRICT;
CREATE INDEX receipts_of_charge ON receipts (charge_key) WHERE charge_key IS NOT NULL;
CREATE INDEX receipts_of_subscription ON receipts (subscription_id);
