package store

import "go.mongodb.org/mongo-driver/v2/mongo"

// IsDuplicateKey reports MongoDB's DuplicateKey error (11000): a unique
// insert that lost.
func IsDuplicateKey(err error) bool {
	return err != nil && mongo.IsDuplicateKeyError(err)
}
