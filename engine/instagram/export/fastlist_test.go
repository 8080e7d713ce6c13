package export

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// listResult is what a list decoder produced.
type listResult struct {
	Accounts []Account
	Skipped  int
	Markers  markers
	Err      bool
}

func slowList(data []byte) listResult {
	var out listResult
	var err error
	out.Skipped, err = decodeList(bytes.NewReader(data), &out.Markers, func(a Account) { out.Accounts = append(out.Accounts, a) })
	out.Err = err != nil
	if out.Err {
		out = listResult{Err: true}
	}
	return out
}

// fastList is what the importer gets from data: decodeListFast, or
// decodeList when that declines.
func fastList(data []byte) (listResult, bool) {
	return fastListFrom(bytes.NewReader(data), data)
}

// fastListFrom is fastList reading data from r.
func fastListFrom(r io.Reader, data []byte) (listResult, bool) {
	var out listResult
	var ok bool
	out.Skipped, ok = decodeListFast(r, &out.Markers, &out.Accounts, int64(len(data)))
	if !ok {
		return slowList(data), false
	}
	return out, true
}

// listFiles are the list files of every fixture export.
func listFiles(tb testing.TB) [][]byte {
	var files [][]byte
	err := filepath.WalkDir("../../../fixtures/instagram/exports", func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".json") {
			return err
		}
		base := filepath.Base(p)
		for _, prefix := range []string{"followers", "following", "recently_unfollowed", "pending_follow", "recent_follow"} {
			if strings.HasPrefix(base, prefix) {
				b, err := os.ReadFile(p)
				files = append(files, b)
				return err
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return files
}

// TestDecodeListFastTakesTheFixtures: the fast path handles every list file
// of the fixtures that is valid JSON (so it is the path real exports take),
// with the same result as decodeList.
func TestDecodeListFastTakesTheFixtures(t *testing.T) {
	t.Parallel()
	files := listFiles(t)
	if len(files) < 10 {
		t.Fatalf("only %d list files found", len(files))
	}
	for _, data := range files {
		slow := slowList(data)
		fast, took := fastList(data)
		if !slow.Err && !took && !bytes.Contains(data, []byte(`"label_values"`)) {
			t.Errorf("the fast path declined %.200s", data)
		}
		if !reflect.DeepEqual(slow, fast) {
			t.Errorf("%.200s:\nslow %+v\nfast %+v", data, slow, fast)
		}
		for _, n := range []int{1, 3, 7} {
			pieces, tookPieces := fastListFrom(&chunkReader{b: data, n: n}, data)
			if !reflect.DeepEqual(slow, pieces) || tookPieces != took {
				t.Errorf("%.200s in pieces of %d:\nslow %+v\nfast %+v", data, n, slow, pieces)
			}
		}
	}
}

// FuzzDecodeListFast holds decodeListFast (with its fallback) to decodeList's
// results on any input.
func FuzzDecodeListFast(f *testing.F) {
	for _, data := range listFiles(f) {
		f.Add(data)
	}
	for _, s := range []string{
		`[{"title":"a","title":"b"}]`, `[{"Title":"a"}]`, `[{"string_list_data":[{"value":"a","timestamp":1.5}]}]`,
		`{"x":[{"title":"\u00c3\u00a9"}],"y":{"z":[1,2,{"a":null}]},"w":-0.5e+3}`, `[{"title":"a\/b"}] x`, `[]`, `{}`,
		`[{"string_list_data":[{"href":"https://www.instagram.com/_u/b","timestamp":-0}],"timestamp":3}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		slow := slowList(data)
		fast, _ := fastList(data)
		if !reflect.DeepEqual(slow, fast) {
			t.Fatalf("%q:\nslow %+v\nfast %+v", data, slow, fast)
		}
		// In pieces of a few bytes, strings, escapes and numbers are cut
		// at every place a read can end.
		pieces, _ := fastListFrom(&chunkReader{b: data, n: len(data)%5 + 1}, data)
		if !reflect.DeepEqual(slow, pieces) {
			t.Fatalf("%q read in pieces of %d:\nslow %+v\nfast %+v", data, len(data)%5+1, slow, pieces)
		}
	})
}

// followersJSON is a followers file of n entries in the 2025 form, with
// usernames of varying length.
func followersJSON(n int) []byte {
	var buf bytes.Buffer
	buf.WriteString("[\n")
	for i := range n {
		if i > 0 {
			buf.WriteString(",\n")
		}
		name := strings.Repeat("x", i%13) + "user." + strconv.Itoa(i)
		fmt.Fprintf(&buf, `  {"title": "", "media_list_data": [], "string_list_data": [{"href": "https://www.instagram.com/_u/%s", "value": "%s", "timestamp": %d}]}`, name, name, 1_500_000_000+i)
	}
	buf.WriteString("\n]\n")
	return buf.Bytes()
}

// TestDecodeListFastGrowsTheListOnce: with the file's true size, the list
// is grown once to about its final length, so it ends with little room to
// spare; with a forged size far above the true one (a sixteenth of it more
// than the file), nothing is reserved for entries that never come, since
// the estimate waits for a sixteenth of the claimed size.
func TestDecodeListFastGrowsTheListOnce(t *testing.T) {
	t.Parallel()
	const n = 60_000
	data := followersJSON(n)
	for _, tc := range []struct {
		name    string
		size    int64
		maxRoom int
	}{
		{"true size", int64(len(data)), n / 8},
		{"forged size", 40 * int64(len(data)), n / 2}, // append's own growth, at most a quarter or so
	} {
		var list []Account
		if _, ok := decodeListFast(bytes.NewReader(data), &markers{}, &list, tc.size); !ok || len(list) != n {
			t.Fatalf("%s: ok %v, %d accounts", tc.name, ok, len(list))
		}
		if room := cap(list) - len(list); room > tc.maxRoom {
			t.Errorf("%s: %d accounts with room for %d more, want at most %d", tc.name, len(list), room, tc.maxRoom)
		}
	}
}

// TestDecodeListFastWhiteSpaceRun: a run of white space of any length
// between the tokens of a list is read once and held nowhere: the decoder
// reads each byte of the file once and allocates about the same whether
// the run is 8 or 64 MB. Not parallel, so that other tests' allocations do
// not count.
func TestDecodeListFastWhiteSpaceRun(t *testing.T) {
	var allocs []uint64
	for _, mb := range []int64{8, 64} {
		src := &countingReader{r: io.MultiReader(
			strings.NewReader(`[{"title": "a"},`), io.LimitReader(spaces{}, mb<<20), strings.NewReader(`{"title":`),
			io.LimitReader(spaces{}, mb<<20), strings.NewReader(`"b"}]`))}
		var list []Account
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		skipped, ok := decodeListFast(src, &markers{}, &list, 2*mb<<20+30)
		runtime.ReadMemStats(&after)
		if !ok || skipped != 0 || len(list) != 2 || list[0].Username != "a" || list[1].Username != "b" {
			t.Fatalf("%d MB: ok %v, %+v", mb, ok, list)
		}
		if want := 2*mb<<20 + 30; src.n != want {
			t.Errorf("%d MB: read %d bytes, want %d, each once", mb, src.n, want)
		}
		allocs = append(allocs, after.TotalAlloc-before.TotalAlloc)
	}
	if allocs[1] > allocs[0]+64<<10 || allocs[1] > 2<<20 {
		t.Errorf("allocated %d bytes for 8 MB runs, %d for 64 MB runs", allocs[0], allocs[1])
	}
}

// BenchmarkDecodeListFast decodes 100,000 followers in the 2025 form from
// memory, without the ZIP: the scanner alone, in MB/s of JSON.
//
//	go test -run '^$' -bench DecodeListFast -benchmem ./engine/instagram/export/
func BenchmarkDecodeListFast(b *testing.B) {
	var buf bytes.Buffer
	buf.WriteString("[\n")
	for i := range 100_000 {
		if i > 0 {
			buf.WriteString(",\n")
		}
		fmt.Fprintf(&buf, `  {"title": "", "media_list_data": [], "string_list_data": [{"href": "https://www.instagram.com/_u/user.%d", "value": "user.%d", "timestamp": %d}]}`, i, i, 1_500_000_000+i)
	}
	buf.WriteString("\n]\n")
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	began := cpuTime(b)
	for b.Loop() {
		var list []Account
		if _, ok := decodeListFast(bytes.NewReader(data), &markers{}, &list, int64(len(data))); !ok || len(list) != 100_000 {
			b.Fatalf("ok %v, %d accounts", ok, len(list))
		}
	}
	// CPU time, unlike wall time, means something on a shared machine.
	b.ReportMetric(float64(len(data))*float64(b.N)/(cpuTime(b)-began).Seconds()/1e6, "cpu-MB/s")
}

// cpuTime is the CPU time the process has used.
func cpuTime(tb testing.TB) time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
