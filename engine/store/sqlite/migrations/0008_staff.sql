-- Staff accounts and their sessions (engine/staff). A member is found by its
-- email, a session by its token's hash; a reset or removal deletes the
-- member's sessions by email, and the sweep deletes them by expiry.
CREATE TABLE staff (
	email          TEXT PRIMARY KEY, -- normalised
	role           TEXT NOT NULL,
	password_hash  TEXT NOT NULL,
	created_at     INTEGER NOT NULL  -- Unix nanoseconds
) STRICT;

CREATE TABLE staff_sessions (
	id          TEXT PRIMARY KEY,    -- the hash of the session's token
	email       TEXT NOT NULL,
	credential  TEXT NOT NULL,       -- the hash of the password hash it was opened with
	expires_at  INTEGER NOT NULL     -- Unix nanoseconds
) STRICT;
CREATE INDEX staff_sessions_by_email ON staff_sessions (email);
CREATE INDEX staff_sessions_by_expiry ON staff_sessions (expires_at);
