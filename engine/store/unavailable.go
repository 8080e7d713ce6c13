package store

import (
	"errors"
	"strings"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/topology"
)

// IsUnavailable reports whether err means the database could not be reached
// or did not answer in time (no server to select, a dropped connection, a
// timeout), as opposed to a refusal or a bug. Such a failure is temporary
// from a person's point of view: the server answers 503 and they try again.
func IsUnavailable(err error) bool {
	if err == nil {
		return false
	}
	var selection topology.ServerSelectionError
	return errors.As(err, &selection) || mongo.IsNetworkError(err) || mongo.IsTimeout(err) || isBusy(err)
}

// isBusy reports SQLite's SQLITE_BUSY: a write waited out the busy timeout
// (10 s) for the database's one write lock, which happens only when the
// machine is overloaded or a command attached beside the server holds the
// lock. The driver's error carries SQLite's text and code name, which is what
// is left to go by once it has been wrapped.
func isBusy(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "SQLITE_BUSY") || strings.Contains(msg, "database is locked")
}
