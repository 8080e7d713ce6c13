package privacy

import (
	"context"
	"time"
)

// The tables (SQLite) and collections (MongoDB) of privacy's stores, named
// alike on both engines (Fates).
const (
	// ExportsCollection holds one row per data export requested.
	ExportsCollection = "privacy_exports"
	// ExportChunksCollection holds a built export's ZIP in parts, each well
	// under a MongoDB document's size limit.
	ExportChunksCollection = "privacy_export_chunks"
	// ExportKeysCollection holds the download keys of exports by the
	// SHA-256 of the key, so the database never holds a usable link.
	ExportKeysCollection = "privacy_export_keys"
	// ErasuresCollection is the erasure ledger: the ids of deleted accounts
	// and when, nothing else, to apply again after restoring a backup.
	ErasuresCollection = "privacy_erasures"
	// PendingErasuresCollection holds the erasures begun and not yet
	// finished, each deleted when its erasure ends; the sweep finishes
	// those a failure or a crash left (ResumeErasures).
	PendingErasuresCollection = "privacy_erasures_pending"
	// FarewellsCollection holds the keys of deleted accounts' last mails
	// until each is sent and deleted (a week at most).
	FarewellsCollection = "privacy_farewells"
	// InstagramDeletionsCollection holds Meta's data-deletion requests by
	// confirmation code, one per Instagram user: a status and times, no
	// user ids.
	InstagramDeletionsCollection = "instagram_deletion_requests"
	// ActivityCollection holds when each account was last used (at most
	// one write a day), for the retention job.
	ActivityCollection = "account_activity"
)

// Stores are privacy's storage, one interface per kind of record.
type Stores struct {
	Exports            Exports
	Erasures           Erasures
	Activity           Activity
	InstagramDeletions InstagramDeletions
}

// ExportKey is a download key of an export, stored by its SHA-256 (Hash).
type ExportKey struct {
	Hash      string
	ExportID  string
	UserID    string
	ExpiresAt time.Time
}

// Exports stores data exports, their files and download keys.
type Exports interface {
	// Request stores e, a person's request made in e.Window; false when the
	// person already has an export requested in that window (a unique key
	// on user and window: of requests sent together, one is stored).
	Request(ctx context.Context, e Export) (bool, error)
	// Get returns an export by id; found is false when there is none.
	Get(ctx context.Context, id string) (e Export, found bool, err error)
	// Latest returns the person's newest export (by RequestedAt) that
	// expires after now.
	Latest(ctx context.Context, userID string, now time.Time) (Export, bool, error)
	// ClaimQueued leases up to n queued exports whose lease has lapsed at
	// now to owner until leaseUntil (a conditional update: one builder
	// wins each), and returns them.
	ClaimQueued(ctx context.Context, owner string, now, leaseUntil time.Time, n int) ([]Export, error)
	// Finish stores the built export's parts and marks it ready at
	// readyAt, if it is still queued; false (and no part kept) when it was
	// deleted or is no longer queued.
	Finish(ctx context.Context, id string, readyAt time.Time, parts [][]byte) (bool, error)
	// Fail marks a queued export failed.
	Fail(ctx context.Context, id string) error
	// Parts returns a ready export's parts in order.
	Parts(ctx context.Context, id string) ([][]byte, error)
	// InsertKey stores a download key.
	InsertKey(ctx context.Context, k ExportKey) error
	// Key returns the download key of that hash.
	Key(ctx context.Context, hash string) (ExportKey, bool, error)
	// DeleteUser deletes the person's exports with their parts and keys.
	DeleteUser(ctx context.Context, userID string) error
	// DeleteExpired deletes the exports (with their parts and keys) and
	// the keys whose expiry is at or before now.
	DeleteExpired(ctx context.Context, now time.Time) error
}

// PendingErasure is an erasure begun and not yet finished: what finishing
// it needs once the account itself may be gone.
type PendingErasure struct {
	UserID string
	Email  string
	Why    string
	At     time.Time
	// Farewell is the key of the last mail: random, because the mail
	// outlives the account for a while and its key should not name it,
	// and kept here so that a finished rerun queues the same mail once.
	Farewell string
}

// Erasure is one line of the erasure ledger.
type Erasure struct {
	UserID string
	At     time.Time
	Why    string
}

// Farewell is a deleted account's last mail, to delete once sent.
type Farewell struct {
	Key string
	At  time.Time
}

// Erasures stores the erasures under way, the ledger of those done and
// the last mails to delete once sent.
type Erasures interface {
	// Begin records p, or reads the erasure of p.UserID begun before, and
	// leases it to owner until leaseUntil when it is not leased at now:
	// won is false when another holds it. Of Begins sent together, one
	// wins.
	Begin(ctx context.Context, p PendingErasure, owner string, now, leaseUntil time.Time) (stored PendingErasure, won bool, err error)
	// Pending returns every erasure begun and not finished.
	Pending(ctx context.Context) ([]PendingErasure, error)
	// Finish ends the erasure: the ledger line and the farewell are
	// stored (once, whatever the reruns) and the pending erasure deleted.
	Finish(ctx context.Context, e Erasure, f Farewell) error
	// Erased returns the ledger line of an account.
	Erased(ctx context.Context, userID string) (Erasure, bool, error)
	// Farewells returns the last mails still remembered.
	Farewells(ctx context.Context) ([]Farewell, error)
	// Forget forgets a last mail.
	Forget(ctx context.Context, key string) error
}

// LastUse is when an account was last used. WarnedAt is set once the
// warning mail before deletion has gone, and cleared by the next use.
type LastUse struct {
	UserID       string
	LastActiveAt time.Time
	WarnedAt     time.Time
}

// Activity stores when each account was last used.
type Activity interface {
	// Touch records a use at at: the last use becomes the later of the
	// stored one and at, and a warning sent is cleared.
	Touch(ctx context.Context, userID string, at time.Time) error
	// InsertMany records first uses, leaving accounts already recorded
	// as they are (seed-scale).
	InsertMany(ctx context.Context, uses []LastUse) error
	// Idle returns up to n accounts last used at or before before, oldest
	// use first, after the account after (the previous page's last, zero
	// for the first page).
	Idle(ctx context.Context, before time.Time, after LastUse, n int) ([]LastUse, error)
	// Warn records the warning sent at at, if none was since the use
	// lastActiveAt: false when one was, or the account was used since.
	Warn(ctx context.Context, userID string, lastActiveAt, at time.Time) (bool, error)
	// Get returns an account's last use.
	Get(ctx context.Context, userID string) (LastUse, bool, error)
	// Delete forgets an account's use.
	Delete(ctx context.Context, userID string) error
}

// InstagramDeletions stores Meta's data-deletion requests.
type InstagramDeletions interface {
	// Record stores r unless a request with its code exists: false then
	// (of Records sent together, one stores).
	Record(ctx context.Context, r DeletionRequest) (bool, error)
	// Complete marks the request completed at at.
	Complete(ctx context.Context, code string, at time.Time) error
	// Get returns the request of that code.
	Get(ctx context.Context, code string) (DeletionRequest, bool, error)
	// DeleteExpired deletes the requests that expired before now.
	DeleteExpired(ctx context.Context, now time.Time) error
}
