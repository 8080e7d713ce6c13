-- Billing's hosted-page orders (engine/billing: Orders). An order's outcome
-- is set once, by a conditional update (… WHERE outcome IS NULL), so of
-- events settling it together one decides. Orders still pending or
-- processing carry the time the reconciliation pass looks at them again
-- (check_at; NULL: nothing to ask the provider).
CREATE TABLE checkout_orders (
	id              TEXT PRIMARY KEY,
	email           TEXT NOT NULL,    -- normalised; erased with the address
	subscription_id TEXT NOT NULL,
	status          TEXT NOT NULL,
	outcome         TEXT,             -- NULL until claimed
	check_at        INTEGER,          -- Unix nanoseconds; NULL: no check
	session         TEXT NOT NULL DEFAULT '',
	url             TEXT NOT NULL DEFAULT '',
	created_at      INTEGER NOT NULL, -- Unix nanoseconds
	doc             TEXT NOT NULL     -- the rest of the order, JSON
) STRICT;
CREATE INDEX checkout_orders_email ON checkout_orders (email);
CREATE INDEX checkout_orders_subscription ON checkout_orders (subscription_id);
CREATE INDEX checkout_orders_unsettled ON checkout_orders (check_at) WHERE status IN ('pending', 'processing');
