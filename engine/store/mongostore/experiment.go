package mongostore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"glimpse/engine/experiment"
	"glimpse/engine/store"
)

// experimentsCollection holds the experiments staff define (a few).
// runningKey is a running experiment's key and the experiment's own
// "idle:<id>" otherwise: always present and unique, so one experiment runs
// on a key at a time without a partial index (which FerretDB lacks).
var experimentsCollection = collection{name: "experiments", indexes: []index{
	{name: "by_creation", keys: bson.D{{Key: "createdAt", Value: -1}, {Key: "_id", Value: 1}}},
	{name: "running_key", keys: bson.D{{Key: "runningKey", Value: 1}}, unique: true},
}}

// experimentPeopleCollection holds each person's marks; the _id
// (experiment, phase, user, event) makes each one once.
var experimentPeopleCollection = collection{name: "experiment_people", indexes: []index{
	{name: "by_user", keys: bson.D{{Key: "userId", Value: 1}}},
}}

// experimentCountsCollection holds one counter document per experiment,
// phase, day and variant, added to by $inc (atomic on MongoDB).
var experimentCountsCollection = collection{name: "experiment_counts", indexes: []index{
	{name: "by_phase", keys: bson.D{{Key: "exp", Value: 1}, {Key: "phase", Value: 1}}},
}}

type variantDoc struct {
	ID     string `bson:"id"`
	Name   string `bson:"name"`
	Value  string `bson:"value"`
	Weight int    `bson:"weight"`
}

type experimentDoc struct {
	ID             string       `bson:"_id"`
	Name           string       `bson:"name"`
	Kind           string       `bson:"kind"`
	Key            string       `bson:"key"`
	Variants       []variantDoc `bson:"variants"`
	Status         string       `bson:"status"`
	Phase          int          `bson:"phase"`
	PhaseStartedAt time.Time    `bson:"phaseStartedAt,omitzero"`
	Started        bool         `bson:"started"`
	Revision       int          `bson:"revision"`
	RunningKey     string       `bson:"runningKey"`
	CreatedBy      string       `bson:"createdBy"`
	CreatedAt      time.Time    `bson:"createdAt"`
	UpdatedBy      string       `bson:"updatedBy"`
	UpdatedAt      time.Time    `bson:"updatedAt"`
	// Asked at creation (issue #34); absent from older documents.
	Hypothesis string `bson:"hypothesis,omitempty"`
	Metric     string `bson:"metric,omitempty"`
	Holdout    int    `bson:"holdout,omitempty"`
}

func newExperimentDoc(e experiment.Experiment) experimentDoc {
	d := experimentDoc{ID: e.ID, Name: e.Name, Kind: e.Kind, Key: e.Key, Status: e.Status, Phase: e.Phase,
		PhaseStartedAt: e.PhaseStartedAt, Started: e.Started, Revision: e.Revision, RunningKey: e.RunningKey(),
		CreatedBy: e.CreatedBy, CreatedAt: e.CreatedAt, UpdatedBy: e.UpdatedBy, UpdatedAt: e.UpdatedAt,
		Hypothesis: e.Hypothesis, Metric: e.Metric, Holdout: e.Holdout}
	if d.RunningKey == "" {
		d.RunningKey = "idle:" + e.ID
	}
	for _, v := range e.Variants {
		d.Variants = append(d.Variants, variantDoc(v))
	}
	return d
}

func (d experimentDoc) experiment() experiment.Experiment {
	e := experiment.Experiment{ID: d.ID, Name: d.Name, Kind: d.Kind, Key: d.Key, Status: d.Status, Phase: d.Phase,
		Started: d.Started, Revision: d.Revision, CreatedBy: d.CreatedBy, CreatedAt: d.CreatedAt.UTC(), UpdatedBy: d.UpdatedBy, UpdatedAt: d.UpdatedAt.UTC(),
		Hypothesis: d.Hypothesis, Metric: d.Metric, Holdout: d.Holdout}
	if !d.PhaseStartedAt.IsZero() {
		e.PhaseStartedAt = d.PhaseStartedAt.UTC()
	}
	for _, v := range d.Variants {
		e.Variants = append(e.Variants, experiment.Variant(v))
	}
	return e
}

type markDoc struct {
	ID         string    `bson:"_id"`
	Experiment string    `bson:"exp"`
	Phase      int       `bson:"phase"`
	UserID     string    `bson:"userId"`
	Event      string    `bson:"event"`
	Variant    string    `bson:"variant"`
	At         time.Time `bson:"at"`
	Revenue    int64     `bson:"revenue,omitempty"`
}

func markID(exp string, phase int, userID, event string) string {
	return exp + ":" + strconv.Itoa(phase) + ":" + userID + ":" + event
}

type countDoc struct {
	ID         string `bson:"_id"`
	Exp        string `bson:"exp"`
	Phase      int    `bson:"phase"`
	Day        string `bson:"day"`
	Variant    string `bson:"variant"`
	Attempts   int64  `bson:"attempts"`
	Exposures  int64  `bson:"exposures"`
	Saves      int64  `bson:"saves"`
	Cancels    int64  `bson:"cancels"`
	Unsaved    int64  `bson:"unsaved"`
	Revenue    int64  `bson:"revenue"`
	RevenueSq  int64  `bson:"revenueSq"`
	RevenueMax int64  `bson:"revenueMax"`
}

// Experiments stores the experiments, marks and counters in MongoDB.
type Experiments struct{ experiments, people, counts *mongo.Collection }

// NewExperiments returns the experiments' storage on db.
func NewExperiments(db *mongo.Database) *Experiments {
	return &Experiments{experiments: db.Collection(experimentsCollection.name),
		people: db.Collection(experimentPeopleCollection.name), counts: db.Collection(experimentCountsCollection.name)}
}

var _ experiment.Storage = (*Experiments)(nil)

// All returns every experiment, newest first.
func (s *Experiments) All(ctx context.Context) ([]experiment.Experiment, error) {
	cur, err := s.experiments.Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "createdAt", Value: -1}, {Key: "_id", Value: 1}}))
	if err != nil {
		return nil, fmt.Errorf("experiments: %w", err)
	}
	var docs []experimentDoc
	if err := cur.All(ctx, &docs); err != nil {
		return nil, fmt.Errorf("experiments: %w", err)
	}
	out := make([]experiment.Experiment, len(docs))
	for i, d := range docs {
		out[i] = d.experiment()
	}
	return out, nil
}

// Get returns one experiment.
func (s *Experiments) Get(ctx context.Context, id string) (experiment.Experiment, error) {
	var d experimentDoc
	err := s.experiments.FindOne(ctx, bson.D{{Key: "_id", Value: id}}).Decode(&d)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return experiment.Experiment{}, experiment.ErrNoExperiment
	}
	if err != nil {
		return experiment.Experiment{}, fmt.Errorf("experiment %s: %w", id, err)
	}
	return d.experiment(), nil
}

// Insert stores a new experiment.
func (s *Experiments) Insert(ctx context.Context, e experiment.Experiment) error {
	_, err := s.experiments.InsertOne(ctx, newExperimentDoc(e))
	if store.IsDuplicateKey(err) && e.RunningKey() != "" {
		return experiment.ErrKeyRunning
	}
	if err != nil {
		return fmt.Errorf("insert experiment %s: %w", e.ID, err)
	}
	return nil
}

// Replace stores e over its previous revision: a replace filtered on the
// revision it was made from (atomic on MongoDB, not on FerretDB v1), and
// the unique runningKey refuses a second running experiment on a key.
func (s *Experiments) Replace(ctx context.Context, e experiment.Experiment) error {
	res, err := s.experiments.ReplaceOne(ctx, bson.D{{Key: "_id", Value: e.ID}, {Key: "revision", Value: e.Revision - 1}}, newExperimentDoc(e))
	switch {
	case store.IsDuplicateKey(err), err != nil && s.keyHeldByAnother(ctx, e):
		// MongoDB answers a unique index's refusal with DuplicateKey;
		// FerretDB v1 with an internal error, so the key is looked at.
		return experiment.ErrKeyRunning
	case err != nil:
		return fmt.Errorf("replace experiment %s: %w", e.ID, err)
	case res.MatchedCount == 0:
		if _, err := s.Get(ctx, e.ID); err != nil {
			return err
		}
		return experiment.ErrStale
	}
	return nil
}

// keyHeldByAnother reports another experiment running on e's key.
func (s *Experiments) keyHeldByAnother(ctx context.Context, e experiment.Experiment) bool {
	if e.RunningKey() == "" {
		return false
	}
	var d experimentDoc
	err := s.experiments.FindOne(ctx, bson.D{{Key: "runningKey", Value: e.RunningKey()}}).Decode(&d)
	return err == nil && d.ID != e.ID
}

// Mark stores a person's mark once: a unique insert of its _id, which has
// one winner on every server.
func (s *Experiments) Mark(ctx context.Context, m experiment.Mark) (bool, error) {
	_, err := s.people.InsertOne(ctx, markDoc{ID: markID(m.Experiment, m.Phase, m.UserID, m.Event), Experiment: m.Experiment,
		Phase: m.Phase, UserID: m.UserID, Event: m.Event, Variant: m.Variant, At: m.At, Revenue: m.Revenue})
	if store.IsDuplicateKey(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("mark %s in experiment %s: %w", m.Event, m.Experiment, err)
	}
	return true, nil
}

func (d markDoc) mark() experiment.Mark {
	return experiment.Mark{Experiment: d.Experiment, Phase: d.Phase, UserID: d.UserID, Event: d.Event, Variant: d.Variant, At: d.At.UTC(), Revenue: d.Revenue}
}

// MarkOf returns one mark of a person.
func (s *Experiments) MarkOf(ctx context.Context, experimentID string, phase int, userID, event string) (experiment.Mark, bool, error) {
	var d markDoc
	err := s.people.FindOne(ctx, bson.D{{Key: "_id", Value: markID(experimentID, phase, userID, event)}}).Decode(&d)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return experiment.Mark{}, false, nil
	}
	if err != nil {
		return experiment.Mark{}, false, fmt.Errorf("mark of %s: %w", userID, err)
	}
	return d.mark(), true, nil
}

// MarksOf returns every mark of a person.
func (s *Experiments) MarksOf(ctx context.Context, userID string) ([]experiment.Mark, error) {
	cur, err := s.people.Find(ctx, bson.D{{Key: "userId", Value: userID}})
	if err != nil {
		return nil, fmt.Errorf("marks of %s: %w", userID, err)
	}
	var docs []markDoc
	if err := cur.All(ctx, &docs); err != nil {
		return nil, fmt.Errorf("marks of %s: %w", userID, err)
	}
	out := make([]experiment.Mark, len(docs))
	for i, d := range docs {
		out[i] = d.mark()
	}
	return out, nil
}

// DeleteMarks deletes every mark of a person.
func (s *Experiments) DeleteMarks(ctx context.Context, userID string) (int64, error) {
	res, err := s.people.DeleteMany(ctx, bson.D{{Key: "userId", Value: userID}})
	if err != nil {
		return 0, fmt.Errorf("delete marks of %s: %w", userID, err)
	}
	return res.DeletedCount, nil
}

// Add adds to a counter document with $inc, upserting it: one atomic
// update on MongoDB (not on FerretDB v1, whose updates read and then
// write). Two upserts racing to create the document may see a duplicate
// key; the loser's retry finds the document and increments it.
func (s *Experiments) Add(ctx context.Context, experimentID string, phase int, t experiment.Tally) error {
	id := experimentID + ":" + strconv.Itoa(phase) + ":" + t.Day + ":" + t.Variant
	update := bson.D{
		{Key: "$inc", Value: bson.D{{Key: "attempts", Value: t.Attempts}, {Key: "exposures", Value: t.Exposures},
			{Key: "saves", Value: t.Saves}, {Key: "cancels", Value: t.Cancels}, {Key: "unsaved", Value: t.Unsaved},
			{Key: "revenue", Value: t.Revenue}, {Key: "revenueSq", Value: t.RevenueSq}}},
		{Key: "$max", Value: bson.D{{Key: "revenueMax", Value: t.RevenueMax}}},
		{Key: "$setOnInsert", Value: bson.D{{Key: "exp", Value: experimentID}, {Key: "phase", Value: phase},
			{Key: "day", Value: t.Day}, {Key: "variant", Value: t.Variant}}},
	}
	var err error
	for range 3 {
		_, err = s.counts.UpdateOne(ctx, bson.D{{Key: "_id", Value: id}}, update, options.UpdateOne().SetUpsert(true))
		if !store.IsDuplicateKey(err) {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("add to experiment %s counts: %w", experimentID, err)
	}
	return nil
}

// Tallies returns a phase's counters.
func (s *Experiments) Tallies(ctx context.Context, experimentID string, phase int) ([]experiment.Tally, error) {
	cur, err := s.counts.Find(ctx, bson.D{{Key: "exp", Value: experimentID}, {Key: "phase", Value: phase}})
	if err != nil {
		return nil, fmt.Errorf("experiment %s counts: %w", experimentID, err)
	}
	var docs []countDoc
	if err := cur.All(ctx, &docs); err != nil {
		return nil, fmt.Errorf("experiment %s counts: %w", experimentID, err)
	}
	out := make([]experiment.Tally, len(docs))
	for i, d := range docs {
		out[i] = experiment.Tally{Day: d.Day, Variant: d.Variant, Counts: experiment.Counts{Attempts: d.Attempts,
			Exposures: d.Exposures, Saves: d.Saves, Cancels: d.Cancels, Unsaved: d.Unsaved,
			Revenue: d.Revenue, RevenueSq: d.RevenueSq, RevenueMax: d.RevenueMax}}
	}
	return out, nil
}
