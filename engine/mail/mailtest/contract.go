// Package mailtest is the contract every implementation of mail.Mails
// keeps, run against each store by its own tests.
package mailtest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"glimpse/engine/mail"
	"glimpse/engine/store/contract"
)

// Options says what the store under test guarantees.
type Options = contract.Options

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

const lease = 5 * time.Minute

// queued is a queued mail to to, created and due at at.
func queued(key, to string, at time.Time) mail.Mail {
	return mail.Mail{ID: key, To: to, Brand: "default", Template: mail.TemplatePasswordReset, Subject: "Reset " + key,
		Text: "text of " + key, HTML: "<p>" + key + "</p>", MessageID: key + "@glimpse.test", Status: mail.StatusQueued,
		CreatedAt: at, NextAttemptAt: at}
}

// Run runs the contract against stores made by open, one per subtest.
func Run(t *testing.T, open func(t *testing.T) mail.Mails, opts Options) {
	ctx := context.Background()

	t.Run("ARoundTripKeepsEveryField", func(t *testing.T) {
		s := open(t)
		want := queued("k1", "Ann@Example.com ", t0)
		want.Attachments = []mail.Attachment{{Name: "profile.pdf", ContentType: "application/pdf", Data: []byte("%PDF-1.7")}}
		want.Status, want.Attempts, want.SentAt, want.NextAttemptAt, want.LastError = mail.StatusFailed, 3, t0.Add(time.Hour), t0.Add(2*time.Hour), "421 later"
		unlisted := queued("k2", "bob@example.com", t0.Add(time.Second))
		unlisted.Unlisted = true
		if n, err := s.Insert(ctx, []mail.Mail{want, unlisted}); err != nil || n != 2 {
			t.Fatalf("Insert = %d, %v; want 2", n, err)
		}
		for _, w := range []mail.Mail{want, unlisted} {
			got, ok, err := s.Get(ctx, w.ID)
			if err != nil || !ok {
				t.Fatalf("Get(%s) = %v, %v", w.ID, ok, err)
			}
			same(t, got, w)
		}
		if _, ok, err := s.Get(ctx, "missing"); ok || err != nil {
			t.Fatalf("Get(missing) = %v, %v", ok, err)
		}
	})

	t.Run("InsertLeavesAStoredKeyAsItIs", func(t *testing.T) {
		s := open(t)
		first := queued("k", "ann@example.com", t0)
		contract.Must(t, insert(ctx, s, first))
		again := queued("k", "bob@example.com", t0.Add(time.Hour))
		again.Subject = "another"
		n, err := s.Insert(ctx, []mail.Mail{queued("new", "c@example.com", t0), again, queued("new", "d@example.com", t0)})
		if err != nil || n != 1 {
			t.Fatalf("Insert = %d, %v; want only the first new key stored", n, err)
		}
		got, _, _ := s.Get(ctx, "k")
		same(t, got, first)
		if got, _, _ := s.Get(ctx, "new"); got.To != "c@example.com" {
			t.Fatalf("the first of two mails with one key in a batch should be kept, got %+v", got)
		}
	})

	t.Run("AKeyInsertedTogetherIsOneMail", func(t *testing.T) {
		s := open(t)
		const callers, rounds = 20, 30
		// Readers opened beforehand, as on a running server: the callers
		// race from the first statement.
		var warm sync.WaitGroup
		for range callers {
			warm.Go(func() { _, _, _ = s.Get(ctx, "warm-up") })
		}
		warm.Wait()
		for round := range rounds {
			key := fmt.Sprint("once", round)
			var wg sync.WaitGroup
			start := make(chan struct{})
			added := make([]int, callers)
			errs := make([]error, callers)
			for i := range callers {
				wg.Go(func() {
					m := queued(key, "ann@example.com", t0.Add(time.Duration(round)*time.Second))
					m.Subject = fmt.Sprint("caller ", i)
					<-start
					added[i], errs[i] = s.Insert(ctx, []mail.Mail{m})
				})
			}
			close(start)
			wg.Wait()
			winner := -1
			for i := range callers {
				contract.Must(t, errs[i])
				if added[i] == 1 {
					if winner >= 0 {
						t.Fatalf("%s: callers %d and %d were both told they stored the mail", key, winner, i)
					}
					winner = i
				}
			}
			got, ok, err := s.Get(ctx, key)
			if winner < 0 || err != nil || !ok || got.Subject != fmt.Sprint("caller ", winner) {
				t.Fatalf("%s: stored %+v (%v, %v); want the one mail caller %d stored", key, got, ok, err, winner)
			}
		}
		if got, err := s.To(ctx, "ann@example.com", 0); err != nil || len(got) != rounds {
			t.Fatalf("To = %v, %v; want %d mails", keys(got), err, rounds)
		}
	})

	t.Run("GetManyReturnsThoseStored", func(t *testing.T) {
		s := open(t)
		contract.Must(t, insert(ctx, s, queued("a", "x@example.com", t0), queued("b", "x@example.com", t0), queued("c", "x@example.com", t0)))
		got, err := s.GetMany(ctx, []string{"c", "missing", "a"})
		if err != nil || sorted(got) != "[a c]" {
			t.Fatalf("GetMany = %s, %v; want [a c]", sorted(got), err)
		}
		if got, err := s.GetMany(ctx, nil); err != nil || len(got) != 0 {
			t.Fatalf("GetMany(nil) = %v, %v", keys(got), err)
		}
	})

	// A person with years of receipts: more keys than one statement may
	// carry on some engines.
	t.Run("GetManyAndDeleteTakeManyKeys", func(t *testing.T) {
		s := open(t)
		const n = 1200
		var batch []mail.Mail
		var all []string
		for i := range n {
			m := queued(fmt.Sprint("receipt:", i), "x@example.com", t0)
			m.HTML = ""
			batch = append(batch, m)
			all = append(all, m.ID)
		}
		contract.Must(t, insert(ctx, s, batch...))
		if got, err := s.GetMany(ctx, all); err != nil || len(got) != n {
			t.Fatalf("GetMany read %d of %d (%v)", len(got), n, err)
		}
		if deleted, err := s.Delete(ctx, all[:n-1]); err != nil || deleted != n-1 {
			t.Fatalf("Delete = %d, %v; want %d", deleted, err, n-1)
		}
		if got, _ := s.To(ctx, "x@example.com", 0); fmt.Sprint(keys(got)) != fmt.Sprint(all[n-1:]) {
			t.Fatalf("left %v", keys(got))
		}
	})

	t.Run("NewestIsNewestFirstAndLimited", func(t *testing.T) {
		s := open(t)
		for i := range 5 {
			contract.Must(t, insert(ctx, s, queued(fmt.Sprint("m", i), "x@example.com", t0.Add(time.Duration(i)*time.Minute))))
		}
		contract.Must(t, insert(ctx, s, queued("m5", "y@example.com", t0.Add(4*time.Minute)))) // ties with m4: the greater key first
		got, err := s.Newest(ctx, t0.Add(4*time.Minute), 3)
		if err != nil || fmt.Sprint(keys(got)) != "[m5 m4 m3]" {
			t.Fatalf("Newest = %v, %v; want [m5 m4 m3]", keys(got), err)
		}
		got, err = s.Newest(ctx, t0.Add(3*time.Minute-time.Nanosecond), 10)
		if err != nil || fmt.Sprint(keys(got)) != "[m2 m1 m0]" {
			t.Fatalf("Newest as of before m3 = %v, %v; want [m2 m1 m0]", keys(got), err)
		}
	})

	t.Run("ToIsTheRecipientsListedMailsNewestFirst", func(t *testing.T) {
		s := open(t)
		unlisted := queued("receipt", "ann@example.com", t0.Add(time.Hour))
		unlisted.Unlisted = true
		contract.Must(t, insert(ctx, s, queued("a1", " Ann@Example.COM", t0), queued("a2", "ann@example.com", t0.Add(time.Minute)),
			queued("a3", "ann@example.com", t0.Add(2*time.Minute)), queued("b1", "bob@example.com", t0.Add(time.Minute)), unlisted))
		if got, err := s.To(ctx, "ann@example.com", 0); err != nil || fmt.Sprint(keys(got)) != "[a3 a2 a1]" {
			t.Fatalf("To(ann) = %v, %v; want [a3 a2 a1]", keys(got), err)
		}
		if got, err := s.To(ctx, "ann@example.com", 2); err != nil || fmt.Sprint(keys(got)) != "[a3 a2]" {
			t.Fatalf("To(ann, 2) = %v, %v; want [a3 a2]", keys(got), err)
		}
		if got, err := s.To(ctx, "nobody@example.com", 0); err != nil || len(got) != 0 {
			t.Fatalf("To(nobody) = %v, %v", keys(got), err)
		}
	})

	t.Run("ClaimDueClaimsTheEarliestDueUntilTheLeaseEnds", func(t *testing.T) {
		s := open(t)
		sent := queued("sent", "x@example.com", t0.Add(-time.Hour))
		sent.Status, sent.NextAttemptAt, sent.SentAt = mail.StatusSent, time.Time{}, t0.Add(-time.Hour)
		contract.Must(t, insert(ctx, s, queued("late", "x@example.com", t0.Add(-time.Minute)), queued("early", "x@example.com", t0.Add(-time.Hour)),
			queued("middle", "x@example.com", t0.Add(-10*time.Minute)), queued("future", "x@example.com", t0.Add(time.Minute)), sent))
		got, err := s.ClaimDue(ctx, t0, lease, 2)
		if err != nil || sorted(got) != "[early middle]" {
			t.Fatalf("ClaimDue = %s, %v; want [early middle]", sorted(got), err)
		}
		for _, m := range got {
			if m.Attempts != 1 || !m.NextAttemptAt.Equal(t0.Add(lease)) || m.Status != mail.StatusQueued || m.Text == "" {
				t.Fatalf("claimed %+v; want attempt 1 leased until %v", m, t0.Add(lease))
			}
		}
		if stored, _, _ := s.Get(ctx, "early"); stored.Attempts != 1 || !stored.NextAttemptAt.Equal(t0.Add(lease)) {
			t.Fatalf("stored after the claim: %+v", stored)
		}
		if got, err := s.ClaimDue(ctx, t0, lease, 10); err != nil || sorted(got) != "[late]" {
			t.Fatalf("second ClaimDue = %s, %v; want [late] (the claimed ones are leased)", sorted(got), err)
		}
		// The workers died: once the lease ends, each is claimed again, as
		// its next attempt.
		got, err = s.ClaimDue(ctx, t0.Add(lease), lease, 10)
		if err != nil || sorted(got) != "[early future late middle]" {
			t.Fatalf("ClaimDue after the lease = %s, %v", sorted(got), err)
		}
		for _, m := range got {
			if want := map[string]int{"future": 1}[m.ID]; (want == 0 && m.Attempts != 2) || (want == 1 && m.Attempts != 1) {
				t.Fatalf("%s claimed at attempt %d", m.ID, m.Attempts)
			}
		}
	})

	t.Run("RecordStoresTheOutcomeOnlyUnderItsClaim", func(t *testing.T) {
		s := open(t)
		contract.Must(t, insert(ctx, s, queued("a", "x@example.com", t0), queued("b", "x@example.com", t0)))
		claimed, err := s.ClaimDue(ctx, t0, lease, 2)
		if err != nil || len(claimed) != 2 {
			t.Fatalf("ClaimDue = %s, %v", sorted(claimed), err)
		}
		slices.SortFunc(claimed, func(x, y mail.Mail) int { return strings.Compare(x.ID, y.ID) })
		a, b := claimed[0], claimed[1]
		a.Status, a.SentAt, a.NextAttemptAt, a.LastError = mail.StatusSent, t0.Add(time.Second), time.Time{}, ""
		if ok, err := s.Record(ctx, a); !ok || err != nil {
			t.Fatalf("Record(sent) = %v, %v", ok, err)
		}
		got, _, _ := s.Get(ctx, "a")
		if got.Status != mail.StatusSent || !got.SentAt.Equal(t0.Add(time.Second)) || !got.NextAttemptAt.IsZero() || got.Attempts != 1 {
			t.Fatalf("after Record(sent): %+v", got)
		}
		if ok, err := s.Record(ctx, a); ok || err != nil {
			t.Fatalf("a second Record of a sent mail = %v, %v; want refused", ok, err)
		}
		// b's worker outlives its lease: another claims b, and the first
		// worker's late outcome is refused.
		if again, err := s.ClaimDue(ctx, t0.Add(lease), lease, 10); err != nil || sorted(again) != "[b]" {
			t.Fatalf("ClaimDue after the lease = %s, %v", sorted(again), err)
		}
		b.NextAttemptAt, b.LastError = t0.Add(time.Minute), "timeout"
		if ok, err := s.Record(ctx, b); ok || err != nil {
			t.Fatalf("Record under a lapsed claim = %v, %v; want refused", ok, err)
		}
		got, _, _ = s.Get(ctx, "b")
		if got.Attempts != 2 || got.LastError != "" || !got.NextAttemptAt.Equal(t0.Add(2*lease)) {
			t.Fatalf("b after the refused record: %+v", got)
		}
		b.Attempts, b.NextAttemptAt, b.LastError = 2, t0.Add(time.Hour), "421 later"
		if ok, err := s.Record(ctx, b); !ok || err != nil {
			t.Fatalf("Record(retry) = %v, %v", ok, err)
		}
		got, _, _ = s.Get(ctx, "b")
		if got.Status != mail.StatusQueued || !got.NextAttemptAt.Equal(t0.Add(time.Hour)) || got.LastError != "421 later" {
			t.Fatalf("b after Record(retry): %+v", got)
		}
		if due, _ := s.ClaimDue(ctx, t0.Add(time.Hour-time.Second), lease, 10); len(due) != 0 {
			t.Fatalf("claimed %s before its retry", sorted(due))
		}
	})

	t.Run("QueuedCountsAndFindsTheOldest", func(t *testing.T) {
		s := open(t)
		if n, oldest, err := s.Queued(ctx); n != 0 || !oldest.IsZero() || err != nil {
			t.Fatalf("Queued(empty) = %d, %v, %v", n, oldest, err)
		}
		old := queued("old", "x@example.com", t0.Add(-time.Hour))
		old.NextAttemptAt = t0.Add(time.Hour) // a retry, due later than the others
		sent := queued("sent", "x@example.com", t0.Add(-2*time.Hour))
		sent.Status = mail.StatusSent
		contract.Must(t, insert(ctx, s, queued("a", "x@example.com", t0), old, sent))
		if n, oldest, err := s.Queued(ctx); n != 2 || !oldest.Equal(t0.Add(-time.Hour)) || err != nil {
			t.Fatalf("Queued = %d, %v, %v; want 2, %v", n, oldest, err, t0.Add(-time.Hour))
		}
	})

	t.Run("DeleteAndDeleteDone", func(t *testing.T) {
		s := open(t)
		sent := queued("sent", "x@example.com", t0)
		sent.Status = mail.StatusSent
		failed := queued("failed", "x@example.com", t0)
		failed.Status = mail.StatusFailed
		contract.Must(t, insert(ctx, s, queued("q", "x@example.com", t0), sent, failed, queued("q2", "x@example.com", t0), queued("q3", "x@example.com", t0)))
		for key, want := range map[string]bool{"q": false, "sent": true, "failed": true, "missing": false} {
			if ok, err := s.DeleteDone(ctx, key); ok != want || err != nil {
				t.Fatalf("DeleteDone(%s) = %v, %v; want %v", key, ok, err, want)
			}
		}
		if n, err := s.Delete(ctx, []string{"q", "q2", "missing"}); n != 2 || err != nil {
			t.Fatalf("Delete = %d, %v; want 2", n, err)
		}
		if got, _ := s.To(ctx, "x@example.com", 0); fmt.Sprint(keys(got)) != "[q3]" {
			t.Fatalf("left %v", keys(got))
		}
	})

	// A batch insert stopped halfway (the process died, or the batch was
	// cut) and sent again leaves what one whole run leaves.
	t.Run("AnInsertStoppedHalfwayAndRunAgainIsOneRun", func(t *testing.T) {
		var batch []mail.Mail
		for i := range 10 {
			batch = append(batch, queued(fmt.Sprint("r", i), "x@example.com", t0.Add(time.Duration(i)*time.Second)))
		}
		once, crashed := open(t), open(t)
		contract.Must(t, insert(ctx, once, batch...))
		contract.Must(t, insert(ctx, crashed, batch[:4]...))
		if n, err := crashed.Insert(ctx, batch); n != 6 || err != nil {
			t.Fatalf("the rerun stored %d, %v; want the 6 left", n, err)
		}
		a, _ := once.To(ctx, "x@example.com", 0)
		b, _ := crashed.To(ctx, "x@example.com", 0)
		if len(a) != len(b) {
			t.Fatalf("one run left %v, a stopped run and its rerun %v", keys(a), keys(b))
		}
		for i := range a {
			same(t, b[i], a[i])
		}
	})

	// A delivery stopped between its claim and its record (the worker died)
	// is claimed again once its lease ends, as its next attempt, and no
	// other worker claims it before then.
	t.Run("AnAttemptStoppedBeforeItsRecordIsClaimedAgainAfterTheLease", func(t *testing.T) {
		s := open(t)
		contract.Must(t, insert(ctx, s, queued("a", "x@example.com", t0)))
		if got, _ := s.ClaimDue(ctx, t0, lease, 1); len(got) != 1 {
			t.Fatal("not claimed")
		}
		if got, _ := s.ClaimDue(ctx, t0.Add(lease-time.Nanosecond), lease, 1); len(got) != 0 {
			t.Fatalf("claimed again within the lease: %+v", got)
		}
		got, err := s.ClaimDue(ctx, t0.Add(lease), lease, 1)
		if err != nil || len(got) != 1 || got[0].Attempts != 2 {
			t.Fatalf("after the lease: %+v, %v", got, err)
		}
		got[0].Status, got[0].SentAt, got[0].NextAttemptAt = mail.StatusSent, t0.Add(lease), time.Time{}
		if ok, err := s.Record(ctx, got[0]); !ok || err != nil {
			t.Fatalf("Record = %v, %v", ok, err)
		}
	})

	// Workers claiming together each get their own mails: every mail is
	// leased once per lease period, whichever worker asks.
	t.Run("WorkersTogetherLeaseEachMailOncePerLease", func(t *testing.T) {
		if !opts.Atomic {
			t.Skip("FerretDB: conditional updates are not atomic; run with GLIMPSE_TEST_MONGODB_URI")
		}
		s := open(t)
		const mails, workers = 60, 8
		var batch []mail.Mail
		for i := range mails {
			batch = append(batch, queued(fmt.Sprint("w", i), "x@example.com", t0.Add(-time.Duration(i%7)*time.Second)))
		}
		contract.Must(t, insert(ctx, s, batch...))
		for period := range 2 {
			now := t0.Add(time.Duration(period) * lease)
			var mu sync.Mutex
			leased := map[string]int{}
			var wg sync.WaitGroup
			for range workers {
				wg.Go(func() {
					for {
						got, err := s.ClaimDue(ctx, now, lease, 3)
						if err != nil {
							t.Error(err)
							return
						}
						if len(got) == 0 {
							return
						}
						mu.Lock()
						for _, m := range got {
							leased[m.ID]++
							if m.Attempts != period+1 {
								t.Errorf("%s leased at attempt %d in period %d", m.ID, m.Attempts, period)
							}
						}
						mu.Unlock()
					}
				})
			}
			wg.Wait()
			if len(leased) != mails {
				t.Fatalf("period %d: %d of %d mails leased", period, len(leased), mails)
			}
			for id, n := range leased {
				if n != 1 {
					t.Errorf("period %d: %s leased %d times", period, id, n)
				}
			}
		}
	})
}

func insert(ctx context.Context, s mail.Mails, mails ...mail.Mail) error {
	n, err := s.Insert(ctx, mails)
	if err == nil && n != len(mails) {
		err = fmt.Errorf("stored %d of %d new mails", n, len(mails))
	}
	return err
}

// same fails the test unless got is want, field by field.
func same(t *testing.T, got, want mail.Mail) {
	t.Helper()
	if got.ID != want.ID || got.To != want.To || got.Brand != want.Brand || got.Template != want.Template ||
		got.Subject != want.Subject || got.Text != want.Text || got.HTML != want.HTML || got.MessageID != want.MessageID ||
		got.Unlisted != want.Unlisted || got.Status != want.Status || got.Attempts != want.Attempts ||
		!got.CreatedAt.Equal(want.CreatedAt) || !got.NextAttemptAt.Equal(want.NextAttemptAt) || !got.SentAt.Equal(want.SentAt) ||
		got.LastError != want.LastError || len(got.Attachments) != len(want.Attachments) {
		t.Fatalf("read back %+v\nwrote %+v", got, want)
	}
	for i, a := range want.Attachments {
		g := got.Attachments[i]
		if g.Name != a.Name || g.ContentType != a.ContentType || string(g.Data) != string(a.Data) {
			t.Fatalf("attachment %d read back %+v, wrote %+v", i, g, a)
		}
	}
}

func keys(mails []mail.Mail) []string {
	out := make([]string, len(mails))
	for i, m := range mails {
		out[i] = m.ID
	}
	return out
}

func sorted(mails []mail.Mail) string {
	k := keys(mails)
	slices.Sort(k)
	return fmt.Sprint(k)
}
