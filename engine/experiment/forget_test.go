package experiment

import (
	"context"
	"slices"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestForgetPersonDeletesEveryExposureAndOutcome: ForgetPerson deletes the
// person's exposures and outcomes in every phase of every experiment that
// ran, running, paused or stopped, including one created on another
// instance that this one has not loaded; another person's stay.
func TestForgetPersonDeletesEveryExposureAndOutcome(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := newService(t)
	other := NewService(s.db, s.clock, nil) // another instance, with its own memory
	expose := func(svc *Service, userID string) {
		t.Helper()
		as := svc.Assignments(userID)
		if len(as) == 0 {
			t.Fatal("no running experiment")
		}
		for _, a := range as {
			if err := svc.Expose(ctx, userID, a); err != nil {
				t.Fatal(err)
			}
		}
	}
	record := func(svc *Service, userID string, events ...string) {
		t.Helper()
		for _, event := range events {
			if err := svc.Record(ctx, userID, event); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Phase 1, then phase 2 after a weight change; paused at the end.
	e, err := s.Create(ctx, copyExperiment(50, 50), "t@x")
	if err != nil {
		t.Fatal(err)
	}
	if e, err = s.SetStatus(ctx, e.ID, ActionStart, "t@x"); err != nil {
		t.Fatal(err)
	}
	expose(s, "u1")
	expose(s, "u2")
	record(s, "u1", EventSaved, EventCanceled)
	record(s, "u2", EventSaved)
	in := e
	in.Variants[1].Weight = 20
	if e, err = s.Update(ctx, e.ID, in, "t@x"); err != nil || e.Phase != 2 {
		t.Fatalf("phase %d, %v", e.Phase, err)
	}
	expose(s, "u1")
	record(s, "u1", EventSaved)
	if _, err := s.SetStatus(ctx, e.ID, ActionPause, "t@x"); err != nil {
		t.Fatal(err)
	}
	// Run and stopped on the other instance alone.
	offer := Experiment{Name: "Step 3 offer", Kind: KindOffer, Key: "offer.step3",
		Variants: []Variant{{Weight: 1}, {Value: "gift_month", Weight: 1}}}
	o, err := other.Create(ctx, offer, "t@x")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.SetStatus(ctx, o.ID, ActionStart, "t@x"); err != nil {
		t.Fatal(err)
	}
	expose(other, "u1")
	record(other, "u1", EventCanceled)
	if _, err := other.SetStatus(ctx, o.ID, ActionStop, "t@x"); err != nil {
		t.Fatal(err)
	}
	// A draft has exposed nobody.
	if _, err := s.Create(ctx, copyExperiment(1, 1), "t@x"); err != nil {
		t.Fatal(err)
	}

	people := func(userID string) []string {
		t.Helper()
		cur, err := s.people().Find(ctx, bson.M{})
		if err != nil {
			t.Fatal(err)
		}
		var docs []exposureDoc
		if err := cur.All(ctx, &docs); err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, d := range docs {
			if slices.Contains(strings.Split(d.ID, ":"), userID) {
				ids = append(ids, d.ID)
			}
		}
		return ids
	}
	// Phase 1: an exposure and two outcomes; phase 2: an exposure and two
	// outcomes (the cancel on the other instance counts in every experiment
	// the person saw); the offer: an exposure and an outcome.
	if got := people("u1"); len(got) != 8 {
		t.Fatalf("before: %d documents of u1, want 8: %v", len(got), got)
	}
	if err := ForgetPerson(ctx, s.db, "u1"); err != nil {
		t.Fatal(err)
	}
	if got := people("u1"); len(got) != 0 {
		t.Errorf("left after ForgetPerson: %v", got)
	}
	if got := people("u2"); len(got) != 2 {
		t.Errorf("the other person's documents: %v, want an exposure and an outcome", got)
	}
}
