package export_test

import (
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
	classes := []error{export.ErrNotZip, export.ErrTooLarge, export.ErrZipBomb, export.ErrUnsafePath, export.ErrMalformedJSON, export.ErrNoConnections}
	f.Fuzz(func(t *testing.T, data []byte) {
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
	})
}
