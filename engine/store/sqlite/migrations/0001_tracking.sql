-- Usage events (engine/tracking). A row is an event: its queries filter on the
-- person and sort by time (OfUser, erasure) or range on expiry (the sweep).
CREATE TABLE events (
	id          TEXT PRIMARY KEY,
	user_id     TEXT,
	name        TEXT NOT NULL,
	at          INTEGER NOT NULL, -- Unix nanoseconds
	expires_at  INTEGER NOT NULL,
	doc         TEXT NOT NULL     -- the rest of the event, JSON
) STRICT;
CREATE INDEX events_by_user ON events (user_id, at) WHERE user_id IS NOT NULL;
CREATE INDEX events_by_expiry ON events (expires_at);
CREATE INDEX events_by_name ON events (name, at);
