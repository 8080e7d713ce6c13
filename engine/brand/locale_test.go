package brand

import (
	"testing"
	"time"
)

func TestDate(t *testing.T) {
	t.Parallel()
	saoPaulo := time.FixedZone("BRT", -3*60*60)
	tests := []struct {
		name           string
		at             time.Time
		date, dateTime string
	}{
		{"UTC", time.Date(2026, 11, 29, 9, 5, 59, 0, time.UTC), "Nov 29, 2026", "Nov 29, 2026, 09:05 UTC"},
		{"single-digit day", time.Date(2026, 3, 1, 23, 0, 0, 0, time.UTC), "Mar 1, 2026", "Mar 1, 2026, 23:00 UTC"},
		// The day stays t's own; the instant is told in UTC.
		{"another zone", time.Date(2026, 12, 31, 22, 30, 0, 0, saoPaulo), "Dec 31, 2026", "Jan 1, 2027, 01:30 UTC"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Date(tt.at); got != tt.date {
				t.Errorf("Date = %q, want %q", got, tt.date)
			}
			if got := DateTime(tt.at); got != tt.dateTime {
				t.Errorf("DateTime = %q, want %q", got, tt.dateTime)
			}
		})
	}
}

func TestCardLabel(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, network, last4, want string
	}{
		{"visa", "visa", "4242", "Visa ••4242"},
		{"mastercard", "mastercard", "4444", "Mastercard ••4444"},
		{"amex is spelled out", "amex", "0005", "American Express ••0005"},
		{"initialism", "jcb", "0505", "JCB ••0505"},
		{"two words", "diners", "0004", "Diners Club ••0004"},
		{"unknown network", "unknown", "1234", "Card ••1234"},
		{"sandbox's unknown network", "card", "1234", "Card ••1234"},
		{"no network", "", "1234", "Card ••1234"},
		{"a code not listed yet", "new_network", "9999", "New network ••9999"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := CardLabel(tt.network, tt.last4); got != tt.want {
				t.Errorf("CardLabel(%q, %q) = %q, want %q", tt.network, tt.last4, got, tt.want)
			}
		})
	}
}
