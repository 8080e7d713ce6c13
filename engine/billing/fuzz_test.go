package billing

import (
	"strings"
	"testing"
	"time"
)

// FuzzParseCardForm throws typed card fields at the sandbox page's reader:
// it never panics, an expiry it reads is two or four digits a side, and
// what checkCard then says is one of the buyer's errors or nothing.
func FuzzParseCardForm(f *testing.F) {
	for _, seed := range [][3]string{{"4242 4242 4242 4242", "12 / 30", "123"}, {"", "", ""}, {"4000", "1/2030", "1"},
		{"x", "//", "9999"}, {"4242424242424242", "-1/-30", "123"}} {
		f.Add(seed[0], seed[1], seed[2])
	}
	now := time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, number, expiry, cvc string) {
		card := ParseCardForm(number, expiry, cvc)
		if card.ExpMonth < 0 || card.ExpMonth > 99 || card.ExpYear < 0 || card.ExpYear > 9999 {
			t.Fatalf("expiry %q read as %d/%d", expiry, card.ExpMonth, card.ExpYear)
		}
		if _, err := checkCard(card, now); err != nil && err != ErrCardInvalid && err != ErrCardExpired &&
			err != ErrExpiryInvalid && err != ErrCVCInvalid {
			t.Fatalf("checkCard: %v", err)
		}
	})
}

// FuzzSignedAt throws Stripe-Signature headers at the timestamp reader: it
// never panics and reads only a positive t.
func FuzzSignedAt(f *testing.F) {
	for _, seed := range []string{"t=1700000000,v1=abc", "", "t=", "v1=x,t=-5", "t=99999999999999999999", " t = 1 "} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, header string) {
		at, ok := signedAt(header)
		if ok && (at.Unix() <= 0 || !strings.Contains(header, "t=")) {
			t.Fatalf("%q read as %v", header, at)
		}
	})
}
