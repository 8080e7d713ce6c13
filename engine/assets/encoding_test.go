package assets

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

func TestNegotiateEncoding(t *testing.T) {
	t.Parallel()
	cases := map[string]Encoding{
		"":                               Identity,
		"gzip, deflate, br":              Brotli, // what browsers send
		"gzip, deflate, br, zstd":        Brotli,
		"gzip, deflate":                  Gzip,
		"deflate":                        Identity,
		"identity":                       Identity,
		"GZIP":                           Gzip,
		"x-gzip":                         Gzip,
		"br;q=0.5, gzip":                 Gzip,
		"br;q=0.5, gzip;q=0.8, zstd":     Zstd,
		"br;q=0, gzip;q=0":               Identity,
		"*":                              Brotli,
		"*;q=0.1, gzip;q=0.5":            Gzip,
		"br;q=0, *":                      Zstd,
		"gzip;q=1.0, br;q=0.999":         Gzip,
		"br ; q=0.3 , gzip ; Q=0.2":      Brotli,
		"br;q=2, gzip":                   Gzip, // a weight out of range refuses
		"br;q=abc, gzip;q=0.001":         Gzip,
		"br;level=5, gzip;q=0.9":         Brotli,
		",, ,gzip,":                      Gzip,
		"zstd;q=0.5, zstd;q=0.9, br;q=.": Zstd,
	}
	for header, want := range cases {
		if got := Negotiate(header); got != want {
			t.Errorf("Negotiate(%q) = %s, want %s", header, got, want)
		}
	}
}

// FuzzNegotiateEncoding: any header picks a known coding, never panics, and
// picks only a coding the header accepts (named or by "*" with a q above 0),
// or identity.
func FuzzNegotiateEncoding(f *testing.F) {
	for _, seed := range []string{"", "gzip, deflate, br", "br;q=0.5, gzip;q=0.8, zstd", "*;q=0", "br;q=1.000",
		"gzip;q=0.", ";;;", "x-gzip;q=0.3,*"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, header string) {
		e := Negotiate(header)
		if e >= NumEncodings {
			t.Fatalf("Negotiate(%q) = %d", header, e)
		}
		if e == Identity {
			return
		}
		lower := strings.ToLower(header)
		if !strings.Contains(lower, e.String()) && !strings.Contains(lower, "*") {
			t.Fatalf("Negotiate(%q) = %s, which the header does not name", header, e)
		}
		// Whatever was picked, a coding named with q=0 alone is never it.
		if strings.TrimSpace(lower) == e.String()+";q=0" {
			t.Fatalf("Negotiate(%q) picked a refused coding", header)
		}
	})
}

func TestParseQValue(t *testing.T) {
	t.Parallel()
	ok := map[string]int{"0": 0, "1": 1000, "0.5": 500, "0.125": 125, "1.000": 1000, "0.": 0, "1.": 1000}
	for s, want := range ok {
		if got, valid := parseQValue(s); !valid || got != want {
			t.Errorf("parseQValue(%q) = %d, %v; want %d", s, got, valid, want)
		}
	}
	for _, s := range []string{"", "2", "1.5", "0.1234", "-1", "abc", ".5", "1.001"} {
		if _, valid := parseQValue(s); valid {
			t.Errorf("parseQValue(%q) is valid", s)
		}
	}
}

// TestCompressBodyRoundTrips: every kept encoding decodes to the body.
func TestCompressBodyRoundTrips(t *testing.T) {
	t.Parallel()
	body := []byte(strings.Repeat(`{"type":"text","text":"hello"},`, 200))
	for e := Brotli; e < NumEncodings; e++ {
		out, err := Compress(e, body)
		if err != nil {
			t.Fatal(e, err)
		}
		if got := decode(t, e, out); !bytes.Equal(got, body) {
			t.Errorf("%s does not round-trip", e)
		}
		if len(out) >= len(body) {
			t.Errorf("%s: %d bytes from %d", e, len(out), len(body))
		}
	}
}

func decode(t *testing.T, e Encoding, b []byte) []byte {
	t.Helper()
	var r io.Reader
	switch e {
	case Identity:
		return b
	case Brotli:
		r = brotli.NewReader(bytes.NewReader(b))
	case Gzip:
		gz, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		r = gz
	case Zstd:
		zr, err := zstd.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		defer zr.Close()
		r = zr
	}
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(e, err)
	}
	return out
}

func TestNegotiateEncodingShortcutsAgreeWithTheParse(t *testing.T) {
	for _, header := range []string{browserAcceptEncoding, browserZstdAcceptEncoding} {
		if got, want := Negotiate(header), parseAcceptEncoding(header); got != want {
			t.Errorf("%q: the shortcut answers %s, the parse %s", header, got, want)
		}
	}
}
