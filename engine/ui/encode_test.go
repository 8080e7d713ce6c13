package ui

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// fill sets every field of a struct to a non-zero value, recursing into
// nodes and actions one level, so the fast encoder is compared with
// encoding/json on every field.
func fill(v reflect.Value, depth int) {
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		switch f.Kind() {
		case reflect.String:
			f.SetString("x<&>\u2028\"\\\n" + v.Type().Field(i).Name)
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Int, reflect.Int64:
			f.SetInt(int64(i + 1))
		case reflect.Pointer:
			if depth == 0 {
				continue
			}
			p := reflect.New(f.Type().Elem())
			if p.Elem().Kind() == reflect.Struct {
				fill(p.Elem(), depth-1)
			}
			f.Set(p)
		case reflect.Slice:
			if depth == 0 {
				continue
			}
			s := reflect.MakeSlice(f.Type(), 1, 1)
			e := s.Index(0)
			if e.Kind() == reflect.Pointer {
				e.Set(reflect.New(e.Type().Elem()))
				e = e.Elem()
			}
			if e.Kind() == reflect.Struct {
				fill(e, depth-1)
			}
			f.Set(s)
		}
	}
}

func TestFastEncodingMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	var n Node
	fill(reflect.ValueOf(&n).Elem(), 2)
	n.Alt = new(string)
	n.Value = &NullableString{S: "1,234", Valid: true}
	n.Visible = Always(true)
	n.DisabledWhen = Truthy("/a")
	type plain Node // no MarshalJSON: encoding/json reflects over it
	want, err := json.Marshal(plain(n))
	if err != nil {
		t.Fatal(err)
	}
	got, err := n.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	// Nested nodes and actions use the fast path in both, so compare the
	// decoded documents as well as the top-level bytes' shape.
	var w, g any
	_ = json.Unmarshal(want, &w)
	_ = json.Unmarshal(got, &g)
	if !reflect.DeepEqual(w, g) {
		t.Fatalf("fast encoding differs:\nwant %s\ngot  %s", want, got)
	}
	var a Action
	fill(reflect.ValueOf(&a).Elem(), 1)
	type plainAction Action
	wantA, _ := json.Marshal(plainAction(a))
	gotA, _ := a.MarshalJSON()
	var wa, ga any
	_ = json.Unmarshal(wantA, &wa)
	_ = json.Unmarshal(gotA, &ga)
	if !reflect.DeepEqual(wa, ga) {
		t.Fatalf("fast action encoding differs:\nwant %s\ngot  %s", wantA, gotA)
	}
}

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
