package retention

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"glimpse/engine"
)

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

// ResumeWithin is how long an attempt without an outcome stays open: the
// flow opened again on the same subscription within it (a reload, a second
// tab, the back button) resumes that attempt instead of starting another,
// so opening the flow's page twice is not two attempts. Later, it is a new
// decision and a new attempt.
const ResumeWithin = time.Hour

// Attempt is one opening of the flow, written once when it starts.
type Attempt struct {
	ID             string
	UserID         string
	SubscriptionID string
	Brand          string
	PlanCode       string
	Entry          string // where it was opened: "my_plan", "link"
	Return         string // the app path closing the flow goes back to
	StartedAt      time.Time
}

// Resumable reports whether a start at now on the same subscription
// resumes the attempt (one without an outcome; the store knows which are).
func (a Attempt) Resumable(now time.Time) bool { return now.Sub(a.StartedAt) < ResumeWithin }

// Event is one thing that happened in an attempt: a step reached, an answer,
// an offer shown or accepted, an outcome. Each is a row of its own with a
// new id, so concurrent writers never read-modify-write.
type Event struct {
	ID             string
	AttemptID      string
	UserID         string // the attempt's, so a person's events are found (and erased) without their attempts
	SubscriptionID string
	At             time.Time
	Kind           string
	Step           int
	Reason         string
	Stars          int
	Review         string
	Offer          string
	Outcome        string
	// Exit says how a never-mind outcome left: "stay", "keep", "close",
	// "reason" (the survey's first answer).
	Exit string
}

// Attempts is what retention needs from storage. A subscription has at
// most one open attempt (one without an outcome): the store enforces it
// with a unique key, so attempts opened together make one.
type Attempts interface {
	// Open returns the subscription's open attempt when it is still
	// resumable at a.StartedAt (Attempt.Resumable), else stores a as the
	// subscription's open attempt (closing a stale one); started says
	// which. Of Opens sent together for one subscription, one stores its
	// attempt and the others return it.
	Open(ctx context.Context, a Attempt) (got Attempt, started bool, err error)
	// InsertMany stores finished attempts and their events in one go (the
	// scale seed); they are not open.
	InsertMany(ctx context.Context, attempts []Attempt, events []Event) error
	// Get returns an attempt, or ErrNoAttempt.
	Get(ctx context.Context, id string) (Attempt, error)
	// OfUser returns the person's attempts, newest first, and all of their
	// events (in no order).
	OfUser(ctx context.Context, userID string) ([]Attempt, []Event, error)
	// Events returns an attempt's events, oldest first.
	Events(ctx context.Context, attemptID string) ([]Event, error)
	// Record stores a new event; one with the ID of a stored event is
	// stored once.
	Record(ctx context.Context, e Event) error
	// End records an attempt's outcome e and closes the attempt, so the
	// next Open on its subscription starts a new one. Run again after a
	// failure, it leaves what one run leaves.
	End(ctx context.Context, e Event) error
	// DeleteUser deletes the person's attempts and events and says how
	// many attempts went.
	DeleteUser(ctx context.Context, userID string) (int64, error)
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

// Service keeps the cancel attempts.
type Service struct {
	attempts Attempts
	clock    engine.Clock
}

// NewService returns the attempts service over its storage.
func NewService(attempts Attempts, clock engine.Clock) *Service {
	return &Service{attempts: attempts, clock: clock}
}

// ErrNoAttempt is an unknown attempt, or one of another subscriber.
var ErrNoAttempt = engine.Errorf(engine.CodeNotFound, "No such cancel attempt")

// Start begins an attempt on a.SubscriptionID, or resumes the one opened
// there within ResumeWithin that has no outcome yet (started is false).
func (s *Service) Start(ctx context.Context, a Attempt) (got Attempt, started bool, err error) {
	a.ID = engine.NewID()
	a.StartedAt = s.clock.Now()
	got, started, err = s.attempts.Open(ctx, a)
	if err != nil {
		return Attempt{}, false, fmt.Errorf("start cancel attempt: %w", err)
	}
	return got, started, nil
}

// Get returns a user's attempt.
func (s *Service) Get(ctx context.Context, id, userID string) (Attempt, error) {
	a, err := s.attempts.Get(ctx, id)
	if err == nil && a.UserID != userID {
		return Attempt{}, ErrNoAttempt
	}
	if err != nil && !errors.Is(err, ErrNoAttempt) {
		return Attempt{}, fmt.Errorf("read cancel attempt: %w", err)
	}
	return a, err
}

// Record adds an event to an attempt, at the clock's now. An outcome ends
// the attempt: opening the flow again starts a new one.
func (s *Service) Record(ctx context.Context, a Attempt, e Event) error {
	e.ID, e.At = engine.NewID(), s.clock.Now()
	e.AttemptID, e.UserID, e.SubscriptionID = a.ID, a.UserID, a.SubscriptionID
	write := s.attempts.Record
	if e.Kind == EventOutcome {
		write = s.attempts.End
	}
	if err := write(ctx, e); err != nil {
		return fmt.Errorf("record cancel attempt %s: %w", e.Kind, err)
	}
	return nil
}

// Summary folds an attempt's events.
func (s *Service) Summary(ctx context.Context, a Attempt) (Summary, error) {
	events, err := s.attempts.Events(ctx, a.ID)
	if err != nil {
		return Summary{}, fmt.Errorf("read cancel steps: %w", err)
	}
	return fold(a, events), nil
}

// OfUser returns a subscriber's cancel attempts with what happened in each
// (answers, offers, outcome), newest first, for the support desk.
func (s *Service) OfUser(ctx context.Context, userID string) ([]Summary, error) {
	attempts, byAttempt, err := s.Export(ctx, userID)
	if err != nil {
		return nil, err
	}
	out := make([]Summary, len(attempts))
	for i, a := range attempts {
		out[i] = fold(a, byAttempt[a.ID])
	}
	return out, nil
}

// Export returns a subscriber's attempts, newest first, and each one's
// events oldest first, by attempt id (the data export).
func (s *Service) Export(ctx context.Context, userID string) ([]Attempt, map[string][]Event, error) {
	attempts, events, err := s.attempts.OfUser(ctx, userID)
	if err != nil {
		return nil, nil, fmt.Errorf("cancel attempts of %s: %w", userID, err)
	}
	byAttempt := map[string][]Event{}
	for _, e := range events {
		byAttempt[e.AttemptID] = append(byAttempt[e.AttemptID], e)
	}
	for _, events := range byAttempt {
		sortEvents(events)
	}
	return attempts, byAttempt, nil
}

// EraseUser deletes a subscriber's cancel attempts and every event recorded
// in them (reasons, stars, review text): account deletion.
func (s *Service) EraseUser(ctx context.Context, userID string) error {
	if _, err := s.attempts.DeleteUser(ctx, userID); err != nil {
		return fmt.Errorf("erase cancel attempts of %s: %w", userID, err)
	}
	return nil
}

// InsertMany stores finished attempts and their events (the scale seed).
func (s *Service) InsertMany(ctx context.Context, attempts []Attempt, events []Event) error {
	if err := s.attempts.InsertMany(ctx, attempts, events); err != nil {
		return fmt.Errorf("insert cancel attempts: %w", err)
	}
	return nil
}

// sortEvents puts events in the order they happened (ids break ties).
func sortEvents(events []Event) {
	slices.SortFunc(events, func(x, y Event) int {
		if c := x.At.Compare(y.At); c != 0 {
			return c
		}
		return compareStrings(x.ID, y.ID)
	})
}

func fold(a Attempt, events []Event) Summary {
	sortEvents(events)
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
