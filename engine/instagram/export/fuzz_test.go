package export_test

import (
	"archive/zip"
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"

	"glimpse/engine"
	"glimpse/engine/instagram/export"
)

// FuzzImport feeds arbitrary bytes to Import as a ZIP: it must never panic,
// must fail only with one of the documented classes, and must stay inside
// its limits. The seeds are every fixture zipped, so mutations start from
// real layouts.
func FuzzImport(f *testing.F) {
	dirs, err := os.ReadDir(fixtures)
	if err != nil {
		f.Fatal(err)
	}
	for _, d := range dirs {
		if d.IsDir() {
			f.Add(zipTree(f, filepath.Join(fixtures, d.Name())))
		}
	}
	f.Add([]byte("PK\x05\x06\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"))
	f.Add([]byte{})
	limits := export.Limits{MaxZipBytes: 1 << 20, MaxUncompressedBytes: 4 << 20, MaxEntryBytes: 2 << 20, MaxEntries: 64, MaxRatio: 50}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkImport(t, data, limits)
	})
}

// FuzzListMember feeds arbitrary bytes to Import as the followers list of a
// well-formed ZIP, so that every mutation reaches the JSON decoder (few
// mutations of FuzzImport's ZIPs survive the checksum). The same rules hold.
func FuzzListMember(f *testing.F) {
	for _, s := range []string{
		`[{"title":"","string_list_data":[{"href":"https://www.instagram.com/a","value":"a","timestamp":1}]}]`,
		`{"relationships_following":[{"title":"b","string_list_data":[{"href":"https://www.instagram.com/_u/b"}]}]}`,
		`{"timestamp":1,"label_values":[{"label":"Username","value":"c"}]}`,
		"[   \n\t  ]", "[", `{"x":[[[{}]]]}`, `["\u00c3\u00a9"]`,
	} {
		f.Add([]byte(s))
	}
	limits := export.Limits{MaxZipBytes: 1 << 20, MaxUncompressedBytes: 4 << 20, MaxEntryBytes: 2 << 20, MaxEntries: 64, MaxRatio: 50}
	f.Fuzz(func(t *testing.T, member []byte) {
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		w, err := zw.Create("connections/followers_and_following/followers_1.json")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(member); err != nil {
			t.Fatal(err)
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		checkImport(t, buf.Bytes(), limits)
	})
}

// checkImport imports data and checks what every import must honour.
func checkImport(t *testing.T, data []byte, limits export.Limits) {
	classes := []error{export.ErrNotZip, export.ErrTooLarge, export.ErrZipBomb, export.ErrUnsafePath, export.ErrMalformedJSON, export.ErrNoConnections, export.ErrTimeout}
	t.Helper()
	got, err := importBytes(data, limits)
	if err != nil {
		var e *engine.Error
		if !errors.As(err, &e) || e.Message == "" {
			t.Fatalf("error without a message for a person: %v", err)
		}
		n := 0
		for _, class := range classes {
			if errors.Is(err, class) {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("error in %d classes, want 1: %v", n, err)
		}
		return
	}
	if got.Followers == nil && got.Following == nil {
		t.Fatal("success without followers or following")
	}
	var names int64
	for _, list := range [][]export.Account{got.Followers, got.Following, got.RecentlyUnfollowed, got.PendingRequests, got.RecentFollowRequests} {
		for _, a := range list {
			if a.Username == "" || !utf8.ValidString(a.Username) {
				t.Fatalf("bad username %q", a.Username)
			}
			names += int64(len(a.Username))
		}
	}
	if names > limits.MaxUncompressedBytes {
		t.Fatalf("%d bytes of usernames from at most %d decompressed", names, limits.MaxUncompressedBytes)
	}
}
