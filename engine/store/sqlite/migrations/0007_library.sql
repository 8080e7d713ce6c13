-- The editors' content (engine/library). A row is an item; the studio lists a
-- kind's items by slug, and a write replaces the row only while it is at the
-- revision its writer read (UPDATE ... WHERE rev = ?). Revisions are a column
-- of their own so that a list does not read them.
CREATE TABLE content_docs (
	id         TEXT PRIMARY KEY, -- "<kind>:<slug>"
	kind       TEXT NOT NULL,
	slug       TEXT NOT NULL,
	rev        INTEGER NOT NULL,
	doc        TEXT NOT NULL,    -- the item without its revisions, JSON
	revisions  TEXT NOT NULL     -- its kept revisions, oldest first, JSON
) STRICT;
CREATE UNIQUE INDEX content_docs_by_kind ON content_docs (kind, slug);

-- The content version every instance polls: one row, bumped in the
-- transaction of each publish.
CREATE TABLE content_version (
	id  INTEGER PRIMARY KEY CHECK (id = 1),
	n   INTEGER NOT NULL
) STRICT;
