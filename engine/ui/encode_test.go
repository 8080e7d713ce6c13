package ui

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

func TestEncodeMatchesGoldenBytes(t *testing.T) {
	t.Parallel()
	paths, _ := filepath.Glob(filepath.Join("..", "..", "fixtures", "screens", "*.json"))
	if len(paths) == 0 {
		t.Skip("no golden screens")
	}
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var env Envelope
		if err := json.Unmarshal(raw, &env); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		got, err := env.Encode()
		if err != nil {
			t.Fatal(err)
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, raw); err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(raw, []byte(`"value": null`)) {
			// A null stat-tile value decodes to a nil pointer and cannot
			// round-trip; such screens are compared in screens' golden test.
			continue
		}
		if !bytes.Equal(got, compact.Bytes()) {
			t.Errorf("%s: Encode differs from the golden bytes\nwant %s\ngot  %s", p, compact.Bytes(), got)
		}
	}
}

func TestAppendStringEscapesLikeEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"plain", "<a href=\"x\">&</a>", "tab\tnew\nline\r", "\x00\x1f", "bad \xff utf8",
		"line\u2028sep\u2029", "emoji 😀 and ü"} {
		want, _ := json.Marshal(s)
		if got := appendString(nil, s); !bytes.Equal(got, want) {
			t.Errorf("appendString(%q) = %s, want %s", s, got, want)
		}
	}
}
