-- The country a session was opened from, an ISO 3166-1 alpha-2 code as
-- the proxy in front reported it (auth.CountryOf, GLIMPSE_COUNTRY_HEADER):
-- the support desk's sign-ins say "Chrome on Android · Germany". The IP
-- address is never kept. '' when unknown, or when no header is configured.
ALTER TABLE sessions ADD COLUMN country TEXT NOT NULL DEFAULT '';
