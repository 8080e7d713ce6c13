package export_test

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"glimpse/engine"
	"glimpse/engine/instagram/export"
)

// fixtures is the folder of export trees, one ZIP per subfolder.
const fixtures = "../../../fixtures/instagram/exports"

// zipTree zips the files under dir, with paths relative to it.
func zipTree(tb testing.TB, dir string) []byte {
	tb.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f, err := w.Create(filepath.ToSlash(rel))
		if err != nil {
			return err
		}
		_, err = f.Write(data)
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// entry is one file of a ZIP built in a test.
type entry struct {
	header zip.FileHeader
	data   []byte
}

func file(name, data string) entry {
	return entry{header: zip.FileHeader{Name: name, Method: zip.Deflate}, data: []byte(data)}
}

func zipEntries(tb testing.TB, entries ...entry) []byte {
	tb.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for _, e := range entries {
		f, err := w.CreateHeader(&e.header)
		if err != nil {
			tb.Fatal(err)
		}
		if _, err := f.Write(e.data); err != nil {
			tb.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

func importBytes(data []byte, limits export.Limits) (export.Export, error) {
	return export.Import(context.Background(), bytes.NewReader(data), int64(len(data)), limits)
}

// summary is what the fixture tests compare: the usernames of each list.
type summary struct {
	Owner, Layout                            string
	Followers, Following, RecentlyUnfollowed []string
	PendingRequests, RecentFollowRequests    []string
	Range                                    *export.DateRange
	MissingFiles, Warnings                   []string
	FollowersComplete                        bool
}

func summarise(e export.Export) summary {
	return summary{
		Owner: e.Owner, Layout: e.Layout,
		Followers: e.Usernames(e.Followers), Following: e.Usernames(e.Following),
		RecentlyUnfollowed: e.Usernames(e.RecentlyUnfollowed), PendingRequests: e.Usernames(e.PendingRequests),
		RecentFollowRequests: e.Usernames(e.RecentFollowRequests),
		Range:                e.Range, MissingFiles: e.MissingFiles, Warnings: e.Warnings,
		FollowersComplete: e.FollowersComplete(),
	}
}

func unix(ts int64) time.Time { return time.Unix(ts, 0).UTC() }

func TestImportFixtures(t *testing.T) {
	t.Parallel()
	const folder = "connections/followers_and_following/"
	tests := []struct {
		fixture string
		want    summary
	}{
		{"flat-2020", summary{
			Owner: "oak.owner", Layout: export.LayoutFlat2020,
			Followers: []string{"ada.lumen", "bo_tran", "cyrus.vale"}, Following: []string{"bo_tran", "dara.moss"},
			PendingRequests: []string{"eli.north"}, FollowersComplete: true,
		}},
		{"root-2021", summary{
			Layout:    export.LayoutRoot2021,
			Followers: []string{"fen.oak", "gus.rowe", "hana.sky"}, Following: []string{"fen.oak", "ivo.pine"},
			RecentlyUnfollowed: []string{"kai.frost"}, PendingRequests: []string{"juno.reed"},
			RecentFollowRequests: []string{"juno.reed"}, FollowersComplete: true,
		}},
		{"root-2023-split", summary{
			Owner: "pine.owner", Layout: export.LayoutRoot2021,
			Followers: []string{"lia.dune", "milo.vance", "nia.cole"}, Following: []string{"lia.dune", "otto.lane"},
			FollowersComplete: true,
		}},
		{"accounts-center-2024", summary{
			Owner: "maple.owner", Layout: export.LayoutAccountsCenter2023,
			Followers: []string{"pia.wren", "quin.hale", "rae.stone"}, Following: []string{"pia.wren", "sol.mar"},
			RecentlyUnfollowed: []string{"uma.field"}, PendingRequests: []string{"tess.bloom"},
			RecentFollowRequests: []string{"tess.bloom"}, FollowersComplete: true,
		}},
		{"accounts-center-2025", summary{
			Owner: "birch.owner", Layout: export.LayoutAccountsCenter2025,
			Followers:          []string{"vic.hart", "wes.glen", "xia.moon", "yara.cliff"},
			Following:          []string{"vic.hart", "zed.brook", "ada.lumen"},
			RecentlyUnfollowed: []string{"cyrus.vale", "dara.moss"}, PendingRequests: []string{"bo_tran"},
			RecentFollowRequests: []string{"bo_tran"}, FollowersComplete: true,
			Warnings: []string{"1 entry in " + folder + "followers_2.json had no username and was left out."},
		}},
		{"mojibake", summary{
			Owner: "cedro.dono", Layout: export.LayoutAccountsCenter2025,
			Followers: []string{"eli.north", "fen.oak"}, Following: []string{"eli.north"},
			RecentlyUnfollowed: []string{"ivo.pine"}, PendingRequests: []string{"gus.rowe", "hana.sky"},
			FollowersComplete: true,
		}},
		{"date-range-limited", summary{
			Layout:    export.LayoutAccountsCenter2025,
			Followers: []string{"juno.reed", "kai.frost", "lia.dune"}, Following: []string{"juno.reed", "milo.vance", "nia.cole"},
			Range: &export.DateRange{From: unix(1750000000), To: unix(1771000000)},
			Warnings: []string{"Your followers in this export only go back to 15 Jun 2025, though you were following accounts from 8 Jun 2019. " +
				"The export looks limited to a date range, so it lists only followers gained since then, and lost followers are not worked out from it. " +
				"Request a new export with Date range: All time."},
		}},
		{"date-range-signup", summary{
			Layout:    export.LayoutAccountsCenter2025,
			Followers: []string{"otto.lane", "pia.wren"}, Following: []string{"otto.lane", "quin.hale"},
			Range: &export.DateRange{From: unix(1752000000), To: unix(1765000000)},
			Warnings: []string{"Your followers in this export only go back to 8 Jul 2025, though you were following accounts from 1 Jan 2018. " +
				"The export looks limited to a date range, so it lists only followers gained since then, and lost followers are not worked out from it. " +
				"Request a new export with Date range: All time."},
		}},
		{"missing-page", summary{
			Layout:    export.LayoutAccountsCenter2025,
			Followers: []string{"uma.field", "vic.hart"}, Following: []string{"uma.field"},
			MissingFiles: []string{folder + "followers_2.json"},
			Warnings:     []string{"The export is missing " + folder + "followers_2.json, so some followers may be left out and lost followers are not worked out from it. Download the export again."},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.fixture, func(t *testing.T) {
			t.Parallel()
			got, err := importBytes(zipTree(t, filepath.Join(fixtures, tc.fixture)), export.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, summarise(got)); diff != "" {
				t.Errorf("import (-want +got):\n%s", diff)
			}
		})
	}
}

// TestImportAccounts checks the fields beside the username: the href as
// given and the follow time from either place §4.3 puts it.
func TestImportAccounts(t *testing.T) {
	t.Parallel()
	got, err := importBytes(zipTree(t, filepath.Join(fixtures, "accounts-center-2025")), export.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]export.Account{
		"followers": {
			{Username: "vic.hart", Href: "https://www.instagram.com/_u/vic.hart", FollowedAt: unix(1730000000)},
			{Username: "wes.glen", Href: "https://www.instagram.com/_u/wes.glen", FollowedAt: unix(1731000000)},
			{Username: "xia.moon", Href: "https://www.instagram.com/_u/xia.moon", FollowedAt: unix(1732000000)},
			{Username: "yara.cliff", Href: "https://www.instagram.com/_u/yara.cliff?igsh=abc", FollowedAt: unix(1733000000)},
		},
		"following": {
			{Username: "vic.hart", Href: "https://www.instagram.com/_u/vic.hart", FollowedAt: unix(1729000000)},
			{Username: "zed.brook", Href: "https://www.instagram.com/_u/zed.brook", FollowedAt: unix(1734000000)},
			{Username: "ada.lumen", Href: "https://www.instagram.com/ada.lumen", FollowedAt: unix(1728000000)},
		},
		"pending": {{Username: "bo_tran", FollowedAt: unix(1740600000)}},
	}
	if diff := cmp.Diff(want, map[string][]export.Account{"followers": got.Followers, "following": got.Following, "pending": got.PendingRequests}); diff != "" {
		t.Errorf("accounts (-want +got):\n%s", diff)
	}
}

func TestImportFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "export.zip")
	if err := os.WriteFile(path, zipTree(t, filepath.Join(fixtures, "root-2021")), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := export.ImportFile(context.Background(), path, export.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"fen.oak", "gus.rowe", "hana.sky"}, got.Usernames(got.Followers)); diff != "" {
		t.Errorf("followers (-want +got):\n%s", diff)
	}
	if _, err := export.ImportFile(context.Background(), t.TempDir(), export.Limits{}); !errors.Is(err, export.ErrNotZip) {
		t.Errorf("a folder: got %v, want ErrNotZip", err)
	}
}

func TestUsernamesKeepsUnknownApart(t *testing.T) {
	t.Parallel()
	var e export.Export
	if got := e.Usernames(nil); got != nil {
		t.Errorf("Usernames(nil) = %#v, want nil", got)
	}
	if got := e.Usernames([]export.Account{}); got == nil || len(got) != 0 {
		t.Errorf("Usernames(empty) = %#v, want an empty non-nil slice", got)
	}
}

func TestImportErrors(t *testing.T) {
	t.Parallel()
	const followers = "connections/followers_and_following/followers_1.json"
	const validList = `[{"title":"","string_list_data":[{"href":"https://www.instagram.com/ada.lumen","value":"ada.lumen","timestamp":1700000000}]}]`
	symlink := file("connections/followers_and_following/following.json", "/etc/passwd")
	symlink.header.SetMode(fs.ModeSymlink | 0o777)
	stored := file(followers, "["+strings.Repeat(" ", 2<<20)+"]")
	stored.header.Method = zip.Store
	tests := []struct {
		name    string
		zip     []byte
		limits  export.Limits
		want    error
		message string
	}{
		{name: "not a zip", zip: []byte("PK\x03\x04 this is not really a zip"), want: export.ErrNotZip,
			message: "The upload is not a ZIP file. Upload the ZIP that Instagram e-mailed you, unchanged."},
		{name: "empty", zip: nil, want: export.ErrNotZip, message: "The upload is empty."},
		{name: "archive over MaxZipBytes", zip: make([]byte, 3<<20), limits: export.Limits{MaxZipBytes: 2 << 20},
			want: export.ErrTooLarge, message: "The ZIP is larger than 2 MB. Request only “Followers and following” in the export to keep it small."},
		{name: "more entries than MaxEntries", zip: zipEntries(t, file("a.json", "1"), file("b.json", "2"), file(followers, validList)),
			limits: export.Limits{MaxEntries: 2}, want: export.ErrTooLarge,
			message: "The ZIP holds more than 2 files. Request only “Followers and following” in the export."},
		{name: "ratio over MaxRatio", zip: zipEntries(t, file(followers, "["+strings.Repeat(" ", 8<<20)+"]")), want: export.ErrZipBomb,
			message: "A file in the ZIP expands to far more data than an Instagram export holds, so it was not read."},
		{name: "entry over MaxEntryBytes", zip: zipEntries(t, stored), limits: export.Limits{MaxEntryBytes: 1 << 20}, want: export.ErrZipBomb,
			message: "A file in the ZIP expands to far more data than an Instagram export holds, so it was not read."},
		{name: "total over MaxUncompressedBytes", zip: zipEntries(t, file(followers, validList), file("connections/followers_and_following/following.json", validList)),
			limits: export.Limits{MaxUncompressedBytes: int64(len(validList)) + 10}, want: export.ErrZipBomb,
			message: "A file in the ZIP expands to far more data than an Instagram export holds, so it was not read."},
		{name: "parent path", zip: zipEntries(t, file(followers, validList), file("../x.json", "{}")), want: export.ErrUnsafePath,
			message: "The ZIP contains a file with an unsafe path, so it is not an Instagram export."},
		{name: "nested parent path", zip: zipEntries(t, file("a/../../followers_1.json", validList)), want: export.ErrUnsafePath,
			message: "The ZIP contains a file with an unsafe path, so it is not an Instagram export."},
		{name: "absolute path", zip: zipEntries(t, file("/tmp/followers_1.json", validList)), want: export.ErrUnsafePath,
			message: "The ZIP contains a file with an unsafe path, so it is not an Instagram export."},
		{name: "backslash", zip: zipEntries(t, file(`connections\followers_and_following\followers_1.json`, validList)), want: export.ErrUnsafePath,
			message: "The ZIP contains a file with an unsafe path, so it is not an Instagram export."},
		{name: "drive letter", zip: zipEntries(t, file("C:followers_1.json", validList)), want: export.ErrUnsafePath,
			message: "The ZIP contains a file with an unsafe path, so it is not an Instagram export."},
		{name: "symlink", zip: zipEntries(t, file(followers, validList), symlink), want: export.ErrUnsafePath,
			message: "The ZIP contains a link or special file, so it is not an Instagram export."},
		{name: "malformed fixture", zip: zipTree(t, filepath.Join(fixtures, "malformed")), want: export.ErrMalformedJSON,
			message: "The file " + followers + " in the ZIP is not valid JSON, so nothing was imported. Download the export again, or request a new one with Format: JSON."},
		{name: "empty list file", zip: zipEntries(t, file(followers, "")), want: export.ErrMalformedJSON,
			message: "The file " + followers + " in the ZIP is not valid JSON, so nothing was imported. Download the export again, or request a new one with Format: JSON."},
		{name: "scalar root", zip: zipEntries(t, file(followers, `"ada.lumen"`)), want: export.ErrMalformedJSON,
			message: "The file " + followers + " in the ZIP is not valid JSON, so nothing was imported. Download the export again, or request a new one with Format: JSON."},
		{name: "data after the list", zip: zipEntries(t, file(followers, validList+"]")), want: export.ErrMalformedJSON,
			message: "The file " + followers + " in the ZIP is not valid JSON, so nothing was imported. Download the export again, or request a new one with Format: JSON."},
		{name: "malformed owner file", zip: zipEntries(t, file(followers, validList), file("personal_information/personal_information.json", `{"profile_user": [`)),
			want:    export.ErrMalformedJSON,
			message: "The file personal_information/personal_information.json in the ZIP is not valid JSON, so nothing was imported. Download the export again, or request a new one with Format: JSON."},
		{name: "no connections", zip: zipEntries(t, file("personal_information/personal_information.json", `{"profile_user": []}`)), want: export.ErrNoConnections,
			message: "The ZIP has no followers or following list. Request a new export with “Followers and following” selected, Format: JSON and Date range: All time."},
		{name: "flat file without lists", zip: zipEntries(t, file("connections.json", `{"close_friends": {}}`)), want: export.ErrNoConnections,
			message: "The ZIP has no followers or following list. Request a new export with “Followers and following” selected, Format: JSON and Date range: All time."},
		{name: "HTML format", zip: zipTree(t, filepath.Join(fixtures, "html-format")), want: export.ErrNoConnections,
			message: "This export is in HTML format. Request a new one with Format: JSON."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := importBytes(tc.zip, tc.limits)
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
			var e *engine.Error
			if !errors.As(err, &e) {
				t.Fatalf("got %T, want *engine.Error", err)
			}
			if diff := cmp.Diff(tc.message, e.Message); diff != "" {
				t.Errorf("message (-want +got):\n%s", diff)
			}
			if e.Code != engine.CodeInvalid {
				t.Errorf("code %q, want %q", e.Code, engine.CodeInvalid)
			}
			if diff := cmp.Diff(export.Export{}, got); diff != "" {
				t.Errorf("a failed import returned data (-want +got):\n%s", diff)
			}
		})
	}
}

func TestImportCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	data := zipTree(t, filepath.Join(fixtures, "root-2021"))
	if _, err := export.Import(ctx, bytes.NewReader(data), int64(len(data)), export.Limits{}); !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
}

// TestImportReadsOnlyWhatItNeeds checks that a large file Import has no use
// for is never decompressed: it would cross MaxUncompressedBytes.
func TestImportReadsOnlyWhatItNeeds(t *testing.T) {
	t.Parallel()
	data := zipEntries(t,
		file("connections/followers_and_following/following.json", `{"relationships_following": []}`),
		file("media/posts/202401/big.json", strings.Repeat("x", 1<<20)),
	)
	got, err := importBytes(data, export.Limits{MaxUncompressedBytes: 1 << 10})
	if err != nil {
		t.Fatal(err)
	}
	if got.Followers != nil || got.Following == nil || len(got.Following) != 0 {
		t.Errorf("followers %#v, following %#v: want nil and empty", got.Followers, got.Following)
	}
}

// readerAtFunc lets a test see every read Import makes.
type readerAtFunc func(p []byte, off int64) (int, error)

func (f readerAtFunc) ReadAt(p []byte, off int64) (int, error) { return f(p, off) }

// TestImportForgedDirectory checks that a central directory of many tiny
// entries is refused while it is being read, before zip.NewReader has
// allocated all of them.
func TestImportForgedDirectory(t *testing.T) {
	t.Parallel()
	entries := make([]entry, 5000)
	for i := range entries {
		entries[i] = file(strings.Repeat("a", 100)+string(rune('a'+i%26)), "")
	}
	data := zipEntries(t, entries...)
	var read int64
	r := readerAtFunc(func(p []byte, off int64) (int, error) {
		read += int64(len(p))
		return bytes.NewReader(data).ReadAt(p, off)
	})
	_, err := export.Import(context.Background(), r, int64(len(data)), export.Limits{MaxEntries: 10})
	if !errors.Is(err, export.ErrTooLarge) {
		t.Fatalf("got %v, want ErrTooLarge", err)
	}
	if limit := int64(10<<10 + 128<<10 + 64<<10); read > limit {
		t.Errorf("read %d bytes of the directory, want at most %d", read, limit)
	}
}

var _ io.ReaderAt = readerAtFunc(nil)

// cancelingReaderAt cancels the import once it has handed out after bytes,
// and counts the bytes it hands out after that.
type cancelingReaderAt struct {
	r      io.ReaderAt
	after  int64
	read   int64
	late   int64
	cancel context.CancelFunc
}

func (c *cancelingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	if c.read > c.after {
		c.late += int64(n)
	}
	if c.read += int64(n); c.read > c.after {
		c.cancel()
	}
	return n, err
}

// bigList is a followers list of n entries, stored uncompressed so that the
// bytes read from the ZIP track the decoding.
func bigList(tb testing.TB, n int) []byte {
	var b strings.Builder
	b.WriteString("[")
	for i := range n {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, `{"title":"","string_list_data":[{"href":"https://www.instagram.com/u%d","value":"u%d","timestamp":1600000000}]}`, i, i)
	}
	b.WriteString("]")
	e := file("connections/followers_and_following/followers_1.json", b.String())
	e.header.Method = zip.Store
	return zipEntries(tb, e)
}

func TestImportStopsWhenCanceled(t *testing.T) {
	t.Parallel()
	data := bigList(t, 100_000) // about 11 MB
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := &cancelingReaderAt{r: bytes.NewReader(data), after: 1 << 20, cancel: cancel}
	got, err := export.Import(ctx, r, int64(len(data)), export.Limits{})
	if !errors.Is(err, context.Canceled) || got.Followers != nil {
		t.Fatalf("got %d followers, %v; want context.Canceled", len(got.Followers), err)
	}
	var e *engine.Error
	if errors.As(err, &e) {
		t.Errorf("a cancellation is not the upload's fault, but got %v", e)
	}
	if r.late > 256<<10 {
		t.Errorf("read %d bytes after the cancellation", r.late)
	}
}

func TestImportTimeout(t *testing.T) {
	t.Parallel()
	data := bigList(t, 10)
	_, err := importBytes(data, export.Limits{Timeout: time.Nanosecond})
	var e *engine.Error
	if !errors.Is(err, export.ErrTimeout) || !errors.As(err, &e) || e.Code != engine.CodeInvalid || !strings.Contains(e.Message, "took longer than") {
		t.Fatalf("got %v, want ErrTimeout with a message", err)
	}
	if got, err := importBytes(data, export.Limits{}); err != nil || len(got.Followers) != 10 {
		t.Fatalf("default timeout: %d %v", len(got.Followers), err)
	}
}

// TestWhiteSpaceMemberIsRejected is the upload of the report: a
// ZIP whose followers file is "[" and megabytes of spaces (16 here). Its cost
// is counted in TestWhiteSpaceRunCostsNoMemory; here the whole import must
// refuse it as malformed JSON, not as a timeout.
func TestWhiteSpaceMemberIsRejected(t *testing.T) {
	t.Parallel()
	data := zipEntries(t, file("connections/followers_and_following/followers_1.json", "["+strings.Repeat(" ", 16<<20)))
	_, err := importBytes(data, export.Limits{MaxRatio: 2000, Timeout: time.Minute})
	if !errors.Is(err, export.ErrMalformedJSON) {
		t.Fatalf("got %v, want ErrMalformedJSON", err)
	}
	// With the default ratio cap it is refused as a bomb before that.
	if _, err := importBytes(data, export.Limits{}); !errors.Is(err, export.ErrZipBomb) {
		t.Fatalf("default limits: %v, want ErrZipBomb", err)
	}
}

// TestImportReportsListsInOrder: the followers are read at the same time as
// the other lists, yet what the import reports comes in the order of the
// lists, as if read one after another: with every list broken, the error
// names the followers file; with entries skipped in each, the warnings
// follow the lists' order.
func TestImportReportsListsInOrder(t *testing.T) {
	t.Parallel()
	const folder = "connections/followers_and_following/"
	for range 20 {
		_, err := importBytes(zipEntries(t,
			file(folder+"following.json", `[{"title":`),
			file(folder+"followers_1.json", `[{"title":`),
			file(folder+"pending_follow_requests.json", `[{"title":`),
		), export.Limits{})
		var e *engine.Error
		if !errors.As(err, &e) || !errors.Is(err, export.ErrMalformedJSON) || !strings.Contains(e.Message, "followers_1.json") {
			t.Fatalf("got %v, want the followers file's error", err)
		}
	}
	noName := `[{"title":"a"},{"title":""},{"title":""}]`
	got, err := importBytes(zipEntries(t,
		file(folder+"pending_follow_requests.json", noName),
		file(folder+"following.json", noName),
		file(folder+"followers_1.json", `[{"title":"a"},{"title":""}]`),
	), export.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"1 entry in " + folder + "followers_1.json had no username and was left out.",
		"2 entries in " + folder + "following.json had no username and were left out.",
		"2 entries in " + folder + "pending_follow_requests.json had no username and were left out.",
	}
	if diff := cmp.Diff(want, got.Warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}
