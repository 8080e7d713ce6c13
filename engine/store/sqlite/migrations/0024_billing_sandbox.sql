-- The sandbox payment provider's own books (engine/billing: SandboxRecords):
-- its hosted pages, the charges it took and the refunds it made. A page is
-- paid once: its payment record's insert decides, in the transaction that
-- completes the page. A charge is kept under an id derived from its
-- idempotency key (never the key, which can name the account); the key
-- beside it is rewritten by an erasure.
CREATE TABLE sandbox_sessions (
	id         TEXT PRIMARY KEY,
	status     TEXT NOT NULL,
	expires_at INTEGER NOT NULL, -- Unix nanoseconds
	doc        TEXT NOT NULL     -- the page, JSON
) STRICT;
CREATE TABLE sandbox_charges (
	id        TEXT PRIMARY KEY,
	key       TEXT NOT NULL,     -- the idempotency key ('' for none); erased:… after an erasure
	reference TEXT NOT NULL,     -- the PaymentIntent id the ledger knows it by
	doc       TEXT NOT NULL      -- the rest of the charge, JSON
) STRICT;
CREATE INDEX sandbox_charges_key ON sandbox_charges (key);
CREATE INDEX sandbox_charges_reference ON sandbox_charges (reference);
CREATE TABLE sandbox_refunds (
	key       TEXT PRIMARY KEY,  -- the refund's idempotency key
	charge_id TEXT NOT NULL,     -- the ledger charge's id
	doc       TEXT NOT NULL      -- the refund, JSON
) STRICT;
