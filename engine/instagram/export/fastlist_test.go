package export

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
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
