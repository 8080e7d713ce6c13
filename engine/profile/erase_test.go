package profile_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"glimpse/engine"
	"glimpse/engine/profile"
	"glimpse/engine/store/sqlstore"
	"glimpse/engine/store/storetest"
)

// TestDisconnectLeavesNothingOfTheProfile: disconnecting deletes the
// profile, its snapshots with their lists and the subscriber's Instagram
// links, reading every row of the tables afterwards; a link another
// subscriber has taken over since stays.
func TestDisconnectLeavesNothingOfTheProfile(t *testing.T) {
	t.Parallel()
	db := storetest.OpenSQL(t)
	ctx := context.Background()
	svc := profile.NewService(sqlstore.NewProfiles(db), engine.NewManualClock(start), slog.New(slog.DiscardHandler))
	if err := svc.SeedDemo(ctx, "ann", 42); err != nil {
		t.Fatal(err)
	}
	if err := svc.LinkInstagram(ctx, "ann", "1", "2"); err != nil {
		t.Fatal(err)
	}
	if err := svc.LinkInstagram(ctx, "bob", "2"); err != nil {
		t.Fatal(err)
	}
	naming := func(table, who string) int {
		t.Helper()
		rows, err := db.RowsText(ctx, table)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, r := range rows {
			if strings.Contains(r, who) {
				n++
			}
		}
		return n
	}
	if naming("profile_snapshots", "ann") == 0 || naming("instagram_links", "ann") == 0 {
		t.Fatal("the demo profile has no snapshots or links to erase")
	}
	for range 2 { // again: nothing more
		if err := svc.Disconnect(ctx, "ann"); err != nil {
			t.Fatal(err)
		}
	}
	for _, table := range []string{"profiles", "profile_snapshots", "instagram_links"} {
		if n := naming(table, "ann"); n != 0 {
			t.Errorf("%d rows of %s name ann", n, table)
		}
	}
	if who, err := svc.UserOfInstagram(ctx, "2"); err != nil || who != "bob" {
		t.Errorf("bob's link: %q, %v", who, err)
	}
	if who, err := svc.UserOfInstagram(ctx, "1"); err != nil || who != "" {
		t.Errorf("ann's link: %q, %v", who, err)
	}
}
