package auth

import (
	"encoding/base64"
	"testing"
)

func TestDecodeCreds(t *testing.T) {
	t.Parallel()
	doc := `{"email":"ann@example.com","password":"secret-1"}`
	std := base64.StdEncoding.EncodeToString([]byte(doc))
	cases := []struct {
		name, raw string
		ok        bool
	}{
		{"base64 padded", std, true},
		{"base64 unpadded", base64.RawStdEncoding.EncodeToString([]byte(doc)), true},
		{"base64 url alphabet", base64.URLEncoding.EncodeToString([]byte(doc)), true},
		{"percent-encoded base64", "eyJlbWFpbCI6ImFubkBleGFtcGxlLmNvbSIsInBhc3N3b3JkIjoic2VjcmV0LTEifQ%3D%3D", true},
		{"plain json", doc, true},
		{"empty", "", false},
		{"not base64", "!!!", false},
		{"missing password", base64.StdEncoding.EncodeToString([]byte(`{"email":"a@b.co"}`)), false},
		{"json array", base64.StdEncoding.EncodeToString([]byte(`[1,2]`)), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			email, password, err := DecodeCreds(tc.raw)
			if (err == nil) != tc.ok {
				t.Fatalf("DecodeCreds(%q) err = %v, want ok=%v", tc.raw, err, tc.ok)
			}
			if tc.ok && (email != "ann@example.com" || password != "secret-1") {
				t.Fatalf("DecodeCreds(%q) = %q, %q", tc.raw, email, password)
			}
		})
	}
}

func FuzzDecodeCreds(f *testing.F) {
	f.Add(base64.StdEncoding.EncodeToString([]byte(`{"email":"a@b.co","password":"123456"}`)))
	f.Add(`{"email":"a@b.co","password":"x"}`)
	f.Add("%7B%22email%22%3A1%7D")
	f.Fuzz(func(t *testing.T, raw string) {
		email, password, err := DecodeCreds(raw)
		if err == nil && (email == "" || password == "") {
			t.Fatalf("DecodeCreds(%q) accepted empty credentials", raw)
		}
	})
}
