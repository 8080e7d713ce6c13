package privacy_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"regexp"
	"sort"
	"strings"
	"testing"

	"glimpse/engine"
	"glimpse/engine/app"
	"glimpse/engine/billing"
	"glimpse/engine/privacy"
)

// readExport downloads the person's ready export and returns its files by
// name.
func readExport(t *testing.T, a *app.App, userID string) map[string]string {
	t.Helper()
	ctx := context.Background()
	key, err := a.Privacy.DownloadKey(ctx, userID)
	if err != nil {
		t.Fatal(err)
	}
	_, data, err := a.Privacy.Download(ctx, userID, key)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		files[f.Name] = string(b)
	}
	return files
}

// keyPaths lists the field names of a JSON document as README.txt names
// them: nested as parent.child, through arrays; the children of details
// (the app's own names) are not listed, and those of audience are "*".
func keyPaths(v any, prefix string, out map[string]bool) {
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			keyPaths(e, prefix, out)
		}
	case map[string]any:
		for k, e := range x {
			path := k
			if prefix != "" {
				path = prefix + "." + k
			}
			if strings.HasSuffix(prefix, "audience") {
				path = prefix + ".*"
			}
			out[path] = true
			if k != "details" {
				keyPaths(e, path, out)
			}
		}
	}
}

// readmeFields returns, for each file README.txt describes, the fields it
// explains ("  - name: meaning" lines under the file's heading).
func readmeFields(readme string) map[string]map[string]bool {
	out := map[string]map[string]bool{}
	lines := strings.Split(readme, "\n")
	current := ""
	for i, line := range lines {
		if i+1 < len(lines) && strings.HasSuffix(line, ".json") && strings.HasPrefix(lines[i+1], "---") {
			current = line
			out[current] = map[string]bool{}
			continue
		}
		if name, meaning, ok := strings.Cut(strings.TrimPrefix(line, "  - "), ": "); ok && current != "" &&
			strings.HasPrefix(line, "  - ") && meaning != "" {
			out[current][name] = true
		}
	}
	return out
}

var camelCase = regexp.MustCompile(`^[a-z][a-zA-Z]*$`)

// TestExportIsWrittenForAPerson reads the export as the person would, after
// support refunded a purchase with a reason only staff should read: every
// file and every field is explained in README.txt, every field name is a
// camelCase word, no time is the zero time, and nothing internal is in it
// (database and idempotency keys, payment method references, the profile's
// seed and lease, the staff member or their reason).
func TestExportIsWrittenForAPerson(t *testing.T) {
	a, clock := openApp(t)
	ctx := context.Background()
	p := seedPerson(t, a, "readable@example.com")
	charges, err := a.Billing.ChargesOf(ctx, []string{p.main.ID, p.addOn.ID})
	if err != nil || len(charges) != 2 {
		t.Fatalf("charges: %v %v", charges, err)
	}
	var addOnCharge billing.Charge
	for _, ch := range charges {
		if ch.SubscriptionID == p.addOn.ID {
			addOnCharge = ch
		}
	}
	const staffReason = "asked nicely on the phone, ticket 4471"
	if _, err := a.Billing.Refund(ctx, billing.RefundRequest{ChargeID: addOnCharge.ID, Amount: addOnCharge.Amount.Amount, Reason: staffReason,
		By: "staff:agent.smith@operator.example", Key: "desk-view-1"}); err != nil {
		t.Fatal(err)
	}
	prof, err := a.Profiles.Get(ctx, p.user.ID)
	if err != nil || prof.Source == "" {
		t.Fatalf("profile: %+v %v", prof, err)
	}
	// The seeded export was made before the refund: ask again later.
	clock.Advance(privacy.ExportWindow)
	if _, err := a.Privacy.RequestExport(ctx, p.user.ID, "default"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Privacy.BuildPending(ctx); err != nil {
		t.Fatal(err)
	}
	files := readExport(t, a, p.user.ID)

	readme := files["README.txt"]
	documented := readmeFields(readme)
	for name, body := range files {
		if name == "README.txt" {
			continue
		}
		if !strings.Contains(readme, name) {
			t.Errorf("README.txt does not name %s", name)
		}
		var doc any
		if err := json.Unmarshal([]byte(body), &doc); err != nil {
			t.Errorf("%s is not JSON: %v", name, err)
			continue
		}
		paths := map[string]bool{}
		keyPaths(doc, "", paths)
		var names []string
		for path := range paths {
			names = append(names, path)
		}
		sort.Strings(names)
		for _, path := range names {
			last := path[strings.LastIndex(path, ".")+1:]
			if last != "*" && !camelCase.MatchString(last) {
				t.Errorf("%s: field %q is not a camelCase word", name, path)
			}
			if name != "manifest.json" && !documented[name][path] {
				t.Errorf("%s: field %q is not explained in README.txt", name, path)
			}
		}
		for _, internal := range []string{"0001-01-01", addOnCharge.ID, addOnCharge.Method, "pm_",
			"\"seed\"", "\"leaseUntil\"", "\"key\"", "\"_id\"", "agent.smith", staffReason, "ticket 4471", "sealed-token", "argon2"} {
			if internal != "" && strings.Contains(body, internal) {
				t.Errorf("%s holds %q:\n%s", name, internal, body)
			}
		}
		if name != "account.json" && name != "manifest.json" && strings.Contains(body, p.user.ID) {
			t.Errorf("%s holds the account's internal id:\n%s", name, body)
		}
	}
	var history []struct{ Change, By, Detail string }
	if err := json.Unmarshal([]byte(files["subscription_history.json"]), &history); err != nil {
		t.Fatal(err)
	}
	bySupport := false
	for _, h := range history {
		if h.By == "support" {
			bySupport = true
			if h.Change != "refunded" || h.Detail != "$28.99" {
				t.Errorf("support's line: %+v, want refunded, $28.99", h)
			}
		}
	}
	if !bySupport {
		t.Errorf("no line by support in the history: %s", files["subscription_history.json"])
	}
	var payments []struct {
		Item    string
		Amount  string
		Refunds []struct{ Amount string }
	}
	if err := json.Unmarshal([]byte(files["charges.json"]), &payments); err != nil || len(payments) != 2 {
		t.Fatalf("charges.json: %s (%v)", files["charges.json"], err)
	}
	for _, c := range payments {
		if c.Item == "Profile report" && (c.Amount != "$28.99" || len(c.Refunds) != 1 || c.Refunds[0].Amount != "$28.99") {
			t.Errorf("the refunded charge: %+v", c)
		}
	}
	var mails []map[string]any
	if err := json.Unmarshal([]byte(files["mails.json"]), &mails); err != nil || len(mails) == 0 {
		t.Fatalf("mails.json: %s (%v)", files["mails.json"], err)
	}
	for _, m := range mails {
		if m["status"] != "sent" && m["sentAt"] != nil {
			t.Errorf("a mail not sent has a sentAt: %v", m)
		}
	}
}

// TestDisconnectDeletesFromPreparedExports: an export prepared before
// "Disconnect Instagram" held the profile and its snapshots; after it, the
// link to that export (the mailed one too) opens nothing, no part of it is
// stored, and the export made in its place holds no Instagram data.
func TestDisconnectDeletesFromPreparedExports(t *testing.T) {
	a, _ := openApp(t)
	ctx := context.Background()
	p := seedPerson(t, a, "disconnect-export@example.com")
	before, ok, err := a.Privacy.LatestExport(ctx, p.user.ID)
	if err != nil || !ok || before.Status != privacy.ExportReady {
		t.Fatalf("the prepared export: %+v %v %v", before, ok, err)
	}
	if !strings.Contains(readExport(t, a, p.user.ID)["instagram_profile.json"], "leaving.example") {
		t.Fatal("the prepared export does not hold the profile")
	}
	oldKey, err := a.Privacy.DownloadKey(ctx, p.user.ID)
	if err != nil {
		t.Fatal(err)
	}

	if err := a.Privacy.DisconnectInstagram(ctx, p.user.ID); err != nil {
		t.Fatal(err)
	}
	if _, _, err := a.Privacy.Download(ctx, p.user.ID, oldKey); !errors.Is(err, privacy.ErrExportLink) {
		t.Errorf("the export prepared before the deletion still downloads: %v", err)
	}
	exports := privacy.StoresOf(a.Privacy).Exports
	if parts, err := exports.Parts(ctx, before.ID); err != nil || len(parts) != 0 {
		t.Errorf("%d parts of the export prepared before the deletion are kept (%v)", len(parts), err)
	}
	if _, found, err := exports.Key(ctx, engine.HashToken(oldKey)); err != nil || found {
		t.Errorf("the key of the export prepared before the deletion is kept (%v)", err)
	}
	remade, ok, err := a.Privacy.LatestExport(ctx, p.user.ID)
	if err != nil || !ok || remade.ID == before.ID || remade.Status != privacy.ExportQueued {
		t.Fatalf("the export in its place: %+v %v %v", remade, ok, err)
	}
	if _, err := a.Privacy.BuildPending(ctx); err != nil {
		t.Fatal(err)
	}
	files := readExport(t, a, p.user.ID)
	for _, name := range []string{"instagram_profile.json", "instagram_snapshots.json"} {
		for _, gone := range []string{"leaving.example", "\"ann\"", "\"dee\""} {
			if strings.Contains(files[name], gone) {
				t.Errorf("the new export's %s holds %s: %s", name, gone, files[name])
			}
		}
	}
}
