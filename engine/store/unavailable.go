package store

import (
	"errors"

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
	return errors.As(err, &selection) || mongo.IsNetworkError(err) || mongo.IsTimeout(err)
}
