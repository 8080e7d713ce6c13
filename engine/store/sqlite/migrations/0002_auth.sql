-- Accounts, sessions, one-time links and bounded counters (engine/auth).
--
-- An account's normalised email is UNIQUE: of two sign-ups with one address,
-- however close together, one inserts the row and the other fails.
CREATE TABLE users (
	id             TEXT PRIMARY KEY,
	email          TEXT NOT NULL UNIQUE,
	password_hash  TEXT NOT NULL,
	created_at     INTEGER NOT NULL, -- Unix nanoseconds
	disabled       INTEGER NOT NULL DEFAULT 0,
	session_epoch  INTEGER NOT NULL DEFAULT 0
) STRICT;

-- A session is read by the hash of its token (the primary key) on every
-- signed-in request; the desk lists an account's sessions newest first and
-- the sweep ranges on expiry.
CREATE TABLE sessions (
	id          TEXT PRIMARY KEY, -- SHA-256 of the cookie token
	user_id     TEXT NOT NULL,
	created_at  INTEGER NOT NULL,
	expires_at  INTEGER NOT NULL,
	epoch       INTEGER NOT NULL
) STRICT;
CREATE INDEX sessions_by_user ON sessions (user_id, created_at);
CREATE INDEX sessions_by_expiry ON sessions (expires_at);

-- Sign-in links, password resets and activation keys, by the hash of their
-- token; erasure deletes an owner's (an account's or a subscription's).
CREATE TABLE auth_links (
	id          TEXT PRIMARY KEY, -- SHA-256 of the link's token
	kind        TEXT NOT NULL,
	owner       TEXT NOT NULL,
	expires_at  INTEGER NOT NULL,
	epoch       INTEGER NOT NULL,
	email       TEXT NOT NULL
) STRICT;
CREATE INDEX auth_links_by_owner ON auth_links (owner, kind);
CREATE INDEX auth_links_by_expiry ON auth_links (expires_at);

-- Bounded counters of a window (sign-in failures, requests, mails once): a
-- key names its window, and a count never passes the limit its taker gives.
CREATE TABLE auth_counters (
	key         TEXT PRIMARY KEY,
	count       INTEGER NOT NULL,
	expires_at  INTEGER NOT NULL
) STRICT;
CREATE INDEX auth_counters_by_expiry ON auth_counters (expires_at);
