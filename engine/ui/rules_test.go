package ui

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRuleParity runs the cases the renderer's Vitest suite runs too, so the
// client and the server agree on every rule.
func TestRuleParity(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "rules", "parity.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Name     string         `json:"name"`
		Rules    []Rule         `json:"rules"`
		Value    any            `json:"value"`
		State    map[string]any `json:"state"`
		Valid    bool           `json:"valid"`
		Messages []string       `json:"messages"`
	}
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) == 0 {
		t.Fatal("no parity cases")
	}
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			t.Parallel()
			got := FailingRules(tc.Rules, tc.Value, tc.State)
			if diff := cmp.Diff(tc.Messages, got); diff != "" {
				t.Errorf("messages (-want +got):\n%s", diff)
			}
			if (len(got) == 0) != tc.Valid {
				t.Errorf("valid = %v, want %v", len(got) == 0, tc.Valid)
			}
			for _, r := range tc.Rules {
				if p, ok := r.Value.(string); ok && r.Kind == "pattern" {
					if _, err := regexp.Compile(p); err != nil {
						t.Errorf("pattern %q is not RE2: %v", p, err)
					}
				}
			}
		})
	}
}

func TestConditionRoundTrip(t *testing.T) {
	t.Parallel()
	state := map[string]any{"form": map[string]any{"reason": "other", "n": 3.0, "list": []any{}}}
	cases := map[string]bool{
		`true`: true, `{"path":"/form/reason"}`: true, `{"path":"/form/missing"}`: false,
		`{"not":{"path":"/form/reason"}}`: false, `{"eq":[{"path":"/form/reason"},"other"]}`: true,
		`{"neq":[{"path":"/form/reason"},"other"]}`: false, `{"gt":[{"path":"/form/n"},2]}`: true,
		`{"lte":[{"path":"/form/n"},2]}`: false, `{"in":[{"path":"/form/reason"},["a","other"]]}`: true,
		`{"and":[true,{"path":"/form/n"}]}`: true, `{"or":[false,{"path":"/form/x"}]}`: false,
		`{"gt":["a",1]}`: false,
	}
	for src, want := range cases {
		var c Condition
		if err := json.Unmarshal([]byte(src), &c); err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		if got := c.Eval(state); got != want {
			t.Errorf("%s = %v, want %v", src, got, want)
		}
		back, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		var a, b any
		_ = json.Unmarshal([]byte(src), &a)
		_ = json.Unmarshal(back, &b)
		if !cmp.Equal(a, b) {
			t.Errorf("round trip %s → %s", src, back)
		}
	}
}

func FuzzCondition(f *testing.F) {
	for _, seed := range []string{`true`, `{"path":"/a"}`, `{"not":{"eq":[{"path":"/a"},1]}}`,
		`{"and":[{"in":["x",["x","y"]]},{"gte":[2,1]}]}`, `{"or":[]}`, `[]`, `{"eq":[1]}`} {
		f.Add(seed)
	}
	state := map[string]any{"a": 1.0, "b": map[string]any{"c": []any{"x"}}}
	f.Fuzz(func(t *testing.T, src string) {
		var c Condition
		if err := json.Unmarshal([]byte(src), &c); err != nil {
			return
		}
		c.Eval(state) // must not panic
		if _, err := json.Marshal(c); err != nil {
			t.Fatalf("a parsed condition does not encode: %v", err)
		}
	})
}
