package experiment

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"glimpse/engine"
	"glimpse/engine/metrics"
)

// Outcome events the unsubscribe flow records (Record).
const (
	// EventAttempt: the subscriber opened the flow.
	EventAttempt = "attempt"
	// EventSaved: the subscriber left the flow without canceling, or
	// accepted an offer.
	EventSaved = "saved"
	// EventCanceled: the subscriber canceled.
	EventCanceled = "canceled"
)

// SaveWindow is how long a save must hold: a cancel within it turns the save
// back into a cancel.
const SaveWindow = 30 * 24 * time.Hour

// Storage is what the experiments need from storage: the experiments
// themselves, each person's marks (an exposure, an outcome: each stored once,
// by a unique key) and the counters, which add without losing an increment
// when sent together.
type Storage interface {
	// All returns every experiment, newest first (CreatedAt, then ID).
	All(ctx context.Context) ([]Experiment, error)
	// Get returns one experiment, or ErrNoExperiment.
	Get(ctx context.Context, id string) (Experiment, error)
	// Insert stores a new experiment.
	Insert(ctx context.Context, e Experiment) error
	// Replace stores e in place of the experiment with its ID if the
	// stored one is e's previous revision (e.Revision-1), else answers
	// ErrStale; if e runs and another running experiment holds its key
	// (Experiment.RunningKey), ErrKeyRunning.
	Replace(ctx context.Context, e Experiment) error
	// Mark stores m unless the person has that mark in that phase already;
	// stored says whether this call stored it. Of Marks sent together, one
	// stores.
	Mark(ctx context.Context, m Mark) (stored bool, err error)
	// MarkOf returns a person's mark in a phase (found false when none).
	MarkOf(ctx context.Context, experimentID string, phase int, userID, event string) (m Mark, found bool, err error)
	// MarksOf returns every mark of a person (in no order).
	MarksOf(ctx context.Context, userID string) ([]Mark, error)
	// DeleteMarks deletes every mark of a person and says how many.
	DeleteMarks(ctx context.Context, userID string) (int64, error)
	// Add adds t's counts to the phase's counters for its day and variant,
	// in one atomic step.
	Add(ctx context.Context, experimentID string, phase int, t Tally) error
	// Tallies returns a phase's counters by day and variant (in no order).
	Tallies(ctx context.Context, experimentID string, phase int) ([]Tally, error)
}

// What the storage answers.
var (
	// ErrNoExperiment: Storage.Get of an unknown experiment.
	ErrNoExperiment = errors.New("experiment: no such experiment")
	// ErrStale: Storage.Replace of a save made from a revision another
	// save replaced meanwhile.
	ErrStale = errors.New("experiment: changed meanwhile")
	// ErrKeyRunning: Storage.Replace of a running experiment whose key
	// another running experiment holds.
	ErrKeyRunning = errors.New("experiment: another experiment runs on the key")
)

// Mark is one person's mark in one phase of an experiment: the exposure
// (Event MarkExposure) or an outcome (EventSaved, EventCanceled), each stored
// once per person and phase.
type Mark struct {
	Experiment string
	Phase      int
	UserID     string
	Event      string
	Variant    string
	At         time.Time
	// Revenue is a save's revenue over SaveWindow in minor units
	// (RecordOutcome), kept so that a cancel taking the save back takes
	// back that amount; 0 for other marks.
	Revenue int64
}

// MarkExposure is the Event of an exposure's mark.
const MarkExposure = "exposed"

// Tally is what one variant counted on one UTC day (DayLayout) of a phase.
type Tally struct {
	Day, Variant string
	Counts
}

// Service keeps the experiments, assigns subscribers and counts what they do.
type Service struct {
	metrics *metrics.Business // counts exposures (metrics.go); nil counts nothing
	store   Storage
	clock   engine.Clock
	// publish tells every instance that experiments changed (the content
	// version bump); nil in tests that reload by hand.
	publish func(context.Context) error
	all     atomic.Pointer[[]Experiment]

	mu      sync.Mutex
	pending map[phaseKey]map[dayVariant]*Counts
	flushMu sync.Mutex
}

// phaseKey names one phase of one experiment.
type phaseKey struct {
	Exp   string
	Phase int
}

// NewService returns the experiments service over its storage. publish,
// when set, is called after every change so that other instances reload
// within seconds.
func NewService(st Storage, clock engine.Clock, publish func(context.Context) error) *Service {
	s := &Service{store: st, clock: clock, publish: publish, pending: map[phaseKey]map[dayVariant]*Counts{}}
	s.all.Store(&[]Experiment{})
	return s
}

func (s *Service) now() time.Time { return s.clock.Now().UTC().Truncate(time.Millisecond) }

// Reload reads every experiment into memory; the content watch calls it
// when another instance publishes.
func (s *Service) Reload(ctx context.Context) error {
	all, err := s.store.All(ctx)
	if err != nil {
		return fmt.Errorf("load experiments: %w", err)
	}
	if all == nil {
		all = []Experiment{}
	}
	s.all.Store(&all)
	return nil
}

// List returns the experiments in memory, newest first.
func (s *Service) List() []Experiment { return slices.Clone(*s.all.Load()) }

// Get reads one experiment from the database.
func (s *Service) Get(ctx context.Context, id string) (Experiment, error) {
	e, err := s.store.Get(ctx, id)
	if errors.Is(err, ErrNoExperiment) {
		return Experiment{}, engine.Errorf(engine.CodeNotFound, "There is no experiment %q.", id)
	}
	if err != nil {
		return Experiment{}, fmt.Errorf("get experiment %s: %w", id, err)
	}
	return e, nil
}

// changed reloads this instance and tells the others.
func (s *Service) changed(ctx context.Context) error {
	if err := s.Reload(ctx); err != nil {
		return err
	}
	if s.publish != nil {
		return s.publish(ctx)
	}
	return nil
}

// normalise gives variants their ids (a, b, c, d) and trims names.
func normalise(vs []Variant) []Variant {
	out := make([]Variant, len(vs))
	for i, v := range vs {
		v.ID = string(rune('a' + i))
		if v.Name == "" {
			v.Name = "Variant " + string(rune('A'+i))
		}
		out[i] = v
	}
	return out
}

// Create stores a new draft experiment.
func (s *Service) Create(ctx context.Context, e Experiment, by string) (Experiment, error) {
	e.Variants = normalise(e.Variants)
	if err := invalid(Validate(e)); err != nil {
		return Experiment{}, err
	}
	now := s.now()
	e.ID = "x" + engine.NewID()[:11]
	e.Status, e.Phase, e.Started, e.Revision = StatusDraft, 1, false, 1
	e.CreatedBy, e.CreatedAt, e.UpdatedBy, e.UpdatedAt = by, now, by, now
	if err := s.store.Insert(ctx, e); err != nil {
		return Experiment{}, fmt.Errorf("create experiment: %w", err)
	}
	return e, s.changed(ctx)
}

// Update changes an experiment's name and variants (and, before it first
// ran, its kind and key). A change of the variants' weights or values after
// it first ran starts a new phase. A stopped experiment cannot change.
func (s *Service) Update(ctx context.Context, id string, in Experiment, by string) (Experiment, error) {
	e, err := s.Get(ctx, id)
	if err != nil {
		return Experiment{}, err
	}
	if e.Status == StatusStopped {
		return Experiment{}, engine.Errorf(engine.CodeConflict, "A stopped experiment cannot change; create a new one.")
	}
	in.Variants = normalise(in.Variants)
	if e.Started && (in.Kind != e.Kind || in.Key != e.Key) {
		return Experiment{}, invalid(Problems{"key": {Code: ProblemKeyFixed}})
	}
	next := e
	next.Name, next.Kind, next.Key, next.Variants = in.Name, in.Kind, in.Key, in.Variants
	next.Hypothesis, next.Metric, next.Holdout = in.Hypothesis, in.Metric, in.Holdout
	if err := invalid(Validate(next)); err != nil {
		return Experiment{}, err
	}
	// A holdout's share moves people in or out of it as a weight does.
	if e.Started && (variantsChanged(e.Variants, next.Variants) || e.Holdout != next.Holdout) {
		next.Phase++
		next.PhaseStartedAt = s.now()
	}
	next.UpdatedBy, next.UpdatedAt, next.Revision = by, s.now(), e.Revision+1
	// Two testers saving the same revision at once: the second is
	// refused, not lost (and a phase begins once).
	if err := s.replace(ctx, next); err != nil {
		return Experiment{}, err
	}
	return next, s.changed(ctx)
}

// Status changes: start (draft or paused → running), pause (running →
// paused), stop (running or paused → stopped, for good).
const (
	ActionStart = "start"
	ActionPause = "pause"
	ActionStop  = "stop"
)

// SetStatus starts, pauses or stops an experiment, from the state it
// reads (a change made meanwhile refuses it). Only one experiment may run
// on a key at a time: this instance's list names the one that does, and
// the store's unique key refuses a start that races another.
func (s *Service) SetStatus(ctx context.Context, id, action, by string) (Experiment, error) {
	e, err := s.Get(ctx, id)
	if err != nil {
		return Experiment{}, err
	}
	switch {
	case action == ActionStart && (e.Status == StatusDraft || e.Status == StatusPaused):
		for _, o := range s.List() {
			if o.ID != e.ID && o.Running() && o.Key == e.Key {
				return Experiment{}, engine.Errorf(engine.CodeConflict, "The experiment %q already runs on %s.", o.Name, e.Key)
			}
		}
		e.Status = StatusRunning
		if !e.Started {
			e.Started, e.PhaseStartedAt = true, s.now()
		}
	case action == ActionPause && e.Status == StatusRunning:
		e.Status = StatusPaused
	case action == ActionStop && (e.Status == StatusRunning || e.Status == StatusPaused):
		e.Status = StatusStopped
	default:
		return Experiment{}, engine.Errorf(engine.CodeConflict, "An experiment that is %s cannot %s.", e.Status, action)
	}
	e.UpdatedBy, e.UpdatedAt, e.Revision = by, s.now(), e.Revision+1
	if err := s.replace(ctx, e); err != nil {
		return Experiment{}, err
	}
	return e, s.changed(ctx)
}

// replace stores a save made from the revision before e's, with the
// store's refusals in the tester's words.
func (s *Service) replace(ctx context.Context, e Experiment) error {
	err := s.store.Replace(ctx, e)
	switch {
	case errors.Is(err, ErrStale):
		return engine.Errorf(engine.CodeConflict, "The experiment %q changed meanwhile: reload it and try again.", e.Name)
	case errors.Is(err, ErrKeyRunning):
		return engine.Errorf(engine.CodeConflict, "Another experiment already runs on %s.", e.Key)
	case err != nil:
		return fmt.Errorf("update experiment: %w", err)
	}
	return nil
}

// Assignment is the variant one subscriber sees in one running experiment.
type Assignment struct {
	Experiment string
	Phase      int
	Kind, Key  string
	Variant    string
	// Value is the variant's text or offer id; empty for a control that
	// shows the flow's own.
	Value string
}

// Assignments returns the subscriber's variant in every running experiment.
// A subscriber in the no-offer holdout of an offer experiment sees no offer
// anywhere in the flow, so they take part in no other offer experiment
// (what those would show them, they are not shown): only the holdouts
// they are in are kept of their offer assignments. It reads memory only.
func (s *Service) Assignments(userID string) []Assignment {
	var out []Assignment
	held := false
	for _, e := range *s.all.Load() {
		if !e.Running() || userID == "" {
			continue
		}
		v := e.Assign(userID)
		held = held || v.ID == HoldoutID
		out = append(out, Assignment{Experiment: e.ID, Phase: e.Phase, Kind: e.Kind, Key: e.Key, Variant: v.ID, Value: v.Value})
	}
	if held {
		out = slices.DeleteFunc(out, func(a Assignment) bool { return a.Kind == KindOffer && a.Variant != HoldoutID })
	}
	return out
}

// CopyOverrides returns, for a subscriber, the copy texts of the running
// copy experiments (key → text; a control with no text of its own is left
// out) and the experiment of each key, for Expose.
func (s *Service) CopyOverrides(userID string) (overrides map[string]string, byKey map[string]Assignment) {
	overrides, byKey = map[string]string{}, map[string]Assignment{}
	for _, a := range s.Assignments(userID) {
		if a.Kind != KindCopy {
			continue
		}
		byKey[a.Key] = a
		if a.Value != "" {
			overrides[a.Key] = a.Value
		}
	}
	return overrides, byKey
}

// Offers returns, for a subscriber, the offers of the running offer
// experiments (slot → offer id; a control with no offer of its own is left
// out, so the slot shows its default) and the experiment of each slot, for
// Expose once the slot's offer is shown. It reads memory only.
func (s *Service) Offers(userID string) (offers map[string]string, bySlot map[string]Assignment) {
	offers, bySlot = map[string]string{}, map[string]Assignment{}
	for _, a := range s.Assignments(userID) {
		if a.Kind != KindOffer {
			continue
		}
		bySlot[a.Key] = a
		if a.Value != "" {
			offers[a.Key] = a.Value
		}
	}
	return offers, bySlot
}

// Offer returns the offer a slot shows the subscriber: the variant's offer
// when an offer experiment runs on the slot, otherwise fallback. It records
// the exposure, so call it when the offer is about to be shown.
func (s *Service) Offer(ctx context.Context, userID, slot, fallback string) (string, error) {
	for _, a := range s.Assignments(userID) {
		if a.Kind == KindOffer && a.Key == slot {
			if err := s.Expose(ctx, userID, a); err != nil {
				return fallback, err
			}
			if a.Value == "" {
				return fallback, nil
			}
			return a.Value, nil
		}
	}
	return fallback, nil
}

// outcomeEvents are the events Record marks once per exposed person.
var outcomeEvents = []string{EventSaved, EventCanceled}

// Expose records that the subscriber was shown their variant: once per
// experiment, phase and subscriber (a unique insert), however many instances
// and page views see it.
func (s *Service) Expose(ctx context.Context, userID string, a Assignment) error {
	stored, err := s.store.Mark(ctx, Mark{Experiment: a.Experiment, Phase: a.Phase, UserID: userID, Event: MarkExposure,
		Variant: a.Variant, At: s.now()})
	if err != nil {
		return fmt.Errorf("record exposure: %w", err)
	}
	if !stored {
		return nil
	}
	s.add(phaseKey{a.Experiment, a.Phase}, a.Variant, Counts{Exposures: 1})
	s.metrics.Exposure()
	return nil
}

// Record counts an outcome of the unsubscribe flow for every experiment the
// subscriber takes part in: EventAttempt (opened the flow; counted per
// attempt, for everyone assigned), EventSaved and EventCanceled (counted
// once per exposed subscriber and phase). A cancel within SaveWindow of a
// recorded save takes the save back.
func (s *Service) Record(ctx context.Context, userID, event string) error {
	return s.RecordOutcome(ctx, userID, event, 0)
}

// RecordOutcome is Record with the outcome's revenue: for EventSaved, what
// the save brings in over SaveWindow in minor units (the flow works it out
// from the plan and the offer taken: retention's saveRevenue). A held save
// adds it and its square to the variant's counters; a cancel that takes the
// save back within SaveWindow takes back the amount its mark kept.
func (s *Service) RecordOutcome(ctx context.Context, userID, event string, revenue int64) error {
	if userID == "" {
		return nil
	}
	switch {
	case event == EventAttempt:
		for _, a := range s.Assignments(userID) {
			s.add(phaseKey{a.Experiment, a.Phase}, a.Variant, Counts{Attempts: 1})
		}
		return nil
	case !slices.Contains(outcomeEvents, event):
		return fmt.Errorf("experiment: unknown event %q", event)
	}
	now := s.now()
	for _, e := range *s.all.Load() {
		if e.Status == StatusDraft {
			continue
		}
		exp, exposed, err := s.store.MarkOf(ctx, e.ID, e.Phase, userID, MarkExposure)
		if err != nil {
			return fmt.Errorf("record outcome: %w", err)
		}
		if !exposed {
			continue
		}
		m := Mark{Experiment: e.ID, Phase: e.Phase, UserID: userID, Event: event, Variant: exp.Variant, At: now}
		if event == EventSaved {
			m.Revenue = max(revenue, 0)
		}
		stored, err := s.store.Mark(ctx, m)
		if err != nil {
			return fmt.Errorf("record outcome: %w", err)
		}
		if !stored {
			continue
		}
		key := phaseKey{e.ID, e.Phase}
		if event == EventSaved {
			s.add(key, exp.Variant, Counts{Saves: 1, Revenue: m.Revenue, RevenueSq: m.Revenue * m.Revenue, RevenueMax: m.Revenue})
			continue
		}
		c := Counts{Cancels: 1}
		saved, found, err := s.store.MarkOf(ctx, e.ID, e.Phase, userID, EventSaved)
		if err != nil {
			return fmt.Errorf("record outcome: %w", err)
		}
		if found && now.Sub(saved.At) <= SaveWindow {
			c.Unsaved = 1
			c.Revenue, c.RevenueSq = -saved.Revenue, -saved.Revenue*saved.Revenue
		}
		s.add(key, exp.Variant, c)
	}
	return nil
}
