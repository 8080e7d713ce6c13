// Package export reads an Instagram "Download Your Information" export (the
// ZIP in JSON format) and returns the account lists it holds: followers,
// following, the user's recent unfollows and their follow requests.
//
// The official API never names followers (docs/instagram.md §1), so these lists are
// the only legitimate source of lost and new followers, friends and fans. The
// export's format is unstable: four folder layouts since 2019 (§4.2), three
// entry shapes inside one 2026 ZIP (§4.3), a dozen wrapper keys (§4.4) and
// UTF-8 text escaped as Latin-1 ("mojibake"). Files are therefore routed by
// name, not by fixed path, and every entry shape is tried.
//
// An upload is untrusted: Import reads the archive through archive/zip from an
// io.ReaderAt (a ZIP needs random access, so the HTTP handler spools the upload
// to a size-capped temporary file first), opens only the JSON files it needs,
// counts every decompressed byte itself instead of trusting the headers, and
// decodes each file as a stream so a 1,000,000-entry list is never held as one
// []byte. Every failure is one *engine.Error with a message safe to show a
// person, wrapping exactly one of the Err* sentinels for errors.Is.
//
// "§n" below means a section of docs/instagram.md.
package export

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"
)

// The layouts Import recognises, in the order of the eras of docs/instagram.md §4.2.
const (
	// LayoutFlat2020 is the ≤ 2020 export: one connections.json mapping
	// usernames to date strings.
	LayoutFlat2020 = "2020-flat"
	// LayoutRoot2021 is the 2021 to mid-2023 export: followers_and_following/
	// at the top of the archive (followers.json wrapped in
	// relationships_followers, later split into followers_1.json, …).
	LayoutRoot2021 = "2021-root"
	// LayoutAccountsCenter2023 is the late-2023 to 2024 export:
	// connections/followers_and_following/ with the same file names.
	LayoutAccountsCenter2023 = "2023-accounts-center"
	// LayoutAccountsCenter2025 is the 2025 to 2026 export: the same folder,
	// but with *_profiles.json names, hrefs with /_u/, usernames only in
	// title, or label_values entries. Any one of these marks it.
	LayoutAccountsCenter2025 = "2025-accounts-center"
	// LayoutOther means the list files were found by name outside every
	// folder docs/instagram.md §4.2 describes, e.g. in a ZIP the user rebuilt by hand.
	LayoutOther = "other"
)

// Export is what an export says about the account's connections.
//
// A list is nil when the export has no file for it (the user may not have
// selected it, or the layout has no such file), and non-nil but empty when the
// file is there and lists nobody. That keeps "unknown" apart from "none", as
// analysis.Snapshot requires.
type Export struct {
	// Owner is the account's username from personal_information.json (or the
	// ≤ 2020 profile.json), "" when the export does not include it.
	Owner string
	// Layout is one of the Layout* constants.
	Layout string
	// Followers are the accounts following the owner, aggregated over every
	// followers_N.json page (§4.2: a missing page means mass false unfollows).
	Followers []Account
	// Following are the accounts the owner follows.
	Following []Account
	// RecentlyUnfollowed are accounts the owner unfollowed recently
	// (recently_unfollowed_{profiles,accounts}.json). They appear to be the
	// owner's own unfollows, not people who unfollowed the owner
	// (§2.3, unverified), so it must never be shown as "lost followers".
	RecentlyUnfollowed []Account
	// PendingRequests are follow requests the owner sent that are still
	// waiting (pending_follow_requests.json).
	PendingRequests []Account
	// RecentFollowRequests are the owner's recent follow requests
	// (recent_follow_requests.json, wrapper relationships_permanent_follow_requests).
	RecentFollowRequests []Account
	// Range is set when the export looks limited to a date range (see
	// detectRange for the rule). Its followers are then only those gained
	// inside the window, so the caller must not compute lost followers from
	// it (§4.1: diffing it yields hundreds of false "unfollowers").
	Range *DateRange
	// MissingFiles names split pages that should be there but are not, e.g.
	// followers_2.json when followers_1.json and followers_3.json are. Like a
	// Range, it means the follower list is incomplete.
	MissingFiles []string
	// Warnings are sentences for the person who uploaded the export: skipped
	// entries, a suspected date range, missing pages.
	Warnings []string
}

// Account is one entry of a list.
type Account struct {
	// Username is the Instagram username as the export spells it (mojibake
	// repaired). Compare case-insensitively; the export has no numeric IDs.
	Username string
	// Href is the profile link the export gives, "" when it gives none.
	Href string
	// FollowedAt is when the relation began: the follow, the request or the
	// unfollow, depending on the list. Zero when the export gives no time.
	FollowedAt time.Time
}

// DateRange is the window a date-range-limited export seems to cover.
type DateRange struct {
	// From is the oldest follow time in the follower list: the window began
	// on or before it. The JSON never states the window (§4.6), so this is
	// an estimate.
	From time.Time
	// To is the newest time found in the follower and following lists.
	To time.Time
}

// FollowersComplete reports whether Followers can be compared with another
// export: the list is present, not limited to a date range, and no page of it
// is missing.
func (e Export) FollowersComplete() bool {
	return e.Followers != nil && e.Range == nil && len(e.MissingFiles) == 0
}

// Usernames returns the usernames of list in order, ready for
// analysis.Snapshot. It returns nil for a nil list so that an absent list
// stays "unknown".
func (e Export) Usernames(list []Account) []string {
	if list == nil {
		return nil
	}
	names := make([]string, len(list))
	for i, a := range list {
		names[i] = a.Username
	}
	return names
}

// Limits bound what one import may cost. A zero field takes its default.
type Limits struct {
	// MaxZipBytes caps the archive's size (default 512 MiB; a full export is
	// about 480 MB, §4.1).
	MaxZipBytes int64
	// MaxUncompressedBytes caps the decompressed bytes read over all the files
	// Import opens (default 2 GiB). Files it does not need are never
	// decompressed and do not count.
	MaxUncompressedBytes int64
	// MaxEntryBytes caps the decompressed bytes of one file (default 512 MiB).
	MaxEntryBytes int64
	// MaxEntries caps the number of files in the archive (default 20,000).
	MaxEntries int
	// MaxRatio caps decompressed bytes per compressed byte of one file
	// (default 200), once the file has produced 1 MiB. JSON lists compress
	// about tenfold (a 1,000,000-follower list: 168 MB to 15 MB); deflate
	// cannot exceed about 1,000, which is what zip bombs use.
	MaxRatio int64
	// Timeout caps the time one import may take (default 2 minutes; a
	// 1,000,000-follower export takes a few seconds). Decoding is linear in
	// the bytes decompressed, which the other limits cap, so this is a
	// backstop against a slow machine, not the first line of defence.
	Timeout time.Duration
}

// The default limits.
const (
	DefaultMaxZipBytes          int64 = 512 << 20
	DefaultMaxUncompressedBytes int64 = 2 << 30
	DefaultMaxEntryBytes        int64 = 512 << 20
	DefaultMaxEntries                 = 20_000
	DefaultMaxRatio             int64 = 200
	DefaultTimeout                    = 2 * time.Minute
)

func (l Limits) withDefaults() Limits {
	if l.MaxZipBytes <= 0 {
		l.MaxZipBytes = DefaultMaxZipBytes
	}
	if l.MaxUncompressedBytes <= 0 {
		l.MaxUncompressedBytes = DefaultMaxUncompressedBytes
	}
	if l.MaxEntryBytes <= 0 {
		l.MaxEntryBytes = DefaultMaxEntryBytes
	}
	if l.MaxEntries <= 0 {
		l.MaxEntries = DefaultMaxEntries
	}
	if l.MaxRatio <= 0 {
		l.MaxRatio = DefaultMaxRatio
	}
	if l.Timeout <= 0 {
		l.Timeout = DefaultTimeout
	}
	return l
}

// ImportFile imports the export ZIP at path; see Import.
func ImportFile(ctx context.Context, path string, limits Limits) (Export, error) {
	f, err := os.Open(path)
	if err != nil {
		return Export{}, fmt.Errorf("import export: %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return Export{}, fmt.Errorf("import export: %w", err)
	}
	if !info.Mode().IsRegular() {
		return Export{}, fail(ErrNotZip, "", "The upload is not a ZIP file.", fmt.Errorf("%s is not a regular file", path))
	}
	return Import(ctx, f, info.Size(), limits)
}

// Import reads the export ZIP of size bytes from r. On any error it returns a
// zero Export, so nothing partial is ever stored: an *engine.Error wrapping
// one Err* sentinel, or the context's error when ctx ends first. Import checks
// ctx at every read of decompressed data, so it stops within a few
// kilobytes of work once ctx is done.
func Import(ctx context.Context, r io.ReaderAt, size int64, limits Limits) (Export, error) {
	limits = limits.withDefaults()
	ctx, cancel := context.WithTimeoutCause(ctx, limits.Timeout, errTimeout)
	defer cancel()
	a, err := openArchive(r, size, limits)
	if err != nil {
		return Export{}, err
	}
	imp := &importer{ctx: ctx, archive: a, limits: limits}
	out, err := imp.run()
	if err != nil {
		return Export{}, err
	}
	return out, nil
}
