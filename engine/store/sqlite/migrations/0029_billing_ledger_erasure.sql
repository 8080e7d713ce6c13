-- What an erasure keeps of a charge (engine/billing: Ledger.Erase): the
-- charge stays, its key rewritten so it names nobody, until the tax period
-- ends; the purge finds the charges whose period ended by the partial
-- index, a few at a time.
ALTER TABLE charges ADD COLUMN erased INTEGER NOT NULL DEFAULT 0;
ALTER TABLE charges ADD COLUMN retain_until INTEGER;  -- Unix nanoseconds, set by an erasure
CREATE INDEX charges_retained ON charges (retain_until) WHERE erased = 1;

-- A receipt names its charge by the charge's opaque id, which names nobody
-- (the key could name the account).
ALTER TABLE receipts RENAME COLUMN charge_key TO charge_id;
