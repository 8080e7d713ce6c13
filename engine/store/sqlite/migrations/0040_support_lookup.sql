-- The support desk's lookup by a card's last four digits (engine/billing:
-- Subscriptions.WithCard). The card is in the subscription's JSON document,
-- so the index is on the expression the query names, with the address
-- after it: the desk's "newest few by address" is read in index order and
-- stops at its LIMIT, whatever the number of subscriptions sharing a card
-- ending (every sandbox card is 4242). The lookup by the start of an
-- address ranges over subscriptions_email (0020).
CREATE INDEX subscriptions_card ON subscriptions (json_extract(doc, '$.paymentMethod.last4'), email);
