-- The deployment's own named values (engine/settings): the generated secret,
-- the scale seed's mark.
CREATE TABLE settings (
	name  TEXT PRIMARY KEY,
	value TEXT NOT NULL
) STRICT;
