-- Retained revenue per variant (engine/experiment, docs/experiments.md §3):
-- each held save's revenue over the save window, in minor units, summed and
-- summed squared per counter row (added atomically like the other counts),
-- so the results have the mean and variance of revenue per exposed person.
ALTER TABLE experiment_counts ADD COLUMN revenue INTEGER NOT NULL DEFAULT 0;
ALTER TABLE experiment_counts ADD COLUMN revenue_sq INTEGER NOT NULL DEFAULT 0;
-- The largest revenue one save brought (kept with max(), also atomic): the
-- revenue intervals stay within what a person's revenue can be, as a rate's
-- stay within [0, 1].
ALTER TABLE experiment_counts ADD COLUMN revenue_max INTEGER NOT NULL DEFAULT 0;
-- A save's mark keeps its revenue, so a cancel within the window that takes
-- the save back takes back exactly that amount.
ALTER TABLE experiment_people ADD COLUMN revenue INTEGER NOT NULL DEFAULT 0;
