package export

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// countingReader counts the bytes it hands on.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// spaces is an endless reader of white space, so a run of any length costs
// the test no memory. Like the deflate reader of a ZIP entry it returns at
// most 32 KiB per read: json.Decoder's rescans are quadratic when each refill
// adds less than its buffer's spare room.
type spaces struct{}

func (spaces) Read(p []byte) (int, error) {
	p = p[:min(len(p), 32<<10)]
	for i := range p {
		p[i] = " \n\t\r"[i%4]
	}
	return len(p), nil
}

// TestWhiteSpaceRunCostsNoMemory counts the work behind the quadratic
// rejection of a file of "[" and a long run of white space: json.Decoder
// rescans every white-space byte it holds after each refill and grows its
// buffer to hold the whole run, so the bytes it allocates are the measure of
// the rescanning. They must not grow with the run, and the bytes read from
// the file must be each read once. Not parallel, so that other tests'
// allocations do not count.
func TestWhiteSpaceRunCostsNoMemory(t *testing.T) {
	for _, mb := range []int64{8, 32} {
		src := &countingReader{r: io.MultiReader(strings.NewReader("["), io.LimitReader(spaces{}, mb<<20), strings.NewReader(`{"title":"a"} ]`))}
		var got []string
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		skipped, err := decodeList(src, &markers{}, func(a Account) { got = append(got, a.Username) })
		runtime.ReadMemStats(&after)
		if err != nil || skipped != 0 || !reflect.DeepEqual(got, []string{"a"}) {
			t.Fatalf("%d MB: %v %d %v", mb, got, skipped, err)
		}
		if src.n != mb<<20+16 {
			t.Errorf("%d MB: read %d bytes from the file, want each once", mb, src.n)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
			t.Errorf("%d MB of white space made the decoder allocate %d bytes", mb, alloc)
		}
	}
}

// TestWhiteSpaceRunReachesTheDecoderAsOneByte: whatever the run's length,
// compactReader passes it on as one byte.
func TestWhiteSpaceRunReachesTheDecoderAsOneByte(t *testing.T) {
	t.Parallel()
	out := &countingReader{r: &compactReader{r: io.MultiReader(strings.NewReader("["), io.LimitReader(spaces{}, 32<<20), strings.NewReader("]"))}}
	b, err := io.ReadAll(out)
	if err != nil || string(b) != "[ ]" {
		t.Fatalf("%q %v", b, err)
	}
}

func TestCompactReaderBounds(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"deep":        strings.Repeat("[", maxDepth+1),
		"long string": `["` + strings.Repeat("a", maxStringBytes+1) + `"]`,
	}
	for name, in := range tests {
		_, err := decodeList(strings.NewReader(in), &markers{}, func(Account) {})
		if !errors.Is(err, errJSONBound) {
			t.Errorf("%s: %v, want errJSONBound", name, err)
		}
	}
	ok := strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth)
	if _, err := io.ReadAll(&compactReader{r: strings.NewReader(ok)}); err != nil {
		t.Errorf("nesting at the bound: %v", err)
	}
}

// FuzzCompactReader checks the claim compactReader's correctness rests on:
// a document is valid after collapsing exactly when it was before, and means
// the same, whatever the bytes and however the reads split them.
func FuzzCompactReader(f *testing.F) {
	for _, s := range []string{
		`[ {"title" : "a b", "x":[1, 2 ,3]} ]`, "\"a\\\" \t b\"  ", `{"a":"\\"  }`, "1 2", "[\n\n]", `"\u00e9  "`,
		"[\"a\n b\"]", `{"k": tru e}`, "  ", "",
	} {
		f.Add([]byte(s), uint8(3))
	}
	f.Fuzz(func(t *testing.T, data []byte, chunk uint8) {
		// The reader may be handed the input in pieces of any size.
		in := &chunkReader{b: data, n: int(chunk)%7 + 1}
		out, err := io.ReadAll(&compactReader{r: in})
		if errors.Is(err, errJSONBound) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if json.Valid(out) != json.Valid(data) {
			t.Fatalf("valid %v before, %v after: %q → %q", json.Valid(data), json.Valid(out), data, out)
		}
		if bytes.Contains(out, []byte("  ")) && !bytes.Contains(data, []byte("  ")) {
			t.Fatalf("grew white space: %q → %q", data, out)
		}
		if !json.Valid(data) {
			return
		}
		// Numbers are compared as written: valid JSON may hold a number no
		// float64 can (a run of 2s hundreds of digits long).
		before, err := decodeNumbers(data)
		if err != nil {
			t.Fatal(err)
		}
		after, err := decodeNumbers(out)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(before, after) {
			t.Fatalf("%q means %v, collapsed %q means %v", data, before, out, after)
		}
	})
}

// chunkReader returns at most n bytes per read.
type chunkReader struct {
	b []byte
	n int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.b) == 0 {
		return 0, io.EOF
	}
	k := copy(p[:min(len(p), c.n)], c.b)
	c.b = c.b[k:]
	return k, nil
}

// BenchmarkWhiteSpaceRun decodes "[" and a run of white space: the time per
// run-megabyte stays flat as the run grows (it grew with the run's length
// before compactReader).
func BenchmarkWhiteSpaceRun(b *testing.B) {
	for _, mb := range []int64{8, 32} {
		b.Run(fmt.Sprintf("%dMB", mb), func(b *testing.B) {
			b.SetBytes(mb << 20)
			for b.Loop() {
				r := io.MultiReader(strings.NewReader("["), io.LimitReader(spaces{}, mb<<20), strings.NewReader("]"))
				if _, err := decodeList(r, &markers{}, func(Account) {}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// decodeNumbers decodes one JSON document, its numbers kept as their text.
func decodeNumbers(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	err := d.Decode(&v)
	return v, err
}
