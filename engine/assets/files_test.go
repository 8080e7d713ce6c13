package assets

import (
	"bytes"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/andybalholm/brotli"
	"github.com/gofiber/fiber/v3"
	"github.com/gofiber/fiber/v3/middleware/compress"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

func TestFilesAreSentInTheirPrecompressedForms(t *testing.T) {
	t.Parallel()
	script := []byte(strings.Repeat(`export function node(props){return props.children.map((c)=>render(c))}`+"\n", 300))
	picture := []byte(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 390 180">` + strings.Repeat(`<rect x="1" y="2" width="3" height="4" fill="#2a66f5"/>`, 40) + `</svg>`)
	font := bytes.Repeat([]byte{0x77, 0x4f, 0x46, 0x32, 1, 2, 3}, 400)
	f, err := New(
		fstest.MapFS{
			"index.html":         {Data: []byte(`<!doctype html><head></head>`)},
			"assets/app-1.js":    {Data: script},
			"assets/tiny-1.css":  {Data: []byte(`.a{color:red}`)},
			"assets/inter.woff2": {Data: font},
		},
		fstest.MapFS{"static/news/a.svg": {Data: picture}},
	)
	if err != nil {
		t.Fatal(err)
	}
	f.Precompress()
	app := fiber.New()
	app.Use(compress.New())
	app.Get("/assets/*", f.ServeAsset)
	app.Get("/static/*", f.ServeStatic)

	get := func(path, acceptEncoding string) (encoding string, body []byte) {
		t.Helper()
		req := httptest.NewRequest("GET", path, nil)
		req.Header.Set("Accept-Encoding", acceptEncoding)
		res, err := app.Test(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		if res.StatusCode != 200 {
			t.Fatalf("%s answered %d", path, res.StatusCode)
		}
		raw, _ := io.ReadAll(res.Body)
		return res.Header.Get("Content-Encoding"), raw
	}
	decode := func(encoding string, raw []byte) []byte {
		t.Helper()
		var r io.Reader
		switch encoding {
		case "br":
			r = brotli.NewReader(bytes.NewReader(raw))
		case "gzip":
			gz, err := gzip.NewReader(bytes.NewReader(raw))
			if err != nil {
				t.Fatal(err)
			}
			r = gz
		case "zstd":
			zr, err := zstd.NewReader(bytes.NewReader(raw))
			if err != nil {
				t.Fatal(err)
			}
			defer zr.Close()
			r = zr
		default:
			return raw
		}
		out, err := io.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}

	for _, tc := range []struct{ accept, want string }{
		{"gzip, deflate, br", "br"}, {"gzip, deflate, br, zstd", "br"}, {"zstd", "zstd"}, {"gzip", "gzip"}, {"", ""},
	} {
		for path, original := range map[string][]byte{"/assets/app-1.js": script, "/static/news/a.svg": picture} {
			encoding, raw := get(path, tc.accept)
			if encoding != tc.want {
				t.Errorf("%s for %q: Content-Encoding %q, want %q", path, tc.accept, encoding, tc.want)
			}
			if !bytes.Equal(decode(encoding, raw), original) {
				t.Errorf("%s for %q: the body is not the file", path, tc.accept)
			}
			if encoding != "" {
				if kept, _ := f.encoded.Load(encodedKey(strings.Split(path, "/")[1], strings.SplitN(path, "/", 3)[2], Negotiate(tc.accept))); !bytes.Equal(kept.([]byte), raw) {
					t.Errorf("%s for %q was encoded for the request instead of taken from the kept form", path, tc.accept)
				}
			}
		}
	}
	// Too small to gain, or compressed already: sent as the files are.
	for path, original := range map[string][]byte{"/assets/tiny-1.css": []byte(`.a{color:red}`), "/assets/inter.woff2": font} {
		if _, ok := f.encoded.Load(encodedKey("assets", strings.TrimPrefix(path, "/assets/"), Brotli)); ok {
			t.Errorf("%s has a kept compressed form", path)
		}
		encoding, raw := get(path, "gzip, deflate, br")
		if !bytes.Equal(decode(encoding, raw), original) {
			t.Errorf("%s: the body is not the file", path)
		}
	}
}
