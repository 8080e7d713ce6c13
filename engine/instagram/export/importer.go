package export

import (
	"archive/zip"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// kind is what a file in the export holds.
type kind int

const (
	kindNone kind = iota
	kindFollowers
	kindFollowing
	kindUnfollowed
	kindPending
	kindRecentRequests
	kindFlat
	kindProfile
	kindSignup
	kindHTML
)

// routes find files by name, wherever they are (§4.2: route files by name,
// not by path). The first group, when present, is the page
// number of a split file. following_hashtags.json does not match: it lists
// hashtags, not accounts (§4.4).
var routes = []struct {
	name *regexp.Regexp
	kind kind
}{
	{regexp.MustCompile(`^followers(?:_(\d+))?\.json$`), kindFollowers},
	{regexp.MustCompile(`^following(?:_(\d+))?\.json$`), kindFollowing},
	{regexp.MustCompile(`^recently_unfollowed_(?:profiles|accounts)\.json$`), kindUnfollowed},
	{regexp.MustCompile(`^pending_follow_requests\.json$`), kindPending},
	{regexp.MustCompile(`^recent_follow_requests\.json$`), kindRecentRequests},
	{regexp.MustCompile(`^connections\.json$`), kindFlat},
	{regexp.MustCompile(`^(?:personal_information|profile)\.json$`), kindProfile},
	{regexp.MustCompile(`^signup_details\.json$`), kindSignup},
	{regexp.MustCompile(`^(?:followers(?:_\d+)?|following)\.html$`), kindHTML},
}

// profilesName matches the 2025 names (blocked_profiles.json, …; §4.2).
var profilesName = regexp.MustCompile(`^[a-z_]+_profiles\.json$`)

// listFolder is the folder every layout since 2021 keeps the lists in.
const listFolder = "followers_and_following"

// candidate is one file Import may read.
type candidate struct {
	file   *zip.File
	kind   kind
	dir    string
	prefix string // the name before the page number: "followers"
	page   int    // 0 for an unnumbered file
}

type importer struct {
	ctx     context.Context
	archive *zip.Reader
	limits  Limits
	total   atomic.Int64 // decompressed bytes so far, for MaxUncompressedBytes
	markers markers
	out     Export
}

func (imp *importer) run() (Export, error) {
	byKind := map[kind][]candidate{}
	profilesNames := false
	for _, f := range imp.archive.File {
		if f.FileInfo().IsDir() {
			continue
		}
		dir, base := path.Split(f.Name)
		dir = strings.TrimSuffix(dir, "/")
		if path.Base(dir) == listFolder && profilesName.MatchString(base) {
			profilesNames = true
		}
		for _, route := range routes {
			m := route.name.FindStringSubmatch(base)
			if m == nil {
				continue
			}
			c := candidate{file: f, kind: route.kind, dir: dir}
			if len(m) > 1 && m[1] != "" {
				c.page, _ = strconv.Atoi(m[1])
				c.prefix = strings.TrimSuffix(base, "_"+m[1]+".json")
			} else {
				c.prefix = strings.TrimSuffix(base, ".json")
			}
			byKind[route.kind] = append(byKind[route.kind], c)
			break
		}
	}
	if len(byKind[kindFollowers]) == 0 && len(byKind[kindFollowing]) == 0 && len(byKind[kindFlat]) == 0 {
		if len(byKind[kindHTML]) > 0 {
			return Export{}, fail(ErrNoConnections, "", "This export is in HTML format. Request a new one with Format: JSON.", nil)
		}
		return Export{}, fail(ErrNoConnections, "", "The ZIP has no followers or following list. Request a new export with “Followers and following” selected, Format: JSON and Date range: All time.", nil)
	}

	lists := []struct {
		kind kind
		list *[]Account
	}{
		{kindFollowers, &imp.out.Followers},
		{kindFollowing, &imp.out.Following},
		{kindUnfollowed, &imp.out.RecentlyUnfollowed},
		{kindPending, &imp.out.PendingRequests},
		{kindRecentRequests, &imp.out.RecentFollowRequests},
	}
	// The followers are read on a goroutine of their own while the other
	// lists are read here: on two cores the two largest files then decode
	// at once. Each list keeps its own markers, warnings and error, which
	// are then taken in the order of lists, as if read one after another.
	readers := make([]listReader, len(lists))
	plans := make([][]candidate, len(lists))
	for i, l := range lists {
		readers[i] = listReader{imp: imp}
		plans[i] = readers[i].plan(byKind[l.kind])
	}
	readAll := func(from, to int) {
		for i := from; i < to; i++ {
			r := &readers[i]
			for _, c := range plans[i] {
				if r.err = r.readList(c, lists[i].list); r.err != nil {
					return
				}
			}
			if len(plans[i]) > 0 && *lists[i].list == nil {
				*lists[i].list = []Account{}
			}
		}
	}
	var wg sync.WaitGroup
	wg.Go(func() { readAll(0, 1) })
	readAll(1, len(lists))
	wg.Wait()
	for _, r := range readers {
		if r.err != nil {
			return Export{}, r.err
		}
		imp.markers = imp.markers.or(r.markers)
		imp.out.MissingFiles = append(imp.out.MissingFiles, r.missing...)
		imp.out.Warnings = append(imp.out.Warnings, r.warnings...)
	}
	for _, c := range byKind[kindFlat] {
		err := imp.read(c, func(r io.Reader, _ int64) error {
			return decodeFlat(r, map[string]*[]Account{
				"followers": &imp.out.Followers, "following": &imp.out.Following,
				// The ≤ 2020 key for requests you sent (unverified).
				"follow_requests_sent": &imp.out.PendingRequests,
			})
		}, nil)
		if err != nil {
			return Export{}, err
		}
	}
	if imp.out.Followers == nil && imp.out.Following == nil {
		return Export{}, fail(ErrNoConnections, "", "The ZIP has no followers or following list. Request a new export with “Followers and following” selected, Format: JSON and Date range: All time.", nil)
	}
	for _, c := range byKind[kindProfile] {
		if imp.out.Owner != "" {
			break
		}
		err := imp.read(c, func(r io.Reader, _ int64) (err error) {
			imp.out.Owner, err = decodeOwner(r)
			return err
		}, nil)
		if err != nil {
			return Export{}, err
		}
	}
	var signup time.Time
	for _, c := range byKind[kindSignup] {
		err := imp.read(c, func(r io.Reader, _ int64) (err error) {
			signup, err = decodeEarliest(r)
			return err
		}, nil)
		if err != nil {
			return Export{}, err
		}
	}

	imp.out.Layout = layout(byKind, imp.markers.any() || profilesNames)
	if r := detectRange(imp.out.Followers, imp.out.Following, signup); r != nil {
		imp.out.Range = r
		imp.warn("Your followers in this export only go back to %s, though you were following accounts from %s. The export looks limited to a date range, so it lists only followers gained since then, and lost followers are not worked out from it. Request a new export with Date range: All time.",
			day(r.From), day(earliest(imp.out.Following, signup)))
	}
	if len(imp.out.MissingFiles) > 0 {
		imp.warn("The export is missing %s, so some followers may be left out and lost followers are not worked out from it. Download the export again.", strings.Join(imp.out.MissingFiles, ", "))
	}
	return imp.out, nil
}

// listReader reads the files of one list, keeping what it finds apart from
// the other lists' until the importer takes them in order.
type listReader struct {
	imp      *importer
	markers  markers
	missing  []string
	warnings []string
	err      error
}

// plan orders the files of one list and notes missing pages. When some
// files sit in a followers_and_following folder, files of the same name
// elsewhere are ignored: other products in a full export (§4.2) may use the
// same names.
func (lr *listReader) plan(files []candidate) []candidate {
	if slices.ContainsFunc(files, func(c candidate) bool { return path.Base(c.dir) == listFolder }) {
		files = slices.DeleteFunc(slices.Clone(files), func(c candidate) bool { return path.Base(c.dir) != listFolder })
	}
	slices.SortFunc(files, func(a, b candidate) int {
		return cmp.Or(strings.Compare(a.dir, b.dir), cmp.Compare(a.page, b.page), strings.Compare(a.file.Name, b.file.Name))
	})
	dirs := map[string]bool{}
	pages := map[string]map[int]bool{}
	for _, c := range files {
		dirs[c.dir] = true
		if c.page > 0 {
			key := path.Join(c.dir, c.prefix)
			if pages[key] == nil {
				pages[key] = map[int]bool{}
			}
			pages[key][c.page] = true
		}
	}
	if len(dirs) > 1 {
		lr.warn("The ZIP holds more than one copy of %s (in %s); all were read. Upload one export at a time.", files[0].prefix, strings.Join(slices.Sorted(maps.Keys(dirs)), ", "))
	}
	for _, key := range slices.Sorted(maps.Keys(pages)) {
		last := slices.Max(slices.Collect(maps.Keys(pages[key])))
		for page := 1; page < last; page++ {
			if !pages[key][page] {
				lr.missing = append(lr.missing, fmt.Sprintf("%s_%d.json", key, page))
			}
		}
	}
	return files
}

// readList appends the accounts of one list file to list. It tries
// decodeListFast first, and reads the file again with decodeList when that
// declines it.
func (lr *listReader) readList(c candidate, list *[]Account) error {
	var skipped int
	n, markers := len(*list), lr.markers
	fast := false
	var read int64
	err := lr.imp.read(c, func(r io.Reader, size int64) error {
		skipped, fast = decodeListFast(r, &lr.markers, list, size)
		return nil
	}, &read)
	if err == nil && !fast {
		// Undo the attempt, including its count of decompressed bytes: the
		// file is read again, but its size has not changed.
		clear((*list)[n:])
		*list, lr.markers = (*list)[:n], markers
		lr.imp.total.Add(-read)
		err = lr.imp.read(c, func(r io.Reader, _ int64) (err error) {
			skipped, err = decodeList(r, &lr.markers, func(a Account) { *list = append(*list, a) })
			return err
		}, nil)
	}
	if skipped > 0 {
		if skipped == 1 {
			lr.warn("1 entry in %s had no username and was left out.", c.file.Name)
		} else {
			lr.warn("%d entries in %s had no username and were left out.", skipped, c.file.Name)
		}
	}
	return err
}

func (lr *listReader) warn(format string, args ...any) {
	lr.warnings = append(lr.warnings, fmt.Sprintf(format, args...))
}

// read opens one file within the limits and hands it to decode, with the
// most it may decompress to, turning failures into the errors Import
// returns. The file is inflated a few chunks ahead of decode (readAhead).
// When read is not nil it is set to the bytes the file decompressed to. It
// is safe to call from more than one goroutine.
func (imp *importer) read(c candidate, decode func(r io.Reader, size int64) error, read *int64) error {
	if imp.ctx.Err() != nil {
		return contextError(imp.ctx, imp.limits)
	}
	r, closer, err := openEntry(imp.ctx, c.file, imp.limits, &imp.total)
	if err != nil {
		return err
	}
	defer closer.Close()
	size := min(int64(c.file.UncompressedSize64), r.bound())
	ahead := startReadAhead(imp.ctx, r)
	err = decode(ahead, size)
	ahead.stop()
	if read != nil {
		*read = r.read
	}
	switch {
	case ahead.err != nil:
		return readError(imp.ctx, imp.limits, c.file.Name, ahead.err)
	case errors.Is(err, errJSONBound):
		return fail(ErrMalformedJSON, c.file.Name,
			fmt.Sprintf("The file %s in the ZIP nests deeper or holds longer text than an Instagram export does, so it was not read. Upload the ZIP that Instagram e-mailed you, unchanged.", c.file.Name), err)
	case err != nil:
		return fail(ErrMalformedJSON, c.file.Name,
			fmt.Sprintf("The file %s in the ZIP is not valid JSON, so nothing was imported. Download the export again, or request a new one with Format: JSON.", c.file.Name), err)
	}
	return nil
}

func (imp *importer) warn(format string, args ...any) {
	imp.out.Warnings = append(imp.out.Warnings, fmt.Sprintf(format, args...))
}

// layout names the layout from where the list files are (§4.2).
func layout(byKind map[kind][]candidate, markers2025 bool) string {
	root := false
	for _, k := range []kind{kindFollowers, kindFollowing} {
		for _, c := range byKind[k] {
			if path.Base(c.dir) != listFolder {
				continue
			}
			if path.Base(path.Dir(c.dir)) == "connections" {
				if markers2025 {
					return LayoutAccountsCenter2025
				}
				return LayoutAccountsCenter2023
			}
			root = true
		}
	}
	switch {
	case root:
		return LayoutRoot2021
	case len(byKind[kindFlat]) > 0:
		return LayoutFlat2020
	default:
		return LayoutOther
	}
}

func day(t time.Time) string { return t.Format("2 Jan 2006") }
