package billingtest

import (
	"context"
	"strings"
	"testing"

	"glimpse/engine/billing"
)

// RunLookup is the contract of the support desk's lookups
// (Subscriptions.WithEmailPrefix, WithCard): what they find, in address
// order, never more than asked for.
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
