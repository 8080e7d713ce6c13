package export

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestDecodeList(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      string
		want    []string
		skipped int
		markers markers
	}{
		{"Form 1 array", `[{"title":"","string_list_data":[{"href":"https://www.instagram.com/a.b","value":"a.b","timestamp":1}]}]`, []string{"a.b"}, 0, markers{}},
		{"Form 2 wrapper", `{"relationships_following":[{"title":"c_d","string_list_data":[{"href":"https://www.instagram.com/_u/c_d","timestamp":1}]}]}`,
			[]string{"c_d"}, 0, markers{uHref: true, titleOnly: true}},
		{"unknown wrapper key", `{"relationships_followers_v9":[{"string_list_data":[{"value":"e"}]}]}`, []string{"e"}, 0, markers{}},
		{"Form 3 bare object", `{"timestamp":1,"fbid":"9","media":[],"label_values":[{"label":"Username","value":"f"}]}`, []string{"f"}, 0, markers{labelValues: true}},
		{"Form 3 URL only", `[{"label_values":[{"label":"URL","value":"https://www.instagram.com/g.h/"}]}]`, []string{"g.h"}, 0, markers{labelValues: true}},
		{"name label is not a username", `[{"label_values":[{"label":"Name","value":"Lee Park"}]}]`, nil, 1, markers{labelValues: true}},
		{"href fallback without value", `[{"string_list_data":[{"href":"https://www.instagram.com/_u/i.j?igsh=x#y"}]}]`, []string{"i.j"}, 0, markers{uHref: true}},
		{"@ and spaces", `[{"string_list_data":[{"value":" @k.l "}]}]`, []string{"k.l"}, 0, markers{}},
		{"wrong types are skipped, not fatal", `[{"title":5,"string_list_data":[{"value":"m","timestamp":"soon"}]},"junk",{"title":"n"}]`,
			[]string{"m", "n"}, 1, markers{titleOnly: true}},
		{"empty array", `[]`, nil, 0, markers{}},
		{"non-list keys skipped", `{"meta":{"a":[1,{"b":2}]},"count":3,"list":[{"title":"o"}]}`, []string{"o"}, 0, markers{titleOnly: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var m markers
			var got []string
			skipped, err := decodeList(bytes.NewReader([]byte(tc.in)), &m, func(a Account) { got = append(got, a.Username) })
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("usernames (-want +got):\n%s", diff)
			}
			if skipped != tc.skipped || m != tc.markers {
				t.Errorf("skipped %d, markers %+v; want %d, %+v", skipped, m, tc.skipped, tc.markers)
			}
		})
	}
}

func TestDecodeEarliest(t *testing.T) {
	t.Parallel()
	got, err := decodeEarliest(bytes.NewReader([]byte(`{"a":[{"timestamp":0,"x":{"timestamp":200}},{"timestamp":100,"t":[5]}],"timestamp":"300"}`)))
	if err != nil {
		t.Fatal(err)
	}
	if want := time.Unix(100, 0).UTC(); !got.Equal(want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// FuzzDecodeList checks the streaming decoders on arbitrary input: no panic,
// no empty usernames, and success only for valid JSON.
func FuzzDecodeList(f *testing.F) {
	for _, seed := range []string{
		`[{"title":"","media_list_data":[],"string_list_data":[{"href":"https://www.instagram.com/a","value":"a","timestamp":1718000000}]}]`,
		`{"relationships_following":[{"title":"b","string_list_data":[{"href":"https://www.instagram.com/_u/b","timestamp":1}]}]}`,
		`{"timestamp":1,"label_values":[{"label":"Nome de usu\u00c3\u00a1rio","value":"c"}]}`,
		`{"followers":{"d":"2019-06-15T12:34:56+00:00"},"following":{}}`,
		`{"profile_user":[{"string_map_data":{"Username":{"value":"e"}}}]}`,
		`[`, `{"a":`, `"x"`, ``, `[] []`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var m markers
		_, err := decodeList(bytes.NewReader(data), &m, func(a Account) {
			if a.Username == "" {
				t.Fatal("empty username")
			}
		})
		if err == nil && !json.Valid(data) {
			t.Fatalf("decodeList accepted invalid JSON %q", data)
		}
		var followers []Account
		if err := decodeFlat(bytes.NewReader(data), map[string]*[]Account{"followers": &followers}); err == nil && !json.Valid(data) {
			t.Fatalf("decodeFlat accepted invalid JSON %q", data)
		}
		for _, a := range followers {
			if a.Username == "" {
				t.Fatal("empty username from decodeFlat")
			}
		}
		if _, err := decodeOwner(bytes.NewReader(data)); err == nil && !json.Valid(data) {
			t.Fatalf("decodeOwner accepted invalid JSON %q", data)
		}
		if _, err := decodeEarliest(bytes.NewReader(data)); err == nil && !json.Valid(data) {
			t.Fatalf("decodeEarliest accepted invalid JSON %q", data)
		}
	})
}
