// Package librarytest is the contract every implementation of library.Items
// keeps, run against each store by its own tests.
package librarytest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"glimpse/engine"
	"glimpse/engine/library"
	"glimpse/engine/store/contract"
)

// Options says what the store under test guarantees.
type Options = contract.Options

// Run runs the contract against stores made by open, one per call.
func Run(t *testing.T, open func(t *testing.T) library.Items, opts Options) {
	t0 := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	ctx := context.Background()
	item := func(kind, slug, title string) library.Doc {
		fields := map[string]string{"title": title, "body": "Body of " + slug}
		return library.Doc{ID: library.DocID(kind, slug), Kind: kind, Slug: slug, Draft: fields, Status: library.StatusDraft,
			UpdatedAt: t0, UpdatedBy: "ann", Rev: 1,
			Revisions: []library.Revision{{N: 1, At: t0, By: "ann", Action: library.ActionSave, Fields: fields, Changed: []string{"body", "title"}}}}
	}
	// next is d's next revision with the title changed, as a save makes it.
	next := func(d library.Doc, title, by string) library.Doc {
		d.Draft = map[string]string{"title": title, "body": d.Draft["body"]}
		d.Rev++
		d.UpdatedBy = by
		d.Revisions = append(append([]library.Revision{}, d.Revisions...),
			library.Revision{N: d.Rev, At: t0, By: by, Action: library.ActionSave, Fields: d.Draft, Changed: []string{"title"}})
		return d
	}
	skipUnlessAtomic := func(t *testing.T) {
		if !opts.Atomic {
			t.Skip("FerretDB: conditional updates are not atomic; run with GLIMPSE_TEST_MONGODB_URI")
		}
	}

	t.Run("ARoundTripKeepsEveryField", func(t *testing.T) {
		s := open(t)
		want := item(library.KindNews, "launch", "Launch")
		want.Published = map[string]string{"title": "Launch", "body": "Old"}
		want.Status = library.StatusPublished
		want.Rev = 7
		want.Revisions[0].N = 7
		contract.Must(t, s.Insert(ctx, want))
		got, err := s.Get(ctx, want.ID)
		contract.Must(t, err)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("read back (-wrote +read):\n%s", diff)
		}
	})

	t.Run("GetOfAMissingItemIsErrNoItem", func(t *testing.T) {
		s := open(t)
		if _, err := s.Get(ctx, "news:nope"); !errors.Is(err, library.ErrNoItem) {
			t.Fatalf("Get = %v, want ErrNoItem", err)
		}
	})

	t.Run("ASecondInsertOfAnItemIsRefused", func(t *testing.T) {
		s := open(t)
		contract.Must(t, s.Insert(ctx, item(library.KindNews, "launch", "First")))
		if err := s.Insert(ctx, item(library.KindNews, "launch", "Second")); !errors.Is(err, library.ErrItemExists) {
			t.Fatalf("second Insert = %v, want ErrItemExists", err)
		}
		if got, _ := s.Get(ctx, "news:launch"); got.Draft["title"] != "First" {
			t.Fatalf("stored title %q, want First", got.Draft["title"])
		}
	})

	t.Run("OfKindIsTheKindsItemsBySlugWithoutRevisions", func(t *testing.T) {
		s := open(t)
		contract.Must(t, s.Insert(ctx, item(library.KindNews, "b", "B")))
		contract.Must(t, s.Insert(ctx, item(library.KindNews, "a", "A")))
		contract.Must(t, s.Insert(ctx, item(library.KindTopic, "c", "C")))
		got, err := s.OfKind(ctx, library.KindNews)
		contract.Must(t, err)
		var slugs []string
		for _, d := range got {
			slugs = append(slugs, d.Slug)
			if len(d.Revisions) != 0 || d.Draft["title"] == "" || d.Rev != 1 || d.Status != library.StatusDraft || !d.UpdatedAt.Equal(t0) {
				t.Errorf("listed %+v", d)
			}
		}
		if fmt.Sprint(slugs) != "[a b]" {
			t.Fatalf("OfKind(news) = %v, want [a b]", slugs)
		}
		if got, err := s.OfKind(ctx, library.KindPage); err != nil || len(got) != 0 {
			t.Fatalf("OfKind(page) = %v, %v", got, err)
		}
	})

	t.Run("UpdateFromTheStoredRevisionReplacesAndBumpsWhenAsked", func(t *testing.T) {
		s := open(t)
		d := item(library.KindNews, "launch", "v1")
		contract.Must(t, s.Insert(ctx, d))
		if v, err := s.Version(ctx); err != nil || v != 0 {
			t.Fatalf("Version before any bump = %d, %v; want 0", v, err)
		}
		d2 := next(d, "v2", "bob")
		if v, err := s.Update(ctx, d2, 1, false); err != nil || v != 0 {
			t.Fatalf("Update = %d, %v", v, err)
		}
		d3 := next(d2, "v3", "cy")
		d3.Published, d3.Status = d3.Draft, library.StatusPublished
		v, err := s.Update(ctx, d3, 2, true)
		if err != nil || v != 1 {
			t.Fatalf("Update with bump = %d, %v; want version 1", v, err)
		}
		if got, err := s.Version(ctx); err != nil || got != 1 {
			t.Fatalf("Version = %d, %v; want 1", got, err)
		}
		got, err := s.Get(ctx, d.ID)
		contract.Must(t, err)
		if diff := cmp.Diff(d3, got); diff != "" {
			t.Fatalf("stored (-want +got):\n%s", diff)
		}
	})

	t.Run("AnUpdateFromAStaleRevisionIsRefused", func(t *testing.T) {
		s := open(t)
		d := item(library.KindNews, "launch", "v1")
		contract.Must(t, s.Insert(ctx, d))
		d2 := next(d, "v2", "bob")
		_, err := s.Update(ctx, d2, 1, false)
		contract.Must(t, err)
		if _, err := s.Update(ctx, next(d, "late", "cy"), 1, true); !errors.Is(err, library.ErrStaleRevision) {
			t.Fatalf("Update from revision 1 after revision 2 = %v, want ErrStaleRevision", err)
		}
		if _, err := s.Update(ctx, next(item(library.KindNews, "none", "x"), "y", "cy"), 1, false); !errors.Is(err, library.ErrStaleRevision) {
			t.Fatalf("Update of a missing item = %v, want ErrStaleRevision", err)
		}
		if got, _ := s.Get(ctx, d.ID); got.Draft["title"] != "v2" || got.Rev != 2 {
			t.Fatalf("stored %q at %d, want v2 at 2", got.Draft["title"], got.Rev)
		}
		if v, _ := s.Version(ctx); v != 0 {
			t.Fatalf("a refused update bumped the version to %d", v)
		}
	})

	t.Run("OfSavesSentTogetherFromOneRevisionOneWins", func(t *testing.T) {
		skipUnlessAtomic(t)
		s := open(t)
		d := item(library.KindTopic, "stalkers", "v1")
		contract.Must(t, s.Insert(ctx, d))
		// Several rounds, each of editors who all read the same revision:
		// a race lost once in a while still shows.
		const rounds, editors = 10, 20
		for round := range rounds {
			errs := make([]error, editors)
			var wg sync.WaitGroup
			start := make(chan struct{})
			for i := range editors {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					_, errs[i] = s.Update(ctx, next(d, fmt.Sprint("by ", i), fmt.Sprint("editor", i)), d.Rev, false)
				}()
			}
			close(start)
			wg.Wait()
			winner := -1
			for i, err := range errs {
				switch {
				case err == nil && winner >= 0:
					t.Fatalf("round %d: editor%d and editor%d both replaced revision %d", round, winner, i, d.Rev)
				case err == nil:
					winner = i
				case !errors.Is(err, library.ErrStaleRevision):
					t.Fatalf("editor%d: %v", i, err)
				}
			}
			if winner < 0 {
				t.Fatalf("round %d: no save won", round)
			}
			got, err := s.Get(ctx, d.ID)
			contract.Must(t, err)
			if got.Rev != d.Rev+1 || got.Draft["title"] != fmt.Sprint("by ", winner) || len(got.Revisions) != d.Rev+1 ||
				got.Revisions[d.Rev].By != fmt.Sprint("editor", winner) {
				t.Fatalf("round %d: stored %+v; the winner was editor%d", round, got, winner)
			}
			d = got
		}
	})

	t.Run("BumpsSentTogetherEachGetANumberOfTheirOwn", func(t *testing.T) {
		skipUnlessAtomic(t)
		s := open(t)
		const n = 30
		got := make([]int64, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				got[i], errs[i] = s.Bump(ctx)
			}()
		}
		close(start)
		wg.Wait()
		seen := map[int64]bool{}
		for i, v := range got {
			contract.Must(t, errs[i])
			if seen[v] || v < 1 || v > n {
				t.Fatalf("bump %d got version %d (seen before: %v)", i, v, seen[v])
			}
			seen[v] = true
		}
		if v, err := s.Version(ctx); err != nil || v != n {
			t.Fatalf("Version after %d bumps = %d, %v", n, v, err)
		}
	})

	t.Run("EditorsSavingTogetherLoseNoAcknowledgedSave", func(t *testing.T) {
		skipUnlessAtomic(t)
		s := open(t)
		repo := library.NewRepo(s, engine.NewManualClock(t0))
		_, err := repo.Save(ctx, library.KindTopic, "stalkers", map[string]string{"title": "v0", "description": "D"}, "ann", true)
		contract.Must(t, err)
		const editors = 20
		errs := make([]error, editors)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range editors {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				_, errs[i] = repo.Save(ctx, library.KindTopic, "stalkers",
					map[string]string{"title": fmt.Sprint("by ", i), "description": "D"}, fmt.Sprint("editor", i), false)
			}()
		}
		close(start)
		wg.Wait()
		d, err := repo.Get(ctx, library.KindTopic, "stalkers")
		contract.Must(t, err)
		inHistory := map[string]bool{}
		for i, v := range d.Revisions {
			if i > 0 && v.N != d.Revisions[i-1].N+1 {
				t.Errorf("revision %d follows revision %d", v.N, d.Revisions[i-1].N)
			}
			inHistory[v.By+": "+v.Fields["title"]] = true
		}
		saved := 0
		for i, err := range errs {
			switch {
			case err == nil:
				saved++
				if !inHistory[fmt.Sprintf("editor%d: by %d", i, i)] {
					t.Errorf("editor%d's save succeeded but is not in the history", i)
				}
			case engine.ErrorCode(err) != engine.CodeConflict:
				t.Fatalf("editor%d: %v", i, err)
			}
		}
		if len(d.Revisions) != saved+1 || d.Rev != saved+1 {
			t.Errorf("%d revisions, head at %d, for %d successful saves and the first", len(d.Revisions), d.Rev, saved)
		}
	})

	// The MongoDB store writes a publish's item and then its version: a
	// publish stopped between the two, then retried, must leave what one
	// publish leaves.
	t.Run("APublishStoppedBeforeItsVersionIsCompletedByItsRetry", func(t *testing.T) {
		clock := engine.NewManualClock(t0)
		fields := map[string]string{"title": "T", "date": "2026-11-01", "summary": "S", "body": "B"}
		publishOnce := func(s library.Items) library.Doc {
			repo := library.NewRepo(s, clock)
			_, err := repo.Save(ctx, library.KindNews, "launch", fields, "ann", true)
			contract.Must(t, err)
			d, err := repo.Publish(ctx, library.KindNews, "launch", "bob")
			contract.Must(t, err)
			return d
		}
		single := open(t)
		want := publishOnce(single)

		crashed := open(t)
		repo := library.NewRepo(crashed, clock)
		d, err := repo.Save(ctx, library.KindNews, "launch", fields, "ann", true)
		contract.Must(t, err)
		// The publish's first write alone, as Update writes it before its bump.
		published := d
		published.Published, published.Status = d.Draft, library.StatusPublished
		published.Rev, published.UpdatedBy = 2, "bob"
		published.Revisions = append(append([]library.Revision{}, d.Revisions...), library.Revision{N: 2, At: t0, By: "bob",
			Action: library.ActionPublish, Fields: d.Draft, Changed: []string{}})
		_, err = crashed.Update(ctx, published, 1, false)
		contract.Must(t, err)
		got, err := repo.Publish(ctx, library.KindNews, "launch", "bob")
		contract.Must(t, err)

		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("after a retried publish (-single run +retried):\n%s", diff)
		}
		stored, err := crashed.Get(ctx, d.ID)
		contract.Must(t, err)
		if diff := cmp.Diff(want, stored); diff != "" {
			t.Errorf("stored after a retried publish (-single run +retried):\n%s", diff)
		}
		wantV, _ := single.Version(ctx)
		if v, err := crashed.Version(ctx); err != nil || v != wantV || v != 1 {
			t.Errorf("version after a retried publish = %d, %v; a single run leaves %d", v, err, wantV)
		}
	})
}
