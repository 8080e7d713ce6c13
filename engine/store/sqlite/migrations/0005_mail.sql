-- The outbox (engine/mail). A row is a mail, by its idempotency key. The
-- delivery claims queued mails by when they are due (status, then next
-- attempt time); lookups by address (the support desk, the data export,
-- erasure) read a recipient's mails newest first; the development mailbox
-- reads the newest mails.
CREATE TABLE mails (
	id               TEXT PRIMARY KEY,
	recipient        TEXT,             -- the address as looked up; NULL for an unlisted mail
	status           TEXT NOT NULL,    -- queued, sent, failed
	attempts         INTEGER NOT NULL, -- attempts begun (each claim begins one)
	created_at       INTEGER NOT NULL, -- Unix nanoseconds
	next_attempt_at  INTEGER,          -- when a queued mail is next due (or its claim's lease ends)
	sent_at          INTEGER,
	last_error       TEXT NOT NULL,
	doc              TEXT NOT NULL     -- the rendered mail, JSON
) STRICT;
CREATE INDEX mails_due ON mails (status, next_attempt_at);
CREATE INDEX mails_by_recipient ON mails (recipient, created_at, id) WHERE recipient IS NOT NULL;
CREATE INDEX mails_by_creation ON mails (created_at, id);
