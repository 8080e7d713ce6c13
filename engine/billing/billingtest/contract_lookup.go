package billingtest

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"glimpse/engine/billing"
)

// RunLookup is the contract of the support desk's lookups
// (Subscriptions.WithEmailPrefix, WithEmailContaining, WithCard): what they
// find, in address order, never more than asked for.
func RunLookup(t *testing.T, open func(t *testing.T) billing.Store) {
	ctx := context.Background()
	emails := func(subs []billing.Subscription) string {
		out := make([]string, len(subs))
		for i, s := range subs {
			out[i] = s.Email
		}
		return strings.Join(out, " ")
	}
	seed := func(t *testing.T) billing.Subscriptions {
		subs := open(t).Subscriptions()
		for i, e := range []string{"demo@example.com", "dembo@example.com", "demo.two@example.com", "dem@example.com", "zed@example.com", "démo@example.com"} {
			s := Plan("s"+string(rune('a'+i)), e)
			if i%2 == 1 {
				s.PaymentMethod.Last4 = "0005"
			}
			if e == "dem@example.com" {
				s.PaymentMethod = billing.PaymentMethod{}
			}
			if _, _, err := subs.Create(ctx, s, billing.Effects{}); err != nil {
				t.Fatal(err)
			}
		}
		return subs
	}

	t.Run("AnAddressIsFoundByItsStartInAddressOrder", func(t *testing.T) {
		subs := seed(t)
		for _, c := range []struct {
			prefix string
			n      int
			want   string
		}{
			{"demo", 10, "demo.two@example.com demo@example.com"},
			{"dem", 10, "dem@example.com dembo@example.com demo.two@example.com demo@example.com"},
			{"dem", 2, "dem@example.com dembo@example.com"},
			{"démo", 10, "démo@example.com"},
			{"demo@example.com", 10, "demo@example.com"},
			{"nobody", 10, ""},
			{"", 10, ""},
			{"dem", 0, ""},
		} {
			got, err := subs.WithEmailPrefix(ctx, c.prefix, c.n)
			if err != nil || emails(got) != c.want {
				t.Errorf("WithEmailPrefix(%q, %d) = %q, %v; want %q", c.prefix, c.n, emails(got), err, c.want)
			}
		}
	})

	t.Run("AnAddressIsFoundByAPartInsideItInAddressOrder", func(t *testing.T) {
		subs := seed(t)
		for i, e := range []string{"jane.smith@example.org", "smith@mail.test"} {
			if _, _, err := subs.Create(ctx, Plan("m"+string(rune('a'+i)), e), billing.Effects{}); err != nil {
				t.Fatal(err)
			}
		}
		all := "dem@example.com dembo@example.com demo.two@example.com demo@example.com démo@example.com zed@example.com"
		for _, c := range []struct {
			part string
			n    int
			want string
		}{
			{"example.com", 10, all},
			{"smith", 10, "jane.smith@example.org smith@mail.test"},
			{"mo@exam", 10, "demo@example.com démo@example.com"},
			{"demo@example.com", 10, "demo@example.com"},
			{".two", 10, "demo.two@example.com"},
			// The part is text, not a pattern: "o.e" is not "mo@e".
			{"o.e", 10, ""},
			{"mo(", 10, ""},
			{`a"b`, 10, ""},
			{"@ex*", 10, ""},
			{"nobody", 10, ""},
			// Shorter than MinContaining: nothing, even where it occurs.
			{"ex", 10, ""},
			{"mo\x00@", 10, ""},
			{"", 10, ""},
			{"example.com", 0, ""},
		} {
			got, err := subs.WithEmailContaining(ctx, c.part, c.n)
			if err != nil || emails(got) != c.want {
				t.Errorf("WithEmailContaining(%q, %d) = %q, %v; want %q", c.part, c.n, emails(got), err, c.want)
			}
		}
		// More than n contain it: n of them (which n is the store's), in
		// address order.
		got, err := subs.WithEmailContaining(ctx, "example", 3)
		if err != nil || len(got) != 3 || !slices.IsSortedFunc(got, func(a, b billing.Subscription) int { return strings.Compare(a.Email, b.Email) }) {
			t.Fatalf("WithEmailContaining(example, 3) = %q, %v", emails(got), err)
		}
		for _, s := range got {
			if !strings.Contains(s.Email, "example") {
				t.Errorf("WithEmailContaining(example, 3) found %s", s.Email)
			}
		}
	})

	t.Run("APartFollowsAnAddressChangedErasedOrDeleted", func(t *testing.T) {
		subs := seed(t)
		find := func(part string) string {
			t.Helper()
			got, err := subs.WithEmailContaining(ctx, part, 10)
			if err != nil {
				t.Fatal(err)
			}
			return emails(got)
		}
		// An address changed is found by a part of the new one only.
		s, err := subs.Get(ctx, "sb")
		if err != nil {
			t.Fatal(err)
		}
		s.Email, s.Emails = "ann.smith@example.net", append(s.Emails, "ann.smith@example.net")
		if _, err := subs.Apply(ctx, s, billing.Effects{}); err != nil {
			t.Fatal(err)
		}
		if got := find("smith"); got != "ann.smith@example.net" {
			t.Errorf("smith after the change: %q", got)
		}
		if got := find("dembo"); got != "" {
			t.Errorf("dembo after the change: %q", got)
		}
		// An erased subscription (its address rewritten) is found by no
		// part of the old address, nor of the word that replaced it.
		s, err = subs.Get(ctx, "sa")
		if err != nil {
			t.Fatal(err)
		}
		retain := t0.AddDate(10, 0, 0)
		if _, err := subs.Apply(ctx, s.Erase(t0, retain), billing.Effects{}); err != nil {
			t.Fatal(err)
		}
		if got := find("mo@exam"); got != "démo@example.com" {
			t.Errorf("mo@exam after demo@example.com's erasure: %q", got)
		}
		if got := find(billing.ErasedEmail[1:4]); got != "" {
			t.Errorf("%q finds %q", billing.ErasedEmail[1:4], got)
		}
		// Deleted (the erased one's retention over), it stays unfound, and
		// the rest are found as before.
		if purged, err := subs.Purge(ctx, "sa", retain.Add(time.Hour)); err != nil || !purged {
			t.Fatalf("purge: %v, %v", purged, err)
		}
		if got := find("example"); got != "ann.smith@example.net dem@example.com demo.two@example.com démo@example.com zed@example.com" {
			t.Errorf("example after the purge: %q", got)
		}
	})

	t.Run("ACardIsFoundByItsLastFourInAddressOrder", func(t *testing.T) {
		subs := seed(t)
		for _, c := range []struct {
			last4 string
			n     int
			want  string
		}{
			{"4242", 10, "demo.two@example.com demo@example.com zed@example.com"},
			{"4242", 1, "demo.two@example.com"},
			{"0005", 10, "dembo@example.com démo@example.com"},
			{"9999", 10, ""},
			{"", 10, ""},
		} {
			got, err := subs.WithCard(ctx, c.last4, c.n)
			if err != nil || emails(got) != c.want {
				t.Errorf("WithCard(%q, %d) = %q, %v; want %q", c.last4, c.n, emails(got), err, c.want)
			}
		}
		// A card changed is found by its new number only.
		s, err := subs.Get(ctx, "sa")
		if err != nil {
			t.Fatal(err)
		}
		s.PaymentMethod.Last4 = "1881"
		if _, err := subs.Apply(ctx, s, billing.Effects{}); err != nil {
			t.Fatal(err)
		}
		if got, err := subs.WithCard(ctx, "1881", 10); err != nil || emails(got) != "demo@example.com" {
			t.Errorf("WithCard(1881) after the change = %q, %v", emails(got), err)
		}
		if got, err := subs.WithCard(ctx, "4242", 10); err != nil || emails(got) != "demo.two@example.com zed@example.com" {
			t.Errorf("WithCard(4242) after the change = %q, %v", emails(got), err)
		}
	})
}
