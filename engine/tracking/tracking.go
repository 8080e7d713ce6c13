// Package tracking records product usage events (what a person opened,
// tapped, chose) for the experiments and for support, and keeps them for a
// limited time.
package tracking

import (
	"context"
	"fmt"
	"time"

	"glimpse/engine"
)

// DefaultRetention is how long an event is kept.
const DefaultRetention = 180 * 24 * time.Hour

// Project names the web app in every event (several projects may share an
// analytics backend).
const Project = "glimpse-web"

// Event is one usage event.
type Event struct {
	ID             string
	Name           string
	Props          map[string]any
	Brand          string
	Host           string
	Project        string
	UserID         string // empty for an anonymous visitor
	SubscriptionID string
	UserAgent      string
	At             time.Time
	ExpiresAt      time.Time
}

// Events is what tracking needs from storage. Every method sees only events
// whose ExpiresAt is after the now it is given; the store deletes the rest
// by DeleteExpired (or by itself, where the database expires documents).
type Events interface {
	// Insert stores a new event.
	Insert(ctx context.Context, e Event) error
	// InsertMany stores new events in one go (the scale seed).
	InsertMany(ctx context.Context, events []Event) error
	// OfUser returns the person's events, oldest first.
	OfUser(ctx context.Context, userID string, now time.Time) ([]Event, error)
	// Named returns up to limit events called name, newest first.
	Named(ctx context.Context, name string, limit int, now time.Time) ([]Event, error)
	// DeleteUser deletes every event of the person and says how many.
	DeleteUser(ctx context.Context, userID string) (int64, error)
	// DeleteExpired deletes the events expired by now and says how many.
	DeleteExpired(ctx context.Context, now time.Time) (int64, error)
}

// Store records events into its storage and reads them back.
type Store struct {
	events    Events
	clock     engine.Clock
	retention time.Duration
}

// NewStore returns a Store keeping each event for retention.
func NewStore(events Events, clock engine.Clock, retention time.Duration) *Store {
	return &Store{events: events, clock: clock, retention: retention}
}

// Record stores e as happening now, stamped with its id, expiry and project.
func (s *Store) Record(ctx context.Context, e Event) error {
	now := s.clock.Now()
	e.ID, e.At, e.ExpiresAt, e.Project = engine.NewID(), now, now.Add(s.retention), Project
	if err := s.events.Insert(ctx, e); err != nil {
		return fmt.Errorf("record event %s: %w", e.Name, err)
	}
	return nil
}

// Sweep deletes events past their retention.
func (s *Store) Sweep(ctx context.Context) (int64, error) {
	n, err := s.events.DeleteExpired(ctx, s.clock.Now())
	if err != nil {
		return n, fmt.Errorf("sweep events: %w", err)
	}
	return n, nil
}

// OfUser returns the person's events, oldest first (the data export).
func (s *Store) OfUser(ctx context.Context, userID string) ([]Event, error) {
	out, err := s.events.OfUser(ctx, userID, s.clock.Now())
	if err != nil {
		return nil, fmt.Errorf("events of %s: %w", userID, err)
	}
	return out, nil
}

// EraseUser deletes the person's events (account deletion).
func (s *Store) EraseUser(ctx context.Context, userID string) error {
	if _, err := s.events.DeleteUser(ctx, userID); err != nil {
		return fmt.Errorf("erase events of %s: %w", userID, err)
	}
	return nil
}

// Recent returns up to limit events named name, newest first (for tests and
// support).
func (s *Store) Recent(ctx context.Context, name string, limit int) ([]Event, error) {
	out, err := s.events.Named(ctx, name, limit, s.clock.Now())
	if err != nil {
		return nil, fmt.Errorf("recent events: %w", err)
	}
	return out, nil
}
