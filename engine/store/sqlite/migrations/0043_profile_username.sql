-- The support desk's lookup by the start of an Instagram username
-- (engine/profile: Profiles.WithUsernamePrefix). The username is in the
-- profile's JSON document, so the index is on the expression the query
-- names, as 0040 did for the card; the user's id after it makes the index
-- cover the lookup, which reads n entries of a range and no row.
-- Usernames are stored lower case (profile.NormaliseUsername), so the
-- range is case-insensitive without lower() in the index.
CREATE INDEX profiles_username ON profiles (json_extract(doc, '$.username'), user_id);
-- Profiles connected before usernames were stored lower case.
UPDATE profiles SET doc = json_set(doc, '$.username', lower(json_extract(doc, '$.username')))
	WHERE json_extract(doc, '$.username') <> lower(json_extract(doc, '$.username'));
