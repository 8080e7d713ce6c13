package mongostore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"glimpse/engine/breach"
)

// breachCatalogueCollection holds HIBP's breach catalogue by name (_id); a
// sync deletes the other source's entries by their sample mark.
var breachCatalogueCollection = collection{name: "breach_catalogue", indexes: []index{
	{name: "by_source", keys: bson.D{{Key: "sample", Value: 1}}},
}}

// breachChecksCollection holds each person's last check by user id (_id).
var breachChecksCollection = collection{name: "breach_checks"}

type breachDoc struct {
	Name         string    `bson:"_id"`
	Sample       bool      `bson:"sample"`
	Title        string    `bson:"title"`
	Domain       string    `bson:"domain"`
	BreachDate   string    `bson:"breachDate"`
	AddedDate    time.Time `bson:"addedDate"`
	PwnCount     int64     `bson:"pwnCount"`
	Description  string    `bson:"description"`
	DataClasses  []string  `bson:"dataClasses"`
	LogoPath     string    `bson:"logoPath"`
	IsVerified   bool      `bson:"isVerified"`
	IsFabricated bool      `bson:"isFabricated"`
	IsSensitive  bool      `bson:"isSensitive"`
	IsRetired    bool      `bson:"isRetired"`
	IsSpamList   bool      `bson:"isSpamList"`
	IsMalware    bool      `bson:"isMalware"`
}

type breachCheckDoc struct {
	UserID    string    `bson:"_id"`
	EmailHash string    `bson:"emailHash"`
	Names     []string  `bson:"names"`
	CheckedAt time.Time `bson:"checkedAt"`
	Sample    bool      `bson:"sample"`
	// LookupAt is always present (the zero time for none), so that the
	// conditional upsert's range filter matches a document with no lookup.
	LookupAt time.Time `bson:"lookupAt"`
}

// BreachRecords stores the breach catalogue and checks in MongoDB.
type BreachRecords struct {
	catalogue, checks *mongo.Collection
	// betweenWrites runs between SyncCatalogue's upserts and its deletion
	// of the other source's entries; the crash test stops it there.
	betweenWrites func() error
}

// NewBreachRecords returns the breach service's storage on db.
func NewBreachRecords(db *mongo.Database) *BreachRecords {
	return &BreachRecords{catalogue: db.Collection(breachCatalogueCollection.name), checks: db.Collection(breachChecksCollection.name),
		betweenWrites: func() error { return nil }}
}

var _ breach.Records = (*BreachRecords)(nil)

// SyncCatalogue upserts every breach by name, then deletes the other
// source's entries: two steps, each of which a retried sync repeats to the
// same end.
func (s *BreachRecords) SyncCatalogue(ctx context.Context, breaches []breach.Breach, sample bool) error {
	models := make([]mongo.WriteModel, 0, len(breaches))
	for _, b := range breaches {
		d := breachDoc{Name: b.Name, Sample: sample, Title: b.Title, Domain: b.Domain, BreachDate: b.BreachDate,
			AddedDate: b.AddedDate, PwnCount: b.PwnCount, Description: b.Description, DataClasses: b.DataClasses,
			LogoPath: b.LogoPath, IsVerified: b.IsVerified, IsFabricated: b.IsFabricated, IsSensitive: b.IsSensitive,
			IsRetired: b.IsRetired, IsSpamList: b.IsSpamList, IsMalware: b.IsMalware}
		models = append(models, mongo.NewReplaceOneModel().SetFilter(bson.D{{Key: "_id", Value: b.Name}}).
			SetReplacement(d).SetUpsert(true))
	}
	if len(models) > 0 {
		if _, err := s.catalogue.BulkWrite(ctx, models, options.BulkWrite().SetOrdered(false)); err != nil {
			return fmt.Errorf("store breaches: %w", err)
		}
	}
	if err := s.betweenWrites(); err != nil {
		return err
	}
	if _, err := s.catalogue.DeleteMany(ctx, bson.D{{Key: "sample", Value: !sample}}); err != nil {
		return fmt.Errorf("remove the other source's breaches: %w", err)
	}
	return nil
}

// Catalogued returns the stored entries with these names.
func (s *BreachRecords) Catalogued(ctx context.Context, names []string) (map[string]breach.Breach, error) {
	cur, err := s.catalogue.Find(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: names}}}})
	if err != nil {
		return nil, fmt.Errorf("breach catalogue: %w", err)
	}
	var docs []breachDoc
	if err := cur.All(ctx, &docs); err != nil {
		return nil, fmt.Errorf("breach catalogue: %w", err)
	}
	out := make(map[string]breach.Breach, len(docs))
	for _, d := range docs {
		out[d.Name] = breach.Breach{Name: d.Name, Title: d.Title, Domain: d.Domain, BreachDate: d.BreachDate,
			AddedDate: utcOrZero(d.AddedDate), PwnCount: d.PwnCount, Description: d.Description, DataClasses: d.DataClasses,
			LogoPath: d.LogoPath, IsVerified: d.IsVerified, IsFabricated: d.IsFabricated, IsSensitive: d.IsSensitive,
			IsRetired: d.IsRetired, IsSpamList: d.IsSpamList, IsMalware: d.IsMalware}
	}
	return out, nil
}

// Check returns the person's stored check.
func (s *BreachRecords) Check(ctx context.Context, userID string) (breach.Check, bool, error) {
	var d breachCheckDoc
	err := s.checks.FindOne(ctx, bson.D{{Key: "_id", Value: userID}}).Decode(&d)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return breach.Check{}, false, nil
	}
	if err != nil {
		return breach.Check{}, false, fmt.Errorf("breach check: %w", err)
	}
	return breach.Check{UserID: d.UserID, EmailHash: d.EmailHash, Names: d.Names, CheckedAt: utcOrZero(d.CheckedAt),
		Sample: d.Sample, LookupAt: utcOrZero(d.LookupAt)}, true, nil
}

// BeginLookup sets lookupAt to now with an upsert filtered on lookupAt ≤
// since, atomic on MongoDB: a person whose lookup began later matches
// nothing, so the upsert tries to insert their _id again and fails with a
// duplicate key, which is the answer "not begun".
func (s *BreachRecords) BeginLookup(ctx context.Context, userID string, now, since time.Time) (bool, error) {
	_, err := s.checks.UpdateOne(ctx,
		bson.D{{Key: "_id", Value: userID}, {Key: "lookupAt", Value: bson.D{{Key: "$lte", Value: since}}}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "lookupAt", Value: now}}},
			{Key: "$setOnInsert", Value: bson.D{{Key: "checkedAt", Value: time.Time{}}, {Key: "names", Value: bson.A{}}}}},
		options.UpdateOne().SetUpsert(true))
	if mongo.IsDuplicateKeyError(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("begin breach lookup: %w", err)
	}
	return true, nil
}

// PutResult stores a lookup's result and clears lookupAt.
func (s *BreachRecords) PutResult(ctx context.Context, c breach.Check) error {
	names := c.Names
	if names == nil {
		names = []string{}
	}
	d := breachCheckDoc{UserID: c.UserID, EmailHash: c.EmailHash, Names: names, CheckedAt: c.CheckedAt, Sample: c.Sample}
	if _, err := s.checks.ReplaceOne(ctx, bson.D{{Key: "_id", Value: c.UserID}}, d, options.Replace().SetUpsert(true)); err != nil {
		return fmt.Errorf("store breach check of %s: %w", c.UserID, err)
	}
	return nil
}

// DeleteCheck deletes the person's check.
func (s *BreachRecords) DeleteCheck(ctx context.Context, userID string) error {
	if _, err := s.checks.DeleteOne(ctx, bson.D{{Key: "_id", Value: userID}}); err != nil {
		return fmt.Errorf("delete breach check of %s: %w", userID, err)
	}
	return nil
}

// utcOrZero is t in UTC, or the zero time for BSON's reading of it.
func utcOrZero(t time.Time) time.Time {
	if t.IsZero() {
		return time.Time{}
	}
	return t.UTC()
}
