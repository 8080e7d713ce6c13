package retention

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"glimpse/engine"
	"glimpse/engine/store"
)

// Collections.
const (
	AttemptsCollection = "cancel_attempts" // one document per attempt, written once
	StepsCollection    = "cancel_steps"    // one document per thing that happened in an attempt
	// AttemptsByUserCollection lists each subscriber's attempts
	// (store.Lists, "<userId>#n" → attempt id), which the support desk reads
	// by _id rather than by scanning every attempt for a userId.
	AttemptsByUserCollection = "cancel_attempts_by_user"
)

// Collections lists retention's collections with their indexes.
func Collections() map[string][]mongo.IndexModel {
	return map[string][]mongo.IndexModel{
		AttemptsCollection:       {{Keys: bson.D{{Key: "startedAt", Value: 1}}}},
		StepsCollection:          {{Keys: bson.D{{Key: "attemptId", Value: 1}}}},
		AttemptsByUserCollection: nil,
	}
}

// Outcomes of an attempt. An attempt with none was abandoned.
const (
	OutcomeCanceled    = "canceled"
	OutcomePlanChanged = "saved_plan_change" // took the plan change
	OutcomeGiftMonth   = "saved_gift_month"  // took the free month
	OutcomeStayed      = "never_mind"        // chose to stay, or closed the flow
)

// Kinds of event.
const (
	EventReached       = "reached"
	EventAnswer        = "answer"
	EventOfferShown    = "offer_shown"
	EventOfferAccepted = "offer_accepted"
	EventOutcome       = "outcome"
)

// Attempt is one opening of the flow, written once when it starts.
type Attempt struct {
	ID             string    `bson:"_id"`
	UserID         string    `bson:"userId"`
	SubscriptionID string    `bson:"subscriptionId"`
	Brand          string    `bson:"brand"`
	PlanCode       string    `bson:"planCode"`
	Entry          string    `bson:"entry"`  // where it was opened: "my_plan", "link"
	Return         string    `bson:"return"` // the app path closing the flow goes back to
	StartedAt      time.Time `bson:"startedAt"`
}

// Event is one thing that happened in an attempt: a step reached, an answer,
// an offer shown or accepted, an outcome. Each is its own document with a
// new _id (attempt/sequence), so concurrent writers never read-modify-write.
type Event struct {
	ID             string    `bson:"_id"`
	AttemptID      string    `bson:"attemptId"`
	SubscriptionID string    `bson:"subscriptionId"`
	At             time.Time `bson:"at"`
	Kind           string    `bson:"kind"`
	Step           int       `bson:"step"`
	Reason         string    `bson:"reason,omitempty"`
	Stars          int       `bson:"stars,omitempty"`
	Review         string    `bson:"review,omitempty"`
	Offer          string    `bson:"offer,omitempty"`
	Outcome        string    `bson:"outcome,omitempty"`
	// Exit says how a never-mind outcome left: "stay", "keep", "close",
	// "reason" (the survey's first answer).
	Exit string `bson:"exit,omitempty"`
}

// Reached is a step and when it was shown.
type Reached struct {
	Step Step
	At   time.Time
}

// Summary is an attempt with everything that happened in it.
type Summary struct {
	Attempt
	Reached        []Reached
	Reason         string
	Stars          int // 0: not given
	Review         string
	OffersShown    []string
	OffersAccepted []string
	Outcome        string // the last one recorded
	Exit           string // how a never-mind outcome left
	EndedAt        time.Time
}

// Service stores attempts.
type Service struct {
	db     *mongo.Database
	clock  engine.Clock
	byUser *store.Lists
}

// NewService returns the attempts store.
func NewService(db *mongo.Database, clock engine.Clock) *Service {
	return &Service{db: db, clock: clock, byUser: store.NewLists(db, AttemptsByUserCollection)}
}

// ErrNoAttempt is an unknown attempt, or one of another subscriber.
var ErrNoAttempt = engine.Errorf(engine.CodeNotFound, "No such cancel attempt")

// Start writes a new attempt and returns it.
func (s *Service) Start(ctx context.Context, a Attempt) (Attempt, error) {
	a.ID = engine.NewID()
	a.StartedAt = s.clock.Now()
	// Listed before it is written (store.Lists).
	if a.UserID != "" {
		if err := s.byUser.Add(ctx, a.UserID, a.ID); err != nil {
			return Attempt{}, fmt.Errorf("start cancel attempt: %w", err)
		}
	}
	if _, err := s.db.Collection(AttemptsCollection).InsertOne(ctx, a); err != nil {
		return Attempt{}, fmt.Errorf("start cancel attempt: %w", err)
	}
	return a, nil
}

// Get returns a user's attempt.
func (s *Service) Get(ctx context.Context, id, userID string) (Attempt, error) {
	var a Attempt
	err := s.db.Collection(AttemptsCollection).FindOne(ctx, bson.M{"_id": id}).Decode(&a)
	if errors.Is(err, mongo.ErrNoDocuments) || (err == nil && a.UserID != userID) {
		return Attempt{}, ErrNoAttempt
	}
	if err != nil {
		return Attempt{}, fmt.Errorf("read cancel attempt: %w", err)
	}
	return a, nil
}

// Record adds an event to an attempt, at the clock's now. Events are
// numbered within their attempt (StepID): the embedded database finds
// documents without a scan only by _id, so reading an attempt's events is
// reading its numbers in turn. Two events recorded at once each take their
// own number (a unique insert; the loser takes the next).
func (s *Service) Record(ctx context.Context, a Attempt, e Event) error {
	e.At = s.clock.Now()
	e.AttemptID, e.SubscriptionID = a.ID, a.SubscriptionID
	known, err := s.events(ctx, a.ID)
	if err != nil {
		return err
	}
	for n := len(known); n < len(known)+maxRecordTries; n++ {
		e.ID = StepID(a.ID, n)
		_, err := s.db.Collection(StepsCollection).InsertOne(ctx, e)
		if err == nil {
			return nil
		}
		if !store.IsDuplicateKey(err) {
			return fmt.Errorf("record cancel attempt %s: %w", e.Kind, err)
		}
	}
	return fmt.Errorf("record cancel attempt %s: no free number", e.Kind)
}

// maxRecordTries bounds how many numbers one Record tries against
// concurrent writers of the same attempt.
const maxRecordTries = 64

// StepID is the _id of an attempt's n-th event.
func StepID(attemptID string, n int) string { return attemptID + "/" + strconv.Itoa(n) }

// events reads an attempt's events by number, up to the first missing one.
func (s *Service) events(ctx context.Context, attemptID string) ([]Event, error) {
	var out []Event
	for n := 0; ; n++ {
		var e Event
		err := s.db.Collection(StepsCollection).FindOne(ctx, bson.M{"_id": StepID(attemptID, n)}).Decode(&e)
		if errors.Is(err, mongo.ErrNoDocuments) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read cancel steps: %w", err)
		}
		out = append(out, e)
	}
}

// Summary folds an attempt's events.
func (s *Service) Summary(ctx context.Context, a Attempt) (Summary, error) {
	all, err := s.summaries(ctx, []Attempt{a})
	if err != nil {
		return Summary{}, err
	}
	return all[0], nil
}

func (s *Service) summaries(ctx context.Context, attempts []Attempt) ([]Summary, error) {
	out := make([]Summary, len(attempts))
	for i, a := range attempts {
		events, err := s.events(ctx, a.ID)
		if err != nil {
			return nil, err
		}
		out[i] = fold(a, events)
	}
	return out, nil
}

func fold(a Attempt, events []Event) Summary {
	slices.SortFunc(events, func(x, y Event) int {
		if c := x.At.Compare(y.At); c != 0 {
			return c
		}
		return compareStrings(x.ID, y.ID)
	})
	sum := Summary{Attempt: a, EndedAt: a.StartedAt}
	for _, e := range events {
		sum.EndedAt = e.At
		switch e.Kind {
		case EventReached:
			sum.Reached = append(sum.Reached, Reached{Step: Step(e.Step), At: e.At})
		case EventAnswer:
			if e.Reason != "" {
				sum.Reason = e.Reason
			}
			if e.Stars != 0 {
				sum.Stars = e.Stars
			}
			if e.Review != "" {
				sum.Review = e.Review
			}
		case EventOfferShown:
			if !slices.Contains(sum.OffersShown, e.Offer) {
				sum.OffersShown = append(sum.OffersShown, e.Offer)
			}
		case EventOfferAccepted:
			if !slices.Contains(sum.OffersAccepted, e.Offer) {
				sum.OffersAccepted = append(sum.OffersAccepted, e.Offer)
			}
		case EventOutcome:
			sum.Outcome, sum.Exit = e.Outcome, e.Exit
		}
	}
	return sum
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
