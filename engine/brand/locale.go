package brand

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Every brand's copy is in English (content/brands), so dates and payment
// cards are written here the way English readers expect them, once for every
// screen, mail and page; a brand with a language of its own would make these
// methods of Brand.

// Date writes a calendar day as the copy does: "Nov 29, 2026". The day is
// t's own, in t's location; the server keeps its times in UTC.
func Date(t time.Time) string { return t.Format("Jan 2, 2006") }

// DateTime writes an instant to the minute, in UTC and saying so, for what a
// person may want to place in their day (when a check ran, when a revision
// was saved, when a mail was queued): "Nov 1, 2026, 12:00 UTC".
func DateTime(t time.Time) string { return t.UTC().Format("Jan 2, 2006, 15:04 UTC") }

// cardNetworks names the card networks as they print themselves, keyed by
// Stripe's card brand codes
// (https://docs.stripe.com/api/payment_methods/object#payment_method_object-card-brand),
// which the sandbox provider uses too.
var cardNetworks = map[string]string{
	"amex":             "American Express",
	"cartes_bancaires": "Cartes Bancaires",
	"diners":           "Diners Club",
	"discover":         "Discover",
	"eftpos_au":        "eftpos",
	"interac":          "Interac",
	"jcb":              "JCB",
	"link":             "Link",
	"mastercard":       "Mastercard",
	"unionpay":         "UnionPay",
	"visa":             "Visa",
}

// CardLabel names a payment card as its holder knows it, by network and last
// four digits: CardLabel("visa", "4242") is "Visa ••4242". network is the
// provider's code for the card's network; an unknown or missing one reads
// "Card", and a code not listed yet is shown capitalised rather than hidden.
func CardLabel(network, last4 string) string {
	name, ok := cardNetworks[network]
	switch {
	case ok:
	case network == "" || network == "unknown" || network == "card":
		name = "Card"
	default:
		first, size := utf8.DecodeRuneInString(network)
		name = string(unicode.ToUpper(first)) + strings.ReplaceAll(network[size:], "_", " ")
	}
	return name + " ••" + last4
}
