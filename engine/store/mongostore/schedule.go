package mongostore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"glimpse/engine/library"
)

// contentSchedulesCollection holds scheduled publishes; the runner and the
// studio read those not yet done by state.
var contentSchedulesCollection = collection{name: "content_schedules", indexes: []index{
	{name: "by_state", keys: bson.D{{Key: "state", Value: 1}, {Key: "at", Value: 1}}},
}}

type scheduleDoc struct {
	ID        string    `bson:"_id"`
	Kind      string    `bson:"kind"`
	Slug      string    `bson:"slug"`
	At        time.Time `bson:"at"`
	By        string    `bson:"by"`
	CreatedAt time.Time `bson:"createdAt"`
	State     string    `bson:"state"`
	ChangedAt time.Time `bson:"changedAt"`
	ChangedBy string    `bson:"changedBy"`
}

func (d scheduleDoc) schedule() library.Schedule {
	return library.Schedule{ID: d.ID, Kind: d.Kind, Slug: d.Slug, At: d.At.UTC(), By: d.By, CreatedAt: d.CreatedAt.UTC(),
		State: d.State, ChangedAt: d.ChangedAt.UTC(), ChangedBy: d.ChangedBy}
}

// ContentSchedules stores scheduled publishes in MongoDB.
type ContentSchedules struct{ c *mongo.Collection }

// NewContentSchedules returns scheduled publishing's storage on db.
func NewContentSchedules(db *mongo.Database) *ContentSchedules {
	return &ContentSchedules{c: db.Collection(contentSchedulesCollection.name)}
}

var _ library.Schedules = (*ContentSchedules)(nil)

// Add stores a new schedule, or returns library.ErrScheduleExists.
func (s *ContentSchedules) Add(ctx context.Context, sc library.Schedule) error {
	_, err := s.c.InsertOne(ctx, scheduleDoc(sc))
	if mongo.IsDuplicateKeyError(err) {
		return library.ErrScheduleExists
	}
	if err != nil {
		return fmt.Errorf("add schedule %s: %w", sc.ID, err)
	}
	return nil
}

// Get returns the schedule with the id, or library.ErrNoSchedule.
func (s *ContentSchedules) Get(ctx context.Context, id string) (library.Schedule, error) {
	var d scheduleDoc
	err := s.c.FindOne(ctx, bson.D{{Key: "_id", Value: id}}).Decode(&d)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return library.Schedule{}, library.ErrNoSchedule
	}
	if err != nil {
		return library.Schedule{}, fmt.Errorf("schedule %s: %w", id, err)
	}
	return d.schedule(), nil
}

// Pending returns the schedules scheduled or publishing.
func (s *ContentSchedules) Pending(ctx context.Context) ([]library.Schedule, error) {
	cur, err := s.c.Find(ctx, bson.D{{Key: "state", Value: bson.D{{Key: "$in",
		Value: bson.A{library.ScheduleScheduled, library.SchedulePublishing}}}}})
	if err != nil {
		return nil, fmt.Errorf("pending schedules: %w", err)
	}
	var docs []scheduleDoc
	if err := cur.All(ctx, &docs); err != nil {
		return nil, fmt.Errorf("pending schedules: %w", err)
	}
	out := make([]library.Schedule, len(docs))
	for i, d := range docs {
		out[i] = d.schedule()
	}
	return out, nil
}

// move is one conditional change of state: updateOne filtered on the
// expected state, so of writers racing on a schedule exactly one matches.
func (s *ContentSchedules) move(ctx context.Context, what string, filter bson.D, set bson.D) (bool, error) {
	res, err := s.c.UpdateOne(ctx, filter, bson.D{{Key: "$set", Value: set}})
	if err != nil {
		return false, fmt.Errorf("%s: %w", what, err)
	}
	return res.ModifiedCount == 1, nil
}

// Claim moves a due scheduled (or a stale publishing) schedule to
// publishing: two updateOnes, each filtered on the state it expects (the
// due one first), so of claimers racing exactly one matches.
func (s *ContentSchedules) Claim(ctx context.Context, id string, now, stale time.Time) (bool, error) {
	set := bson.D{{Key: "state", Value: library.SchedulePublishing}, {Key: "changedAt", Value: now}}
	ok, err := s.move(ctx, "claim schedule "+id, bson.D{{Key: "_id", Value: id}, {Key: "state", Value: library.ScheduleScheduled},
		{Key: "at", Value: bson.D{{Key: "$lte", Value: now}}}}, set)
	if ok || err != nil {
		return ok, err
	}
	return s.move(ctx, "reclaim schedule "+id, bson.D{{Key: "_id", Value: id}, {Key: "state", Value: library.SchedulePublishing},
		{Key: "changedAt", Value: bson.D{{Key: "$lt", Value: stale}}}}, set)
}

// Finish moves a schedule still claimed at claimedAt to published.
func (s *ContentSchedules) Finish(ctx context.Context, id string, claimedAt, now time.Time) (bool, error) {
	return s.move(ctx, "finish schedule "+id, bson.D{{Key: "_id", Value: id}, {Key: "state", Value: library.SchedulePublishing},
		{Key: "changedAt", Value: claimedAt}}, bson.D{{Key: "state", Value: library.SchedulePublished}, {Key: "changedAt", Value: now}})
}

// Cancel moves a scheduled schedule to cancelled; a claimed one stays.
func (s *ContentSchedules) Cancel(ctx context.Context, id, by string, now time.Time) (bool, error) {
	return s.move(ctx, "cancel schedule "+id, bson.D{{Key: "_id", Value: id}, {Key: "state", Value: library.ScheduleScheduled}},
		bson.D{{Key: "state", Value: library.ScheduleCancelled}, {Key: "changedAt", Value: now}, {Key: "changedBy", Value: by}})
}
