-- Cancel-flow attempts and what happened in them (engine/retention).
-- An attempt's open_key is its subscription while it has no outcome, and
-- NULL once it ends (or goes stale): the UNIQUE key makes one open attempt
-- per subscription, so opening the flow twice at once resumes one attempt
-- (SQLite's UNIQUE lets any number of rows hold NULL).
CREATE TABLE cancel_attempts (
	id               TEXT PRIMARY KEY,
	user_id          TEXT NOT NULL,
	subscription_id  TEXT NOT NULL,
	open_key         TEXT UNIQUE,
	started_at       INTEGER NOT NULL, -- Unix nanoseconds
	doc              TEXT NOT NULL     -- the rest of the attempt, JSON
) STRICT;
CREATE INDEX cancel_attempts_by_user ON cancel_attempts (user_id, started_at);

-- One row per event of an attempt; it carries the attempt's user so that a
-- person's events are read and erased by one indexed statement.
CREATE TABLE cancel_steps (
	id          TEXT PRIMARY KEY,
	attempt_id  TEXT NOT NULL,
	user_id     TEXT NOT NULL,
	at          INTEGER NOT NULL,
	doc         TEXT NOT NULL
) STRICT;
CREATE INDEX cancel_steps_by_attempt ON cancel_steps (attempt_id, at, id);
CREATE INDEX cancel_steps_by_user ON cancel_steps (user_id);
