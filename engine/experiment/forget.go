package experiment

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// ForgetPerson deletes a subscriber's documents in PeopleCollection, each by
// _id: their exposure (exposureID) and outcomes (outcomeID, one per
// outcomeEvents) in every phase of every experiment that ran. Those ids name
// the experiment and the phase before the person, and a search on a part of
// the _id (a regex) reads every person's documents on the embedded store
// (docs/store.md §10); the experiments are few (staff define them), so their
// phases are enumerated instead. They are read from the database, not this
// instance's memory, which may not yet hold one another instance created.
//
// An experiment that never ran has exposed nobody (Expose is given running
// experiments' assignments, Record skips drafts), and phases are numbered
// from 1 to the experiment's current one.
func ForgetPerson(ctx context.Context, db *mongo.Database, userID string) error {
	ids, err := PersonDocIDs(ctx, db, userID)
	if err != nil {
		return err
	}
	people := db.Collection(PeopleCollection)
	for _, id := range ids {
		if _, err := people.DeleteOne(ctx, bson.M{"_id": id}); err != nil {
			return fmt.Errorf("forget %s in experiments: %w", userID, err)
		}
	}
	return nil
}

// PersonDocIDs are the _ids a subscriber's documents in PeopleCollection
// can have (ForgetPerson says why they are enumerated), each exposure
// before its outcomes: Record writes an outcome only while it finds the
// exposure, so deleting in this order adds none.
func PersonDocIDs(ctx context.Context, db *mongo.Database, userID string) ([]string, error) {
	cur, err := db.Collection(Collection).Find(ctx, bson.M{},
		options.Find().SetProjection(bson.M{"_id": 1, "phase": 1, "started": 1}))
	if err != nil {
		return nil, fmt.Errorf("experiments of %s: %w", userID, err)
	}
	var all []Experiment
	if err := cur.All(ctx, &all); err != nil {
		return nil, fmt.Errorf("experiments of %s: %w", userID, err)
	}
	var ids []string
	for _, e := range all {
		if !e.Started {
			continue
		}
		for phase := 1; phase <= e.Phase; phase++ {
			ids = append(ids, exposureID(e.ID, phase, userID))
			for _, event := range outcomeEvents {
				ids = append(ids, outcomeID(e.ID, phase, userID, event))
			}
		}
	}
	return ids, nil
}
