-- Scheduled publishing (engine/library/schedule.go): a row per publish an
-- editor set for a time. Every change of state is an UPDATE ... WHERE
-- state = the expected one, so of two instances claiming a due row, or an
-- editor cancelling as an instance claims, exactly one changes it.
CREATE TABLE content_schedules (
	id         TEXT PRIMARY KEY,
	kind       TEXT NOT NULL,
	slug       TEXT NOT NULL,
	at         INTEGER NOT NULL,   -- Unix nanoseconds: when to publish
	by_whom    TEXT NOT NULL,
	created_at INTEGER NOT NULL,
	state      TEXT NOT NULL,      -- scheduled, publishing, published, cancelled
	changed_at INTEGER NOT NULL,
	changed_by TEXT NOT NULL
) STRICT;
-- The runner and the studio read the schedules not yet done.
CREATE INDEX content_schedules_by_state ON content_schedules (state, at);
