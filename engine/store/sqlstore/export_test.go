package sqlstore

import "glimpse/engine/store/sqlite"

// NewFailingBilling returns billing's storage on db whose nth statement in
// a write fails: a process stopped there (the crash tests).
func NewFailingBilling(db *sqlite.DB, n int) *Billing {
	return &Billing{db: db, failAt: &failAfter{n: n}}
}
