-- The support desk's audit log (engine/support). Entries are added and never
-- changed: the triggers abort any UPDATE or DELETE, whoever sends it. An id
-- sorts as its entry's time, so the newest page walks the primary key
-- backwards and a subscriber's page their index.
CREATE TABLE support_audit (
	id          TEXT PRIMARY KEY, -- zero-padded Unix nanoseconds and a random tail
	subscriber  TEXT NOT NULL,    -- the subscriber's email, '' for none
	doc         TEXT NOT NULL     -- the rest of the entry, JSON
) STRICT;
CREATE INDEX support_audit_by_subscriber ON support_audit (subscriber, id);

CREATE TRIGGER support_audit_no_update BEFORE UPDATE ON support_audit
BEGIN
	SELECT RAISE(ABORT, 'the support audit log cannot be edited');
END;
CREATE TRIGGER support_audit_no_delete BEFORE DELETE ON support_audit
BEGIN
	SELECT RAISE(ABORT, 'the support audit log cannot be edited');
END;
