-- One row per process, rewritten by the readiness check (DB.CheckWritable):
-- only a real write shows that writes go through.
CREATE TABLE health (
	instance TEXT PRIMARY KEY,
	nonce    TEXT NOT NULL
) STRICT;
