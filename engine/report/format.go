package report

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// thousands formats n with a comma between groups of three digits:
// 12345 → "12,345".
func thousands(n int) string {
	digits := strconv.Itoa(n)
	sign := ""
	if n < 0 {
		sign, digits = "-", digits[1:]
	}
	var b strings.Builder
	for i, r := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return sign + b.String()
}

// decimal formats v with places decimals and thousands separators:
// decimal(12345.678, 1) → "12,345.7".
func decimal(v float64, places int) string {
	s := strconv.FormatFloat(math.Abs(v), 'f', places, 64)
	whole, fraction, _ := strings.Cut(s, ".")
	n, _ := strconv.Atoi(whole)
	out := thousands(n)
	if fraction != "" {
		out += "." + fraction
	}
	if v < 0 && strings.Trim(s, "0.") != "" {
		out = "-" + out
	}
	return out
}

// percent formats a rate in percent with two decimals: "3.45 %".
func percent(v float64) string { return decimal(v, 2) + " %" }

// plural returns "1 like" or "N likes" with thousands separators.
func plural(n int, singular, many string) string {
	if n == 1 {
		return "1 " + singular
	}
	return thousands(n) + " " + many
}

// day formats a date as the analysis package does: "2 Jan 2006".
func day(t time.Time) string { return t.Format("2 Jan 2006") }

// shortDay formats a chart axis date: "2 Jan".
func shortDay(t time.Time) string { return t.Format("2 Jan") }
