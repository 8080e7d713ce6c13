-- A/B experiments on the unsubscribe flow (engine/experiment).
-- A save is an UPDATE … WHERE revision = <the one it was made from>, so of
-- two saves of one revision the second changes nothing and is refused.
-- running_key is the key of a running experiment (NULL otherwise): UNIQUE,
-- so one experiment runs on a key at a time.
CREATE TABLE experiments (
	id           TEXT PRIMARY KEY,
	created_at   INTEGER NOT NULL,
	revision     INTEGER NOT NULL,
	running_key  TEXT UNIQUE,
	doc          TEXT NOT NULL -- the rest of the experiment, JSON
) STRICT;
CREATE INDEX experiments_by_creation ON experiments (created_at DESC, id);

-- Each person's exposure and outcomes per experiment and phase, once each:
-- the primary key is the rule.
CREATE TABLE experiment_people (
	experiment_id  TEXT NOT NULL,
	phase          INTEGER NOT NULL,
	user_id        TEXT NOT NULL,
	event          TEXT NOT NULL,
	variant        TEXT NOT NULL,
	at             INTEGER NOT NULL,
	PRIMARY KEY (experiment_id, phase, user_id, event)
) STRICT;
CREATE INDEX experiment_people_by_user ON experiment_people (user_id);

-- The counters of each variant per phase and UTC day, added to by one
-- INSERT … ON CONFLICT DO UPDATE SET n = n + excluded.n each.
CREATE TABLE experiment_counts (
	experiment_id  TEXT NOT NULL,
	phase          INTEGER NOT NULL,
	day            TEXT NOT NULL, -- 2006-01-02
	variant        TEXT NOT NULL,
	attempts       INTEGER NOT NULL,
	exposures      INTEGER NOT NULL,
	saves          INTEGER NOT NULL,
	cancels        INTEGER NOT NULL,
	unsaved        INTEGER NOT NULL,
	PRIMARY KEY (experiment_id, phase, day, variant)
) STRICT;
