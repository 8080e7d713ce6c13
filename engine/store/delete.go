package store

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// deletesPerCommand bounds the deletes sent in one bulkWrite, for the reason
// billing's updatesPerCommand gives: FerretDB v1 holds a SQLite connection
// per statement of a command until the command ends, out of a pool of 100.
const deletesPerCommand = 16

// DeleteMatching deletes every document of coll that filter matches,
// however many, and returns how many it deleted: it reads their _ids (one
// find) and deletes each by _id, deletesPerCommand to a bulkWrite. A
// deleteMany would be one command, but FerretDB v1 deletes what it matched
// with one SQL statement naming every _id, which SQLite refuses above
// 32,766 variables: a sweep of the 66,000 sessions a large base had let
// expire failed with "too many SQL variables" at every run, so nothing
// expired was ever deleted again (measured). Sweeps use it.
func DeleteMatching(ctx context.Context, coll *mongo.Collection, filter any) (int64, error) {
	cur, err := coll.Find(ctx, filter, options.Find().SetProjection(bson.M{"_id": 1}))
	if err != nil {
		return 0, fmt.Errorf("find what to delete in %s: %w", coll.Name(), err)
	}
	var ids []struct {
		ID any `bson:"_id"`
	}
	if err := cur.All(ctx, &ids); err != nil {
		return 0, fmt.Errorf("find what to delete in %s: %w", coll.Name(), err)
	}
	var deleted int64
	for from := 0; from < len(ids); from += deletesPerCommand {
		batch := ids[from:min(from+deletesPerCommand, len(ids))]
		models := make([]mongo.WriteModel, len(batch))
		for i, d := range batch {
			models[i] = mongo.NewDeleteOneModel().SetFilter(bson.M{"_id": d.ID})
		}
		res, err := coll.BulkWrite(ctx, models, options.BulkWrite().SetOrdered(false))
		if res != nil {
			deleted += res.DeletedCount
		}
		if err != nil {
			return deleted, fmt.Errorf("delete from %s: %w", coll.Name(), err)
		}
	}
	return deleted, nil
}
