-- Data exports (engine/privacy). One export per person and request window:
-- the unique key is the rule "one request per window". The builders lease
-- queued exports by a conditional update on lease_until (0: not leased).
CREATE TABLE privacy_exports (
	id             TEXT PRIMARY KEY,
	user_id        TEXT NOT NULL,
	request_window TEXT NOT NULL,
	status         TEXT NOT NULL,
	requested_at   INTEGER NOT NULL,   -- Unix nanoseconds
	expires_at     INTEGER NOT NULL,
	lease_until    INTEGER NOT NULL DEFAULT 0,
	doc            TEXT NOT NULL       -- brand, readyAt, size, chunks: JSON
) STRICT;
CREATE UNIQUE INDEX privacy_exports_one_per_window ON privacy_exports (user_id, request_window);
CREATE INDEX privacy_exports_by_user ON privacy_exports (user_id, requested_at);
CREATE INDEX privacy_exports_queued ON privacy_exports (status, lease_until);
CREATE INDEX privacy_exports_by_expiry ON privacy_exports (expires_at);

-- A built export's ZIP in parts (n from 0), written with the export's
-- change to ready in one transaction.
CREATE TABLE privacy_export_chunks (
	export_id TEXT NOT NULL,
	n         INTEGER NOT NULL,
	data      BLOB NOT NULL,
	PRIMARY KEY (export_id, n)
) STRICT;

-- Download keys by the SHA-256 of the key.
CREATE TABLE privacy_export_keys (
	hash       TEXT PRIMARY KEY,
	export_id  TEXT NOT NULL,
	user_id    TEXT NOT NULL,
	expires_at INTEGER NOT NULL
) STRICT;
CREATE INDEX privacy_export_keys_by_export ON privacy_export_keys (export_id);
CREATE INDEX privacy_export_keys_by_user ON privacy_export_keys (user_id);
CREATE INDEX privacy_export_keys_by_expiry ON privacy_export_keys (expires_at);

-- The erasure ledger: the ids of deleted accounts, when and why.
CREATE TABLE privacy_erasures (
	user_id TEXT PRIMARY KEY,
	at      INTEGER NOT NULL,
	why     TEXT NOT NULL
) STRICT;

-- Erasures begun and not finished, each leased by a conditional update on
-- lease_until to the request or sweep running it.
CREATE TABLE privacy_erasures_pending (
	user_id     TEXT PRIMARY KEY,
	email       TEXT NOT NULL,
	why         TEXT NOT NULL,
	at          INTEGER NOT NULL,
	farewell    TEXT NOT NULL,
	lease_owner TEXT NOT NULL,
	lease_until INTEGER NOT NULL
) STRICT;

-- The keys of deleted accounts' last mails, until each is sent and deleted.
CREATE TABLE privacy_farewells (
	key TEXT PRIMARY KEY,
	at  INTEGER NOT NULL
) STRICT;

-- When each account was last used; warned_at (NULL: not warned) is set by
-- a conditional update, once per use.
CREATE TABLE account_activity (
	user_id        TEXT PRIMARY KEY,
	last_active_at INTEGER NOT NULL,
	warned_at      INTEGER
) STRICT;
CREATE INDEX account_activity_by_use ON account_activity (last_active_at, user_id);

-- Meta's data-deletion requests by confirmation code (one per Instagram
-- user: the code is a keyed hash of its id).
CREATE TABLE instagram_deletion_requests (
	code         TEXT PRIMARY KEY,
	status       TEXT NOT NULL,
	requested_at INTEGER NOT NULL,
	completed_at INTEGER NOT NULL,
	expires_at   INTEGER NOT NULL
) STRICT;
CREATE INDEX instagram_deletion_requests_by_expiry ON instagram_deletion_requests (expires_at);
