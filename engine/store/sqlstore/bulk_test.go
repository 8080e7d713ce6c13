package sqlstore_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"glimpse/engine/auth"
	"glimpse/engine/mail"
	"glimpse/engine/store/sqlstore"
	"glimpse/engine/tracking"
)

// The bulk inserts split a batch into multi-row statements of a few hundred
// parameters: batches of many statements, with a remainder, must write every
// row once with its own values, skip taken keys across statement boundaries,
// and write nothing when one row fails.
func TestBulkInsertsSpanManyStatements(t *testing.T) {
	ctx := context.Background()
	t0 := time.Date(2026, 11, 29, 7, 0, 0, 0, time.UTC)

	t.Run("EveryEventWithItsValues", func(t *testing.T) {
		s := sqlstore.NewEvents(openDB(t))
		const n = 1001 // 42 rows a statement: 23 full statements and a remainder
		var batch []tracking.Event
		for i := range n {
			at := t0.Add(time.Duration(i) * time.Second)
			batch = append(batch, tracking.Event{ID: fmt.Sprintf("e%04d", i), Name: fmt.Sprintf("name%d", i),
				Brand: "b", Project: "p", UserID: fmt.Sprintf("u%d", i%7), At: at, ExpiresAt: at.Add(time.Hour)})
		}
		if err := s.InsertMany(ctx, batch); err != nil {
			t.Fatal(err)
		}
		seen := 0
		for u := range 7 {
			got, err := s.OfUser(ctx, fmt.Sprintf("u%d", u), t0)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range got {
				var i int
				if _, err := fmt.Sscanf(e.ID, "e%04d", &i); err != nil {
					t.Fatal(err)
				}
				if e.Name != fmt.Sprintf("name%d", i) || e.UserID != fmt.Sprintf("u%d", i%7) || !e.At.Equal(t0.Add(time.Duration(i)*time.Second)) {
					t.Fatalf("event %s = %+v: not the values it was written with", e.ID, e)
				}
				seen++
			}
		}
		if seen != n {
			t.Fatalf("read %d events back, want %d", seen, n)
		}
	})

	t.Run("TakenKeysSkippedAcrossStatements", func(t *testing.T) {
		s := sqlstore.NewMails(openDB(t))
		// 28 rows a statement: the second half repeats the first half's keys,
		// in later statements.
		var batch []mail.Mail
		for i := range 600 {
			key := fmt.Sprintf("k%03d", i%300)
			batch = append(batch, mail.Mail{ID: key, To: fmt.Sprintf("to%d@example.com", i), Brand: "b", Subject: key,
				Text: key, MessageID: key + "@glimpse.test", Status: mail.StatusQueued, CreatedAt: t0, NextAttemptAt: t0})
		}
		n, err := s.Insert(ctx, batch)
		if err != nil || n != 300 {
			t.Fatalf("Insert = %d, %v; want 300 new", n, err)
		}
		m, ok, err := s.Get(ctx, "k299")
		if err != nil || !ok || m.To != "to299@example.com" {
			t.Fatalf("k299 = %+v, %v, %v; want the first mail of that key", m, ok, err)
		}
	})

	t.Run("OneTakenAddressWritesNone", func(t *testing.T) {
		s := sqlstore.NewUsers(openDB(t))
		var batch []auth.User
		for i := range 200 {
			batch = append(batch, auth.User{ID: fmt.Sprintf("u%03d", i), Email: fmt.Sprintf("a%d@x", i), PasswordHash: "h", CreatedAt: t0})
		}
		batch[150].Email = batch[3].Email
		if err := s.CreateMany(ctx, batch); !errors.Is(err, auth.ErrEmailTaken) {
			t.Fatalf("CreateMany with a taken address = %v, want auth.ErrEmailTaken", err)
		}
		if _, err := s.ByID(ctx, "u000"); !errors.Is(err, auth.ErrUserNotFound) {
			t.Fatalf("after a failed CreateMany, u000 = %v; want no such account", err)
		}
	})
}
