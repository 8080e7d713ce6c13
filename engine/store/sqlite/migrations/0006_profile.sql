-- Connected profiles (engine/profile). A profile row is found by its user;
-- the refresh job finds the due ones by next_refresh (NULL: never) and
-- leases each with a conditional update on lease_until (0: not leased).
CREATE TABLE profiles (
	user_id      TEXT PRIMARY KEY,
	status       TEXT NOT NULL,
	next_refresh INTEGER,                 -- Unix nanoseconds
	lease_until  INTEGER NOT NULL DEFAULT 0,
	doc          TEXT NOT NULL            -- the rest of the profile, JSON
) STRICT;
CREATE INDEX profiles_by_next_refresh ON profiles (next_refresh);

-- A snapshot is one row, its follower and following lists in doc: SQLite
-- has no document size limit to cut them under. Erasure finds a user's by
-- user_id.
CREATE TABLE profile_snapshots (
	id        TEXT PRIMARY KEY,
	user_id   TEXT NOT NULL,
	taken_at  INTEGER NOT NULL,
	doc       TEXT NOT NULL
) STRICT;
CREATE INDEX profile_snapshots_by_user ON profile_snapshots (user_id);

-- Which subscriber connected an Instagram account: the primary key makes it
-- one subscriber at a time.
CREATE TABLE instagram_links (
	instagram_id TEXT PRIMARY KEY,
	user_id      TEXT NOT NULL
) STRICT;
CREATE INDEX instagram_links_by_user ON instagram_links (user_id);
