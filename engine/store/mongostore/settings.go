package mongostore

import (
	"context"
	"errors"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"glimpse/engine/settings"
)

// settingsCollection holds one document per name, its _id the name.
var settingsCollection = collection{name: "settings"}

type settingDoc struct {
	Name  string `bson:"_id"`
	Value string `bson:"value"`
}

// Settings stores the deployment's named values in MongoDB.
type Settings struct{ coll *mongo.Collection }

// NewSettings returns the settings' storage on db.
func NewSettings(db *mongo.Database) *Settings {
	return &Settings{coll: db.Collection(settingsCollection.name)}
}

var _ settings.Store = (*Settings)(nil)

// Get returns the value stored under name.
func (s *Settings) Get(ctx context.Context, name string) (string, bool, error) {
	var d settingDoc
	err := s.coll.FindOne(ctx, bson.D{{Key: "_id", Value: name}}).Decode(&d)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("setting %s: %w", name, err)
	}
	return d.Value, true, nil
}

// PutOnce inserts value under name; of inserts sent together one wins (the
// unique _id), and every writer then reads the winner's value.
func (s *Settings) PutOnce(ctx context.Context, name, value string) (string, error) {
	if _, err := s.coll.InsertOne(ctx, settingDoc{Name: name, Value: value}); err != nil && !mongo.IsDuplicateKeyError(err) {
		return "", fmt.Errorf("setting %s: %w", name, err)
	}
	v, ok, err := s.Get(ctx, name)
	if err == nil && !ok {
		err = fmt.Errorf("setting %s: not found after it was stored", name)
	}
	return v, err
}
