-- The support desk's search inside an address ("example.com", "smith";
-- engine/billing: Subscriptions.WithEmailContaining). A B-tree index answers
-- the start of an address (subscriptions_email, 0020), never its middle:
-- LIKE '%smith%' reads every row. FTS5's trigram tokenizer
-- (https://www.sqlite.org/fts5.html#the_trigram_tokenizer, SQLite 3.34+)
-- indexes every three characters of each address, so a part of three
-- characters or more is a phrase of trigrams the index finds, case-folded,
-- and LIMIT stops the read after n rows.
--
-- The table keeps the subscription's id beside the address and is keyed by
-- nothing of the subscriptions' own: subscriptions has a TEXT key, so its
-- rowid is not a column, and VACUUM may renumber it
-- (https://www.sqlite.org/lang_vacuum.html). A row is found again for a
-- delete by its address (a phrase the index answers) and id.
--
-- Erased subscriptions (their address is billing.ErasedEmail) are not in it:
-- the desk never lists them, and they would crowd out live matches for
-- "era" or "sed". secure-delete removes a deleted row's trigrams from the
-- index at once instead of leaving them until the next merge, so an erased
-- address leaves no trace of itself in the index
-- (https://www.sqlite.org/fts5.html#the_secure_delete_configuration_option).
CREATE VIRTUAL TABLE subscriptions_email_fts USING fts5(email, id UNINDEXED, tokenize = 'trigram');
INSERT INTO subscriptions_email_fts (subscriptions_email_fts, rank) VALUES ('secure-delete', 1);

CREATE TRIGGER subscriptions_email_fts_insert AFTER INSERT ON subscriptions WHEN NEW.erased = 0
BEGIN
	INSERT INTO subscriptions_email_fts (email, id) VALUES (NEW.email, NEW.id);
END;
CREATE TRIGGER subscriptions_email_fts_delete AFTER DELETE ON subscriptions WHEN OLD.erased = 0
BEGIN
	DELETE FROM subscriptions_email_fts
		WHERE subscriptions_email_fts MATCH '"' || replace(OLD.email, '"', '""') || '"' AND id = OLD.id;
END;
-- Every write of a subscription sets its email column; only a change of the
-- address or of its erasure touches the index.
CREATE TRIGGER subscriptions_email_fts_update AFTER UPDATE OF email, erased ON subscriptions
	WHEN OLD.email IS NOT NEW.email OR OLD.erased IS NOT NEW.erased
BEGIN
	DELETE FROM subscriptions_email_fts
		WHERE OLD.erased = 0 AND subscriptions_email_fts MATCH '"' || replace(OLD.email, '"', '""') || '"' AND id = OLD.id;
	INSERT INTO subscriptions_email_fts (email, id) SELECT NEW.email, NEW.id WHERE NEW.erased = 0;
END;

-- The subscriptions there already.
INSERT INTO subscriptions_email_fts (email, id) SELECT email, id FROM subscriptions WHERE erased = 0;
