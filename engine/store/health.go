package store

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"glimpse/engine"
)

// HealthCollection holds one small document (embedded: one row of the
// health table) per instance, rewritten by CheckWritable. It never holds
// more than there are instances, so reading it whole costs nothing.
const HealthCollection = "health"

// CheckWritable reports whether the database takes writes, for a readiness
// probe: a ping answers even when every write fails (a full disk, a
// read-only file system, a replica set without a primary, a locked SQLite
// file), and an instance that cannot write cannot sign anyone in. It
// rewrites this instance's row or document with a fresh value, so the
// database must really write; the id is per instance so that instances never
// write the same one (docs/store.md).
func (s *Store) CheckWritable(ctx context.Context) error {
	if s.sql != nil {
		if err := s.sql.CheckWritable(ctx, s.instance, engine.NewToken()); err != nil {
			return fmt.Errorf("store: %w", err)
		}
		return nil
	}
	id := "writable:" + s.instance
	_, err := s.db.Collection(HealthCollection).ReplaceOne(ctx, bson.M{"_id": id},
		bson.M{"_id": id, "nonce": engine.NewToken()}, options.Replace().SetUpsert(true))
	if err != nil {
		return fmt.Errorf("store: write check: %w", err)
	}
	return nil
}
