-- Billing's ledger (engine/billing: Ledger): charges by their opaque id,
-- one per idempotency key, and the provider's status events about them.
-- A charge's status is its newest event's: an event is applied by a
-- conditional update on (last_event_at, last_event_id), so events sent
-- together in any order end on the newest.
CREATE TABLE charges (
	id              TEXT PRIMARY KEY,        -- "ch_" + a hash of the key: names nobody
	key             TEXT NOT NULL UNIQUE,    -- the idempotency key
	subscription_id TEXT,
	reference       TEXT,                    -- the provider's id for the payment
	status          TEXT NOT NULL,
	last_event_at   INTEGER,                 -- Unix nanoseconds of the applied event; NULL before any
	last_event_id   TEXT,
	created_at      INTEGER NOT NULL,        -- Unix nanoseconds
	doc             TEXT NOT NULL            -- the rest of the charge, JSON
) STRICT;
CREATE INDEX charges_of ON charges (subscription_id, created_at);
CREATE INDEX charges_reference ON charges (reference, created_at, id) WHERE reference IS NOT NULL;
CREATE TABLE charge_events (
	id        TEXT PRIMARY KEY,  -- "<event id>|<charge id>" or "<event id>|ref:<reference>"
	charge_id TEXT,              -- NULL when the event named only the provider's reference
	reference TEXT,
	event_id  TEXT NOT NULL,
	status    TEXT NOT NULL,
	at        INTEGER NOT NULL   -- Unix nanoseconds
) STRICT;
CREATE INDEX charge_events_newest ON charge_events (charge_id, at, event_id);
CREATE INDEX charge_events_ref ON charge_events (reference, at, event_id) WHERE charge_id IS NULL;
