-- The breach catalogue and each person's last check (engine/breach). The
-- catalogue is HIBP's list of breaches (about 900), read by name; a sync
-- replaces it in one transaction. A check is read by its person, and a
-- lookup is begun by a conditional upsert on lookup_at, so that of a
-- person's lookups sent together one reaches the provider.
CREATE TABLE breach_catalogue (
	name    TEXT PRIMARY KEY,
	sample  INTEGER NOT NULL, -- 1: from the local sample dataset
	doc     TEXT NOT NULL     -- the breach, JSON
) STRICT;

CREATE TABLE breach_checks (
	user_id     TEXT PRIMARY KEY,
	email_hash  TEXT NOT NULL DEFAULT '',
	names       TEXT NOT NULL DEFAULT '[]', -- JSON array of breach names
	checked_at  INTEGER NOT NULL DEFAULT 0, -- Unix nanoseconds; 0: no result yet
	sample      INTEGER NOT NULL DEFAULT 0,
	lookup_at   INTEGER NOT NULL DEFAULT 0  -- Unix nanoseconds; 0: no lookup pending
) STRICT;
