package support

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

// A receipt number is read as people quote it: any case, with its dashes,
// without them or with spaces; anything else is not one.
func TestReceiptNumberReadsWhatPeopleQuote(t *testing.T) {
	for q, want := range map[string]string{
		"KAYY-SDRR-SN4N": "KAYY-SDRR-SN4N", "kayysdrrsn4n": "KAYY-SDRR-SN4N", "kayy sdrr sn4n": "KAYY-SDRR-SN4N",
		"KAYY-SDRR": "", "demo": "", "ch_f824a77a7fe936af22a4dcba": "", "ann@example.co": "", "KAYY-SDRR-SN4N-1": "",
	} {
		got, ok := receiptNumber(q)
		if got != want || ok != (want != "") {
			t.Errorf("receiptNumber(%q) = %q, %v; want %q", q, got, ok, want)
		}
	}
	for q, want := range map[string]bool{"4242": true, "0005": true, "424": false, "42424": false, "42a2": false, "٤٢٤٢": false} {
		if got := isLast4(q); got != want {
			t.Errorf("isLast4(%q) = %v", q, got)
		}
	}
}

// Whatever is typed, the readers of a query never panic, and what they
// accept is well-formed: a receipt number of 14 characters in its
// alphabet's shape, a last four of four ASCII digits.
func FuzzSearchQuery(f *testing.F) {
	for _, seed := range []string{"demo", "4242", "KAYY-SDRR-SN4N", "kayysdrrsn4n", "ch_x", "pi_3Q", "ann@example.com", "", " ", "ÄÖÜ-ÄÖÜ-ÄÖÜ", "example.com", "MO@exam", `o"neil`, "ab\x00c"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, q string) {
		if n, ok := receiptNumber(q); ok && (len(n) != 14 || n[4] != '-' || n[9] != '-' || strings.ToUpper(n) != n) {
			t.Fatalf("receiptNumber(%q) = %q", q, n)
		}
		if isLast4(q) && strings.Trim(q, "0123456789") != "" {
			t.Fatalf("isLast4(%q)", q)
		}
	})
}

// Attempts left without an answer one after the other on one plan are one
// line with their count, from the oldest's start to the newest's; an
// answered attempt breaks the run.
func TestSilentAttemptsCollapse(t *testing.T) {
	day := func(n int) time.Time { return time.Date(2026, 11, n, 9, 0, 0, 0, time.UTC) }
	var in []AttemptLine
	for n := 20; n > 8; n-- {
		in = append(in, AttemptLine{StartedAt: day(n), Plan: "Weekly Plan", Repeats: 1})
	}
	in = append(in, AttemptLine{StartedAt: day(8), Plan: "Weekly Plan", Reason: "cutting_expenses", Outcome: "saved_gift_month", Repeats: 1},
		AttemptLine{StartedAt: day(7), Plan: "Weekly Plan", Repeats: 1},
		AttemptLine{StartedAt: day(6), Plan: "Monthly Plan", Repeats: 1})
	got := collapseAttempts(in)
	if len(got) != 4 {
		t.Fatalf("%d lines: %+v", len(got), got)
	}
	if got[0].Repeats != 12 || !got[0].StartedAt.Equal(day(20)) || !got[0].From.Equal(day(9)) {
		t.Errorf("the run: %+v", got[0])
	}
	if got[1].Outcome != "saved_gift_month" || got[2].Repeats != 1 || got[3].Plan != "Monthly Plan" {
		t.Errorf("after the run: %+v", got[1:])
	}
}

// Matches by Instagram username join those by address: an address found
// both ways is one match, found by address and naming the username; the
// rest are in address order, SearchLimit at most.
func TestMatchesByUsernameJoinThoseByAddress(t *testing.T) {
	byEmail := []Match{{Email: "ann@example.com", Via: ViaEmail, Plans: []string{"Weekly Plan"}}, {Email: "zed@example.com", Via: ViaEmail}}
	byName := []Match{{Email: "zed@example.com", Via: ViaInstagram, Username: "zed.z"},
		{Email: "bob@example.com", Via: ViaInstagram, Username: "zebra", Plans: []string{"Monthly Plan"}}}
	got := merge(byEmail, byName)
	want := []Match{{Email: "ann@example.com", Via: ViaEmail, Plans: []string{"Weekly Plan"}},
		{Email: "bob@example.com", Via: ViaInstagram, Username: "zebra", Plans: []string{"Monthly Plan"}},
		{Email: "zed@example.com", Via: ViaEmail, Username: "zed.z"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("merge = %+v\nwant %+v", got, want)
	}
	if byEmail[1].Username != "" {
		t.Error("merge changed the matches it was given")
	}
	var many, more []Match
	for i := range SearchLimit {
		many = append(many, Match{Email: fmt.Sprintf("a%02d@example.com", i), Via: ViaEmail})
		more = append(more, Match{Email: fmt.Sprintf("b%02d@example.com", i), Via: ViaInstagram, Username: fmt.Sprintf("b%02d", i)})
	}
	if got := merge(many, more); len(got) != SearchLimit || got[SearchLimit-1].Email != many[SearchLimit-1].Email {
		t.Errorf("merge of %d and %d: %d matches, last %+v", len(many), len(more), len(got), got[len(got)-1])
	}
}

// Matches inside an address come after the starts: an address found by its
// start stays as found (not "contains"), the others say the part they
// contain and fill the list up to SearchLimit, and the whole is in address
// order.
func TestMatchesInsideAnAddressFillTheList(t *testing.T) {
	found := []Match{{Email: "example.fan@mail.test", Via: ViaEmail}, {Email: "zed@example.org", Via: ViaInstagram, Username: "example"}}
	inside := []Match{{Email: "ann@example.com", Via: ViaEmailPart, Plans: []string{"Weekly Plan"}},
		{Email: "example.fan@mail.test", Via: ViaEmailPart}, {Email: "zed@example.org", Via: ViaEmailPart}}
	got := addParts(found, inside, "example")
	want := []Match{{Email: "ann@example.com", Via: ViaEmailPart, Plans: []string{"Weekly Plan"}, Part: "example"},
		{Email: "example.fan@mail.test", Via: ViaEmail}, {Email: "zed@example.org", Via: ViaInstagram, Username: "example"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("addParts = %+v\nwant %+v", got, want)
	}
	if inside[0].Part != "" || len(found) != 2 {
		t.Error("addParts changed the matches it was given")
	}
	// The starts keep their places; the parts fill what is left, in their
	// (address) order.
	var starts, parts []Match
	for i := range SearchLimit - 2 {
		starts = append(starts, Match{Email: fmt.Sprintf("m%02d@example.com", i), Via: ViaEmail})
	}
	for i := range SearchLimit {
		parts = append(parts, Match{Email: fmt.Sprintf("a%02d@example.com", i), Via: ViaEmailPart})
	}
	got = addParts(starts, parts, "example")
	if len(got) != SearchLimit || got[0].Email != "a00@example.com" || got[1].Email != "a01@example.com" || got[2].Email != "m00@example.com" {
		t.Errorf("addParts of %d starts and %d parts: %d, first %+v", len(starts), len(parts), len(got), got[:3])
	}
}
