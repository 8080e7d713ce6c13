-- The browser and system a session was opened in, as a short label
-- ("Chrome on Android", auth.DeviceOf): the support desk's sign-ins say
-- which device, never the user agent itself or the address it came from.
ALTER TABLE sessions ADD COLUMN device TEXT NOT NULL DEFAULT '';
