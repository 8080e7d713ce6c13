package library

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"glimpse/engine"
)

// The states of a scheduled publish. A schedule is created scheduled; when
// it is due one instance claims it (publishing) and marks it published once
// the item is; an editor may cancel it while it is still scheduled. Each
// change is a conditional write on the state (Schedules), so of two
// instances claiming, or an editor cancelling while an instance claims,
// exactly one wins.
const (
	ScheduleScheduled  = "scheduled"
	SchedulePublishing = "publishing"
	SchedulePublished  = "published"
	ScheduleCancelled  = "cancelled"
)

// Schedule is a publish of one item set for a time: whatever the item's
// draft is then is published, as Sanity's scheduled publishing does, so
// edits saved until then go out with it.
type Schedule struct {
	ID         string
	Kind, Slug string
	At         time.Time // when to publish
	By         string    // who scheduled it
	CreatedAt  time.Time
	State      string
	// ChangedAt and ChangedBy are of the last change of state: the claim
	// (the instance's time), the publish, or who cancelled it.
	ChangedAt time.Time
	ChangedBy string
}

// The errors a Schedules store returns.
var (
	ErrScheduleExists = errors.New("library: the schedule exists")
	ErrNoSchedule     = errors.New("library: no such schedule")
)

// Schedules is what scheduled publishing needs from storage. Every change
// of state is conditional on the state the caller expects, so it happens
// once whatever the number of instances.
type Schedules interface {
	// Add stores a new schedule, or returns ErrScheduleExists.
	Add(ctx context.Context, s Schedule) error
	// Get returns the schedule with the id, or ErrNoSchedule.
	Get(ctx context.Context, id string) (Schedule, error)
	// Pending returns the schedules scheduled or publishing, in no order.
	Pending(ctx context.Context) ([]Schedule, error)
	// Claim moves the schedule to publishing at now, and reports whether
	// it did: only if it is scheduled and due (At not after now), or
	// publishing since before stale (its claimer died mid-publish).
	Claim(ctx context.Context, id string, now, stale time.Time) (bool, error)
	// Finish moves a schedule claimed at claimedAt to published, and
	// reports whether it did (not if another instance reclaimed it since).
	Finish(ctx context.Context, id string, claimedAt, now time.Time) (bool, error)
	// Cancel moves a scheduled schedule to cancelled, and reports whether
	// it did (not once claimed, published or cancelled).
	Cancel(ctx context.Context, id, by string, now time.Time) (bool, error)
}

// ProblemScheduleTime and ProblemSchedulePast are the problems of a publish
// time: not a date and time, or not in the future.
const (
	ProblemScheduleTime = "studio.schedule.problemTime"
	ProblemSchedulePast = "studio.schedule.problemPast"
)

// ScheduleLayouts are the forms a publish time is read in: a date and time
// input's value (seconds optional), in UTC.
var ScheduleLayouts = []string{"2006-01-02T15:04", "2006-01-02T15:04:05"}

// ParseScheduleTime reads a date and time input's value as UTC.
func ParseScheduleTime(s string) (time.Time, bool) {
	for _, layout := range ScheduleLayouts {
		if t, err := time.ParseInLocation(layout, strings.TrimSpace(s), time.UTC); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// maxScheduleAhead bounds how far ahead a publish may be set.
const maxScheduleAhead = 2 * 366 * 24 * time.Hour

// staleClaim is how long a claim may go unfinished before another instance
// takes the schedule over: far beyond a publish's few writes.
const staleClaim = 5 * time.Minute

// Scheduler publishes items at the times editors set, on whichever instance
// gets there first.
type Scheduler struct {
	store  Schedules
	repo   *Repo
	clock  engine.Clock
	logger *slog.Logger
}

// NewScheduler returns the scheduler of repo's items over store.
func NewScheduler(store Schedules, repo *Repo, clock engine.Clock, logger *slog.Logger) *Scheduler {
	return &Scheduler{store: store, repo: repo, clock: clock, logger: logger}
}

func (s *Scheduler) now() time.Time { return s.clock.Now().UTC().Truncate(time.Millisecond) }

// Schedule sets the item kind/slug to be published at, a date and time
// input's value in UTC. The item must exist (the caller saves the
// editor's form first); a time that is not one, in the past or more than two
// years ahead is an *InvalidError on the field "at".
func (s *Scheduler) Schedule(ctx context.Context, kind, slug, at, by string) (Schedule, error) {
	t, ok := ParseScheduleTime(at)
	now := s.now()
	switch {
	case !ok || t.After(now.Add(maxScheduleAhead)):
		return Schedule{}, engine.Invalid("schedule", Problems{"at": {Code: ProblemScheduleTime}})
	case !t.After(now):
		return Schedule{}, engine.Invalid("schedule", Problems{"at": {Code: ProblemSchedulePast}})
	}
	if _, err := s.repo.Get(ctx, kind, slug); err != nil {
		return Schedule{}, err
	}
	sc := Schedule{ID: engine.NewID(), Kind: kind, Slug: slug, At: t, By: by, CreatedAt: now, State: ScheduleScheduled,
		ChangedAt: now, ChangedBy: by}
	if err := s.store.Add(ctx, sc); err != nil {
		return Schedule{}, fmt.Errorf("schedule %s: %w", DocID(kind, slug), err)
	}
	return sc, nil
}

// ScheduleEdit saves the editor's form (fields, when there are any) as the
// item's draft, as Publish saves it, then schedules the item as Schedule
// does: what goes out at that time is the draft then.
func (s *Scheduler) ScheduleEdit(ctx context.Context, kind, slug string, fields map[string]string, at, by string) (Schedule, error) {
	if len(fields) > 0 {
		if _, err := s.repo.Edit(ctx, kind, slug, fields, by, false); err != nil {
			return Schedule{}, err
		}
	}
	return s.Schedule(ctx, kind, slug, at, by)
}

// Cancel cancels a schedule still scheduled; one already claimed or done is
// a conflict *engine.Error (the publish won the race).
func (s *Scheduler) Cancel(ctx context.Context, id, by string) (Schedule, error) {
	sc, err := s.store.Get(ctx, id)
	if errors.Is(err, ErrNoSchedule) {
		return Schedule{}, engine.Errorf(engine.CodeNotFound, "There is no such scheduled publish.")
	}
	if err != nil {
		return Schedule{}, fmt.Errorf("cancel schedule %s: %w", id, err)
	}
	ok, err := s.store.Cancel(ctx, id, by, s.now())
	if err != nil {
		return Schedule{}, fmt.Errorf("cancel schedule %s: %w", id, err)
	}
	if !ok {
		return Schedule{}, engine.Errorf(engine.CodeConflict, "This publish has already run or was cancelled.")
	}
	return sc, nil
}

// Pending returns the schedules not yet published or cancelled, soonest
// first; with kind and slug, only that item's.
func (s *Scheduler) Pending(ctx context.Context, kind, slug string) ([]Schedule, error) {
	all, err := s.store.Pending(ctx)
	if err != nil {
		return nil, fmt.Errorf("pending schedules: %w", err)
	}
	out := []Schedule{}
	for _, sc := range all {
		if kind == "" || (sc.Kind == kind && sc.Slug == slug) {
			out = append(out, sc)
		}
	}
	slices.SortFunc(out, func(a, b Schedule) int {
		if c := a.At.Compare(b.At); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out, nil
}

// RunDue publishes every due schedule this instance claims, and returns how
// many it published. The publish bumps the content version, so every
// instance reloads within seconds (Repo.Watch). A publish that fails leaves
// the claim, which goes stale and is retried (Publish of an item already
// published as is adds no revision, so a retry does not publish twice).
func (s *Scheduler) RunDue(ctx context.Context) (int, error) {
	pending, err := s.store.Pending(ctx)
	if err != nil {
		return 0, fmt.Errorf("due schedules: %w", err)
	}
	now := s.now()
	published := 0
	var errs []error
	for _, sc := range pending {
		due := sc.State == ScheduleScheduled && !sc.At.After(now)
		stale := sc.State == SchedulePublishing && sc.ChangedAt.Before(now.Add(-staleClaim))
		if !due && !stale {
			continue
		}
		won, err := s.store.Claim(ctx, sc.ID, now, now.Add(-staleClaim))
		if err != nil {
			errs = append(errs, fmt.Errorf("claim schedule %s: %w", sc.ID, err))
			continue
		}
		if !won {
			continue // another instance has it, or an editor cancelled it
		}
		if _, err := s.repo.Publish(ctx, sc.Kind, sc.Slug, sc.By); err != nil {
			errs = append(errs, fmt.Errorf("scheduled publish %s: %w", sc.ID, err))
			continue
		}
		if _, err := s.store.Finish(ctx, sc.ID, now, s.now()); err != nil {
			errs = append(errs, fmt.Errorf("finish schedule %s: %w", sc.ID, err))
			continue
		}
		published++
	}
	return published, errors.Join(errs...)
}

// Run runs the due schedules every interval until ctx ends; any number of
// instances may run it. It blocks, so run it in its own goroutine.
func (s *Scheduler) Run(ctx context.Context, every time.Duration) {
	engine.Every(ctx, every, func(ctx context.Context) {
		if _, err := s.RunDue(ctx); err != nil && s.logger != nil {
			s.logger.Error("scheduled publishing", "error", err)
		}
	})
}
